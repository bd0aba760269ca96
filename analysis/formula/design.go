package formula

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
)

// MaxLevels bounds the levels of a categorical term; more is almost always
// an identifier used by mistake (C(episode_id)) and would make X huge.
const MaxLevels = 5000

// Bounds of a whole design, checked before anything of its size is
// allocated: its columns (a fit holds a columns × columns matrix, 200 MB
// at the bound), the combinations its terms enumerate before those no row
// reaches are dropped, and its cells (rows × columns, 2 GiB of float64 at
// the bound). Each term may be under MaxLevels while the design is not:
// 96 interactions of 70 × 70 levels asked for gigabytes.
const (
	MaxDesignColumns = 5000
	MaxDesignCombos  = 100_000
	MaxDesignCells   = 1 << 28
)

// Options controls Build.
type Options struct {
	// Ref maps a categorical column to its reference level (default: the
	// first level in sorted order).
	Ref map[string]string
}

// Design is a fixed-effects design matrix with named columns.
type Design struct {
	X         *mat.Dense
	Names     []string // column names of X: (Intercept), x, col[level], a[l]:b
	Intercept bool
	Terms     []DesignTerm // one per formula term, in formula order
	Warnings  []string     // the terms and columns left out of the model, and why
}

// DesignTerm maps a formula term to its columns of X. A term whose column
// is constant (one level) has no columns.
type DesignTerm struct {
	Term Term
	// Categorical, Ref and Levels describe a main effect's variable: a
	// factor, its reference level and its levels.
	Categorical bool
	Ref         string
	Levels      []string
	Cols        []int
	// parts[k] gives, for column Cols[k], each variable's level code (-1
	// for a numeric variable, which enters by its value).
	parts [][]int32
	cols  []*frame.Column
	// pos[k][code] is level code's index among variable k's columns (-1
	// when it has none, e.g. the reference level); numeric variables have
	// nil. stride[k] is variable k's step in the index of a combination
	// (the first variable varies fastest, as in product).
	pos    [][]int
	stride []int
}

// combo returns the index of row i's combination among the term's parts
// (before any is dropped) and its value (the product of the numeric
// variables), or -1 when no column of the term is non-zero for the row.
func (dt *DesignTerm) combo(i int) (int, float64) {
	idx, val := 0, 1.0
	for k, c := range dt.cols {
		if dt.pos[k] == nil {
			val *= c.Value(i)
			continue
		}
		q := dt.pos[k][c.Codes[i]]
		if q < 0 {
			return -1, 0
		}
		idx += q * dt.stride[k]
	}
	return idx, val
}

// Categorical reports whether variable v enters a formula as a factor:
// forced by C(), a schema string column, or an extra column with any
// non-numeric value.
func Categorical(v Factor, c *frame.Column) bool {
	if v.Categorical {
		return true
	}
	if sc, ok := ledger.LookupColumn(c.Name); ok {
		return sc.Kind == ledger.KindString
	}
	return !c.Numeric
}

// varInfo is a variable's coding over the frame.
type varInfo struct {
	col         *frame.Column
	categorical bool
	present     []int // level indices that occur
	ref         int   // reference level index (-1 without levels)
}

// Build builds the fixed-effects design of f over the rows of fr, which
// must hold every term's column, with R's model.matrix rules: treatment
// coding, a factor in a term coded by contrasts when the term without it
// is the intercept or is contained in an earlier term and by all its
// levels otherwise, the first factor of a model without an intercept coded
// by all its levels, and an interaction's columns with its first variable
// varying fastest. Main effects with one level (or a constant numeric
// column next to the intercept) and interaction columns that are zero in
// every row are left out with a warning.
func Build(f *Formula, fr *frame.Frame, opt Options) (*Design, error) {
	d := &Design{Intercept: f.Intercept}
	for _, col := range slices.Sorted(maps.Keys(opt.Ref)) {
		found := false
		for _, t := range f.Terms {
			found = found || t.Has(col)
		}
		if !found {
			return nil, fieldtext.New("Refs", "{Refs} %s: %s is not a term of the formula %s", col, col, f)
		}
	}
	if f.Intercept {
		d.Names = append(d.Names, "(Intercept)")
	}
	n := fr.Len()
	info := map[Factor]*varInfo{}
	for _, t := range f.Terms {
		for _, v := range t.Factors {
			if info[v] != nil {
				continue
			}
			c := fr.Col(v.Column)
			if c == nil {
				panic("formula: frame lacks column " + v.Column)
			}
			vi := &varInfo{col: c, categorical: Categorical(v, c), present: presentLevels(c), ref: -1}
			if vi.categorical {
				if len(c.Levels) > MaxLevels {
					return nil, fmt.Errorf("term %s has %d levels (more than %d); is it an identifier?", v, len(c.Levels), MaxLevels)
				}
				if r, ok := opt.Ref[v.Column]; ok {
					i := slices.Index(c.Levels, r)
					if i < 0 {
						return nil, fieldtext.New("Refs", "{Refs} %s=%s: no such level; levels are %s%s", v.Column, r, listLevels(c.Levels), sameNumber(r, c.Levels))
					}
					vi.ref = i
				} else if len(vi.present) > 0 {
					vi.ref = vi.present[0]
				}
			} else {
				if !c.Numeric {
					return nil, fmt.Errorf("term %s: column %s is not numeric", v, v.Column)
				}
				if r, ok := opt.Ref[v.Column]; ok {
					// Ignoring it would fit another model than the one asked for.
					return nil, fieldtext.New("Refs", "{Refs} %s=%s: %s enters the formula as a number (its values are all numbers: %s), so it has no reference level; write C(%s) in the formula to make it a factor",
						v.Column, r, v.Column, listLevels(c.Levels), v.Column)
				}
			}
			info[v] = vi
		}
	}
	fullCoded := false
	combos := 0 // the combinations of the terms so far
	for ti, t := range f.Terms {
		dt := DesignTerm{Term: t}
		for _, v := range t.Factors {
			dt.cols = append(dt.cols, info[v].col)
		}
		if t.Order() == 1 {
			vi := info[t.Factors[0]]
			dt.Categorical = vi.categorical
			dt.Levels = vi.col.Levels
			if vi.categorical && vi.ref >= 0 {
				dt.Ref = vi.col.Levels[vi.ref]
			}
			if vi.categorical && len(vi.present) < 2 {
				d.Warnings = append(d.Warnings, fmt.Sprintf("term %s has a single level (%s) in the data; it is left out of the model", t, onlyLevel(vi.col, vi.present)))
				d.Terms = append(d.Terms, dt)
				continue
			}
			if !vi.categorical && len(vi.present) < 2 && f.Intercept {
				d.Warnings = append(d.Warnings, fmt.Sprintf("term %s is constant (%s) in the data; it is left out of the model", t, onlyLevel(vi.col, vi.present)))
				d.Terms = append(d.Terms, dt)
				continue
			}
		}
		// Each variable's codes: contrasts drop the reference level.
		choices := make([][]int32, len(t.Factors))
		for k, v := range t.Factors {
			vi := info[v]
			if !vi.categorical {
				choices[k] = []int32{-1}
				continue
			}
			full := !contrasted(f.Terms[:ti], t, k)
			if !f.Intercept && !fullCoded && len(vi.present) >= 2 {
				// Without an intercept the first factor keeps all its
				// levels, as R does.
				full, fullCoded = true, true
			}
			for _, li := range vi.present {
				if li == vi.ref && !full {
					continue
				}
				choices[k] = append(choices[k], int32(li))
			}
		}
		cols := 1
		for _, ch := range choices {
			cols *= max(len(ch), 1)
			if cols > MaxLevels {
				return nil, fmt.Errorf("term %s has more than %d columns; is one of its factors an identifier?", t, MaxLevels)
			}
		}
		if combos += cols; combos > MaxDesignCombos {
			return nil, fmt.Errorf("the design would have more than %d columns (before dropping the interactions no row has) by term %s; fit fewer or smaller interactions", MaxDesignCombos, t)
		}
		dt.parts = product(choices)
		dt.pos, dt.stride = make([][]int, len(choices)), make([]int, len(choices))
		stride := 1
		for k, ch := range choices {
			dt.stride[k] = stride
			stride *= len(ch)
			if ch[0] < 0 {
				continue
			}
			dt.pos[k] = make([]int, len(dt.cols[k].Levels))
			for l := range dt.pos[k] {
				dt.pos[k][l] = -1
			}
			for q, code := range ch {
				dt.pos[k][code] = q
			}
		}
		d.Terms = append(d.Terms, dt)
	}
	// Names and columns; interaction columns that no row reaches are
	// dropped.
	colOf := make([][]int, len(d.Terms)) // term → combination → column of X (-1: none)
	for ti := range d.Terms {
		dt := &d.Terms[ti]
		colOf[ti] = make([]int, len(dt.parts))
		seen := make([]bool, len(dt.parts))
		if dt.Term.Order() > 1 {
			for i := 0; i < n; i++ {
				if q, v := dt.combo(i); q >= 0 && v != 0 {
					seen[q] = true
				}
			}
		}
		var keep [][]int32
		for q, combo := range dt.parts {
			colOf[ti][q] = -1
			if dt.Term.Order() > 1 && !seen[q] {
				d.Warnings = append(d.Warnings, fmt.Sprintf("column %s is zero in every row (no row has that combination); it is left out of the model", partName(dt.Term, dt.cols, combo)))
				continue
			}
			keep = append(keep, combo)
			colOf[ti][q] = len(d.Names)
			dt.Cols = append(dt.Cols, len(d.Names))
			d.Names = append(d.Names, partName(dt.Term, dt.cols, combo))
		}
		dt.parts = keep
	}
	p := len(d.Names)
	if p == 0 {
		return nil, fmt.Errorf("the formula %s has no columns (no intercept and no terms)", f)
	}
	if p > MaxDesignColumns {
		return nil, fmt.Errorf("the design would have %d columns (more than %d); fit fewer or smaller interactions", p, MaxDesignColumns)
	}
	if float64(n)*float64(p) > MaxDesignCells {
		return nil, fmt.Errorf("the design would have %d rows × %d columns (%.1f GB, more than %d cells); use factors the rows can be collapsed on, fewer columns or fewer rows", n, p, float64(n)*float64(p)*8/1e9, MaxDesignCells)
	}
	data := make([]float64, n*p)
	if f.Intercept {
		for i := 0; i < n; i++ {
			data[i*p] = 1
		}
	}
	for ti := range d.Terms {
		dt := &d.Terms[ti]
		if len(dt.Cols) == 0 {
			continue
		}
		for i := 0; i < n; i++ {
			if q, v := dt.combo(i); q >= 0 {
				if j := colOf[ti][q]; j >= 0 {
					data[i*p+j] = v
				}
			}
		}
	}
	d.X = mat.NewDense(max(n, 1), p, nil)
	if n > 0 {
		d.X = mat.NewDense(n, p, data)
	}
	return d, nil
}

// contrasted is R's TermCode: variable k of term t is coded by contrasts
// when t without it is empty or contained in an earlier term.
func contrasted(earlier []Term, t Term, k int) bool {
	if t.Order() == 1 {
		return true
	}
	var rest []Factor
	for i, v := range t.Factors {
		if i != k {
			rest = append(rest, v)
		}
	}
	for _, e := range earlier {
		all := true
		for _, v := range rest {
			all = all && slices.Contains(e.Factors, v)
		}
		if all {
			return true
		}
	}
	return false
}

// product lists the combinations of choices with the first varying
// fastest.
func product(choices [][]int32) [][]int32 {
	out := [][]int32{{}}
	for _, ch := range choices {
		var next [][]int32
		for _, c := range ch {
			for _, prev := range out {
				next = append(next, append(slices.Clone(prev), c))
			}
		}
		out = next
	}
	return out
}

func partName(t Term, cols []*frame.Column, combo []int32) string {
	s := make([]string, len(combo))
	for k, code := range combo {
		if code < 0 {
			s[k] = t.Factors[k].Column
		} else {
			s[k] = t.Factors[k].Column + "[" + cols[k].Levels[code] + "]"
		}
	}
	return strings.Join(s, ":")
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

// GroupIndex codes a grouping factor of a random term: Index[i] is row
// i's level in Levels.
type GroupIndex struct {
	Name   string // the grouping factor, g or a:b
	Index  []int
	Levels []string
}

// Group codes the grouping factor of r over fr, keeping only levels (or
// combinations of levels) that occur, in the order of their codes. A
// grouping factor with a single level is an error (its variance is not
// identifiable).
func Group(r RandomTerm, fr *frame.Frame) (GroupIndex, error) {
	n := fr.Len()
	cols := make([]*frame.Column, len(r.Group))
	for k, g := range r.Group {
		if cols[k] = fr.Col(g); cols[k] == nil {
			panic("formula: frame lacks column " + g)
		}
	}
	gi := GroupIndex{Name: r.GroupName(), Index: make([]int, n)}
	if len(cols) == 1 {
		c := cols[0]
		present := presentLevels(c)
		if len(present) < 2 {
			return gi, fmt.Errorf("random term %s: %s has %d level(s) in the data (%s); a variance needs at least 2 groups", r, gi.Name, len(present), onlyLevel(c, present))
		}
		newIdx := make([]int, len(c.Levels))
		for k, li := range present {
			newIdx[li] = k
			gi.Levels = append(gi.Levels, c.Levels[li])
		}
		for i, code := range c.Codes {
			gi.Index[i] = newIdx[code]
		}
		return gi, nil
	}
	keys := make([][]int32, n)
	for i := range keys {
		keys[i] = make([]int32, len(cols))
		for k, c := range cols {
			keys[i][k] = c.Codes[i]
		}
	}
	distinct := slices.Clone(keys)
	slices.SortFunc(distinct, slices.Compare[[]int32])
	distinct = slices.CompactFunc(distinct, slices.Equal[[]int32])
	if len(distinct) < 2 {
		lvl := "no rows"
		if len(distinct) == 1 {
			lvl = "only " + comboName(cols, distinct[0])
		}
		return gi, fmt.Errorf("random term %s: %s has %d level(s) in the data (%s); a variance needs at least 2 groups", r, gi.Name, len(distinct), lvl)
	}
	for _, k := range distinct {
		gi.Levels = append(gi.Levels, comboName(cols, k))
	}
	for i, k := range keys {
		gi.Index[i], _ = slices.BinarySearchFunc(distinct, k, slices.Compare[[]int32])
	}
	return gi, nil
}

func comboName(cols []*frame.Column, k []int32) string {
	s := make([]string, len(k))
	for j, c := range cols {
		s[j] = c.Levels[k[j]]
	}
	return strings.Join(s, ":")
}

// Groups codes the grouping factors of f's random terms over fr, in
// order (Group).
func Groups(f *Formula, fr *frame.Frame) ([]GroupIndex, error) {
	var out []GroupIndex
	for _, r := range f.Random {
		g, err := Group(r, fr)
		if err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, nil
}

// RandomDesign builds the model matrix of r's left side (its intercept
// and slopes, coded as fixed terms are) over fr: the columns of the
// term's block of Z before they are multiplied out by the group
// indicators. A slope with no column in the data (a factor with a single
// level, a constant number) is an error naming it.
func RandomDesign(r RandomTerm, fr *frame.Frame, opt Options) (*Design, error) {
	for _, t := range r.Slopes {
		for _, v := range t.Factors {
			c := fr.Col(v.Column)
			if c == nil {
				panic("formula: frame lacks column " + v.Column)
			}
			if present := presentLevels(c); len(present) < 2 {
				return nil, fmt.Errorf("random term %s: the slope %s has a single value in the data (%s); a random slope needs it to vary", r, t, onlyLevel(c, present))
			}
		}
	}
	sub := &Formula{Intercept: r.Intercept, Terms: r.Slopes}
	d, err := Build(sub, fr, Options{Ref: refsFor(opt.Ref, r.Slopes)})
	if err != nil {
		return nil, fmt.Errorf("random term %s: %w", r, err)
	}
	return d, nil
}

// refsFor keeps the reference levels of the columns of terms.
func refsFor(refs map[string]string, terms []Term) map[string]string {
	out := map[string]string{}
	for c, l := range refs {
		for _, t := range terms {
			if t.Has(c) {
				out[c] = l
			}
		}
	}
	return out
}

// Offset evaluates the sum of f's offsets on each frame row (nil when
// f has none). A value that is not finite is an error naming the offset.
func Offset(f *Formula, fr *frame.Frame) ([]float64, error) {
	if len(f.Offsets) == 0 {
		return nil, nil
	}
	out := make([]float64, fr.Len())
	for _, e := range f.Offsets {
		for i := range out {
			v := e.Eval(rowValue(fr, i))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("offset(%s) is %v where %s", e, v, rowText(fr, e.Columns(), i))
			}
			out[i] += v
		}
	}
	return out, nil
}

func rowValue(fr *frame.Frame, i int) func(string) float64 {
	return func(c string) float64 {
		col := fr.Col(c)
		if col == nil {
			panic("formula: frame lacks column " + c)
		}
		return col.Value(i)
	}
}

func rowText(fr *frame.Frame, cols []string, i int) string {
	s := make([]string, len(cols))
	for k, c := range cols {
		s[k] = c + " = " + fr.Col(c).Level(i)
	}
	return strings.Join(s, ", ")
}

// MaxCount is the largest number of cbind trials: 2^53, up to which a
// double holds every whole number.
const MaxCount = 1 << 53

// Trials evaluates a cbind response on each frame row: the successes k and
// the trials k + failures. A negative or non-finite count, or trials
// beyond MaxCount, is an error naming the side and the row's values.
func Trials(f *Formula, fr *frame.Frame) (k, n []float64, err error) {
	cb := f.Cbind
	k, n = make([]float64, fr.Len()), make([]float64, fr.Len())
	for i := range k {
		get := rowValue(fr, i)
		s, m := cb.Successes.Eval(get), cb.Failures.Eval(get)
		for _, side := range []struct {
			name string
			e    *Expr
			v    float64
		}{{"successes", cb.Successes, s}, {"failures", cb.Failures, m}} {
			if !(side.v >= 0) || math.IsInf(side.v, 0) {
				return nil, nil, fmt.Errorf("cbind %s %s = %v is not a count ≥ 0 where %s", side.name, side.e, side.v, rowText(fr, f.ResponseColumns(), i))
			}
		}
		if s+m > MaxCount {
			return nil, nil, fmt.Errorf("cbind(%s, %s) holds %v trials where %s, beyond 2^53 (%.0f): past it a double does not hold every whole number, so the counts and their likelihood would not be exact",
				cb.Successes, cb.Failures, s+m, rowText(fr, f.ResponseColumns(), i), float64(MaxCount))
		}
		k[i], n[i] = s, s+m
	}
	return k, n, nil
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
		col := dt.Term.Factors[0].Column
		c := fr.Col(col)
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
				out = append(out, fmt.Sprintf("%s[%s] (all 0)", col, lvl))
			case nn[li]:
				out = append(out, fmt.Sprintf("%s[%s] (all 1)", col, lvl))
			}
		}
	}
	return out
}
