package formula

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

// MaxLevels bounds the levels of a categorical term; more is almost always
// an identifier used by mistake (C(episode_id)) and would make X huge.
const MaxLevels = 5000

// Options controls Build.
type Options struct {
	// Ref maps a categorical column to its reference level (default: the
	// first level in sorted order).
	Ref map[string]string
}

// Design is a fixed-effects design matrix with named columns.
type Design struct {
	X         *mat.Dense
	Names     []string // column names of X: (Intercept), x, col[level]
	Intercept bool
	Terms     []DesignTerm // one per formula term, in formula order
	Warnings  []string
}

// DesignTerm maps a formula term to its columns of X. A term whose column
// is constant (one level) has no columns.
type DesignTerm struct {
	Term        Term
	Categorical bool
	Ref         string // reference level of a categorical term
	Levels      []string
	Cols        []int
	codes       []int32 // level code of each dummy column
}

// Categorical reports whether column c enters a formula as a factor: forced
// by C(), a schema string column, or an extra column with any non-numeric
// value.
func Categorical(t Term, c *frame.Column) bool {
	if t.Categorical {
		return true
	}
	if sc, ok := ledger.LookupColumn(c.Name); ok {
		return sc.Kind == ledger.KindString
	}
	return !c.Numeric
}

// Build builds the fixed-effects design of f over the rows of fr, which
// must hold every term's column. Terms with one level (or a constant
// numeric column next to the intercept) are left out with a warning.
func Build(f *Formula, fr *frame.Frame, opt Options) (*Design, error) {
	d := &Design{Intercept: f.Intercept}
	for col := range opt.Ref {
		found := false
		for _, t := range f.Terms {
			found = found || t.Column == col
		}
		if !found {
			return nil, fmt.Errorf("--ref %s: %s is not a term of the formula %s", col, col, f)
		}
	}
	if f.Intercept {
		d.Names = append(d.Names, "(Intercept)")
	}
	n := fr.Len()
	fullCoded := false
	for _, t := range f.Terms {
		c := fr.Col(t.Column)
		if c == nil {
			panic("formula: frame lacks column " + t.Column)
		}
		dt := DesignTerm{Term: t, Categorical: Categorical(t, c), Levels: c.Levels}
		present := presentLevels(c)
		if dt.Categorical {
			if len(c.Levels) > MaxLevels {
				return nil, fmt.Errorf("term %s has %d levels (more than %d); is it an identifier?", t, len(c.Levels), MaxLevels)
			}
			ref := ""
			if r, ok := opt.Ref[t.Column]; ok {
				if !slices.Contains(c.Levels, r) {
					return nil, fmt.Errorf("--ref %s=%s: no such level; levels are %s%s", t.Column, r, listLevels(c.Levels), sameNumber(r, c.Levels))
				}
				ref = r
			} else if len(present) > 0 {
				ref = c.Levels[present[0]]
			}
			dt.Ref = ref
			if len(present) < 2 {
				d.Warnings = append(d.Warnings, fmt.Sprintf("term %s has a single level (%s) in the data; it is left out of the model", t, onlyLevel(c, present)))
			} else {
				// Without an intercept the first factor keeps all its
				// levels, as R does.
				full := !f.Intercept && !fullCoded
				fullCoded = fullCoded || full
				for _, li := range present {
					if c.Levels[li] == ref && !full {
						continue
					}
					dt.Cols = append(dt.Cols, len(d.Names))
					dt.codes = append(dt.codes, int32(li))
					d.Names = append(d.Names, t.Column+"["+c.Levels[li]+"]")
				}
			}
		} else {
			if !c.Numeric {
				return nil, fmt.Errorf("term %s: column %s is not numeric", t, t.Column)
			}
			if r, ok := opt.Ref[t.Column]; ok {
				// Ignoring it would fit another model than the one asked for.
				return nil, fmt.Errorf("--ref %s=%s: %s enters the formula as a number (its values are all numbers: %s), so it has no reference level; write C(%s) in the formula to make it a factor",
					t.Column, r, t.Column, listLevels(c.Levels), t.Column)
			}
			if len(present) < 2 && f.Intercept {
				d.Warnings = append(d.Warnings, fmt.Sprintf("term %s is constant (%s) in the data; it is left out of the model", t, onlyLevel(c, present)))
			} else {
				dt.Cols = append(dt.Cols, len(d.Names))
				d.Names = append(d.Names, t.Column)
			}
		}
		d.Terms = append(d.Terms, dt)
	}
	p := len(d.Names)
	if p == 0 {
		return nil, fmt.Errorf("the formula %s has no columns (no intercept and no terms)", f)
	}
	data := make([]float64, n*p)
	for i := 0; i < n; i++ {
		row := data[i*p : (i+1)*p]
		if f.Intercept {
			row[0] = 1
		}
	}
	for _, dt := range d.Terms {
		if len(dt.Cols) == 0 {
			continue
		}
		c := fr.Col(dt.Term.Column)
		if !dt.Categorical {
			j := dt.Cols[0]
			for i := 0; i < n; i++ {
				data[i*p+j] = c.Value(i)
			}
			continue
		}
		colOf := make(map[int32]int, len(dt.Cols))
		for k, j := range dt.Cols {
			colOf[dt.codes[k]] = j
		}
		for i := 0; i < n; i++ {
			if j, ok := colOf[c.Codes[i]]; ok {
				data[i*p+j] = 1
			}
		}
	}
	d.X = mat.NewDense(max(n, 1), p, nil)
	if n > 0 {
		d.X = mat.NewDense(n, p, data)
	}
	return d, nil
}

// presentLevels returns the indices of the levels that occur in rows with
// a positive count (patterns always have N ≥ 1), in level order.
func presentLevels(c *frame.Column) []int {
	seen := make([]bool, len(c.Levels))
	for _, code := range c.Codes {
		seen[code] = true
	}
	var out []int
	for i, s := range seen {
		if s {
			out = append(out, i)
		}
	}
	return out
}

func onlyLevel(c *frame.Column, present []int) string {
	if len(present) == 0 {
		return "no rows"
	}
	return c.Levels[present[0]]
}

// sameNumber suggests the level that is the same number as r ("3" for
// "03"), when there is one. Levels are text: "03" and "3" are different
// levels, so the reference is not matched numerically, only suggested.
func sameNumber(r string, levels []string) string {
	x, err := strconv.ParseFloat(r, 64)
	if err != nil {
		return ""
	}
	for _, l := range levels {
		if y, err := strconv.ParseFloat(l, 64); err == nil && x == y {
			return fmt.Sprintf(" (did you mean %s?)", l)
		}
	}
	return ""
}

func listLevels(levels []string) string {
	if len(levels) > 12 {
		return strings.Join(levels[:12], ", ") + fmt.Sprintf(", … (%d in all)", len(levels))
	}
	return strings.Join(levels, ", ")
}

// Select returns the design with the intercept (if any) and the columns of
// the given terms (indices into d.Terms), with the column names.
func (d *Design) Select(terms []int) (*mat.Dense, []string) {
	var cols []int
	if d.Intercept {
		cols = append(cols, 0)
	}
	for _, t := range terms {
		cols = append(cols, d.Terms[t].Cols...)
	}
	n, _ := d.X.Dims()
	x := mat.NewDense(n, max(len(cols), 1), nil)
	names := make([]string, len(cols))
	for k, j := range cols {
		names[k] = d.Names[j]
		for i := 0; i < n; i++ {
			x.Set(i, k, d.X.At(i, j))
		}
	}
	return x, names
}

// GroupIndex codes a grouping column for a random intercept: Index[i] is
// row i's level in Levels.
type GroupIndex struct {
	Name   string
	Index  []int
	Levels []string
}

// Groups codes the random-intercept grouping columns of f over fr, keeping
// only levels that occur. A grouping column with a single level is an
// error (its variance is not identifiable).
func Groups(f *Formula, fr *frame.Frame) ([]GroupIndex, error) {
	var out []GroupIndex
	for _, g := range f.Random {
		c := fr.Col(g)
		if c == nil {
			panic("formula: frame lacks column " + g)
		}
		present := presentLevels(c)
		if len(present) < 2 {
			return nil, fmt.Errorf("random intercept (1|%s): %s has %d level(s) in the data; a variance needs at least 2 groups", g, g, len(present))
		}
		newIdx := make([]int, len(c.Levels))
		gi := GroupIndex{Name: g}
		for k, li := range present {
			newIdx[li] = k
			gi.Levels = append(gi.Levels, c.Levels[li])
		}
		gi.Index = make([]int, len(c.Codes))
		for i, code := range c.Codes {
			gi.Index[i] = newIdx[code]
		}
		out = append(out, gi)
	}
	return out, nil
}

// Separated lists, for a factor-only design over a frame with outcomes,
// the categorical terms with a level whose rows are all events or all
// non-events: the cheap exact sufficient check for separation of methods
// §3.2. Each entry reads "col[level] (all 1)".
func Separated(d *Design, fr *frame.Frame) []string {
	var out []string
	for _, dt := range d.Terms {
		if !dt.Categorical || len(dt.Cols) == 0 {
			continue
		}
		c := fr.Col(dt.Term.Column)
		ev := make([]int64, len(c.Levels))
		nn := make([]int64, len(c.Levels))
		for i, code := range c.Codes {
			ev[code] += fr.Cells[i].Events
			nn[code] += fr.Cells[i].N
		}
		for li, lvl := range c.Levels {
			if nn[li] == 0 {
				continue
			}
			switch ev[li] {
			case 0:
				out = append(out, fmt.Sprintf("%s[%s] (all 0)", dt.Term.Column, lvl))
			case nn[li]:
				out = append(out, fmt.Sprintf("%s[%s] (all 1)", dt.Term.Column, lvl))
			}
		}
	}
	return out
}
