package analysis

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Query names the episodes an analysis reads: a source (ledger files,
// episodes or rows held in memory, a held Data, or a frame the caller
// built), a filter and a weight. Rates, Paired, TOST, Model, Shapley and
// Means each take a Query and their own spec.
type Query struct {
	// Source is where the episodes come from: ledger files
	// (table.Files), episodes or rows held in memory (table.Episodes,
	// table.Rows), the rows of a Data (table.Held), or a frame the caller
	// built (Built).
	Source table.Source
	Where  string // filter expression (formula.ParseWhere); "" keeps all
	Weight string // weight column; "" = unweighted
	// rowPath turns the column batches off (tests compare the two paths).
	rowPath bool
	// extra are columns a model's frame keeps beyond its formula's: a
	// contrast's By, a bootstrap's cluster (see fitted).
	extra []string
}

// schemaKind reports the kind of a schema column.
func schemaKind(name string) (ledger.Kind, bool) {
	c, ok := ledger.LookupColumn(name)
	return c.Kind, ok
}

// scan streams the query's source through Where: fn gets each batch and
// the rows of it that Where keeps, in row order. Only cols (each once,
// first: a batch's columns are cols and then the other columns Where
// names) and the columns Where names are read; checked columns are
// validated, not handed out (see source.scan). Errors name the file, the
// row or episode, or an unknown column with close matches; a ledger
// without episodes, or with none kept, is an error. It returns the number
// of episodes read.
func (q *Query) scan(cols, checked []string, fn func(b *table.Batch, kept []int32) error) (read int64, err error) {
	src, err := q.source()
	if err != nil {
		return 0, err
	}
	where, err := formula.ParseWhere(q.Where)
	if err != nil {
		return 0, fieldErr("Where", "{Where}: %v", err)
	}
	if err := where.Check(schemaKind); err != nil {
		return 0, fieldErr("Where", "{Where}: %v", err)
	}
	read, kept, err := table.Filter(src, where, cols, checked, fn)
	if err != nil {
		return read, err
	}
	if read == 0 {
		return read, fmt.Errorf("%s: the ledger has no episodes", src.Name())
	}
	if kept == 0 {
		return read, q.noMatch(src, where, read)
	}
	return read, nil
}

// scanRows is scan for a consumer of rows: add gets each row kept and its
// index among all read; its errors are placed at the row.
func (q *Query) scanRows(cols []string, add func(r frame.Row, i int64) error) (read int64, err error) {
	return q.scan(neededColumns(cols), nil, func(b *table.Batch, kept []int32) error {
		for _, r := range kept {
			if err := add(b.Row(int(r)), b.First+int64(r)); err != nil {
				return b.Place(int(r), err)
			}
		}
		return nil
	})
}

// noMatch is the error for a --where that keeps none of the read
// episodes. When it compares a column only with levels (==, in) that are
// not values of that column, it says so, with some of the values there
// are, and, when they are all numbers, how to compare them as numbers: a
// level of a text column that looks numeric ("03" where the ledger has
// 3) would otherwise pass for an empty selection. A column one of whose
// levels is there is not named (experiment in ("E1", "E1s") on a ledger
// of E1 did not select nothing because of E1s). The values are read
// here, after the scan, only on this error path.
func (q *Query) noMatch(src table.Source, where *formula.Where, read int64) error {
	noMatch := func(more string) error {
		return fieldtext.New("Where", "%s: no episode matches {Where} %q (%d read)%s", src.Name(), q.Where, read, more)
	}
	var levels []formula.Level
	var cols []string
	for _, l := range where.Levels() {
		if !slices.Contains(levels, l) {
			levels = append(levels, l)
		}
		if !slices.Contains(cols, l.Column) {
			cols = append(cols, l.Column)
		}
	}
	if len(levels) == 0 {
		return noMatch("")
	}
	const most = 1000 // distinct values kept per column: enough to list a few and to tell numbers
	values := make([]map[string]bool, len(cols))
	for j := range values {
		values[j] = map[string]bool{}
	}
	var seen []bool
	err := src.Scan(cols, nil, func(b *table.Batch) error {
		if b.Vec != nil {
			// A text column's values are its dictionary's codes in use: the
			// same set, without a string per row.
			for j := range cols {
				v := &b.Vec.Cols[j]
				if v.Dict == nil || v.Valid != nil {
					continue
				}
				seen = slices.Grow(seen[:0], len(v.Dict))[:len(v.Dict)]
				clear(seen)
				for _, k := range v.Codes[:b.N] {
					seen[k] = true
				}
				for k, ok := range seen {
					if ok && len(values[j]) < most {
						values[j][v.Dict[k]] = true
					}
				}
			}
		}
		for i := range b.N {
			r := b.Row(i)
			for j, c := range cols {
				if b.Vec != nil && b.Vec.Cols[j].Dict != nil && b.Vec.Cols[j].Valid == nil {
					continue // counted on codes
				}
				if v, ok := r.Get(c); ok && !v.Null && len(values[j]) < most {
					values[j][v.String()] = true
				}
			}
		}
		return nil
	})
	if err != nil {
		return noMatch("") // the scan read these rows: not expected
	}
	for j, c := range cols {
		have := values[j]
		var missing, named []string
		found := false
		for _, l := range levels {
			if l.Column == c {
				found = found || have[l.Value]
				named = append(named, l.Value)
				missing = append(missing, strconv.Quote(l.Value))
			}
		}
		if found || len(have) == 0 || len(have) >= most {
			continue // there, or not read, or too many values to tell
		}
		what := "no value " + missing[0]
		if len(missing) > 1 {
			what = "none of the values " + strings.Join(missing, ", ")
		}
		return noMatch(fmt.Sprintf(": column %s has %s (%s)", c, what, valuesHint(c, named, have)))
	}
	return noMatch("")
}

// valuesHint lists a few of the values a column has, sorted (numerically
// when they are all numbers), and, when they are numbers and one of them
// is the level's number ("3" for "03"), how to compare the level as one.
func valuesHint(col string, levels []string, have map[string]bool) string {
	vals := slices.Collect(maps.Keys(have))
	numeric := true
	for _, v := range vals {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			numeric = false
			break
		}
	}
	if numeric {
		slices.SortFunc(vals, func(a, b string) int {
			x, _ := strconv.ParseFloat(a, 64)
			y, _ := strconv.ParseFloat(b, 64)
			return cmp.Compare(x, y)
		})
	} else {
		slices.Sort(vals)
	}
	const shown = 8
	list := strings.Join(vals[:min(len(vals), shown)], ", ")
	if len(vals) > shown {
		list += fmt.Sprintf(", … (%d values)", len(vals))
	}
	if !numeric {
		return "values: " + list
	}
	hint := "values, all numbers: " + list
	for _, l := range levels {
		x, err := strconv.ParseFloat(l, 64)
		if err != nil {
			continue
		}
		for _, v := range vals {
			if y, _ := strconv.ParseFloat(v, 64); y == x {
				return hint + fmt.Sprintf("; to compare as numbers, write %s == %s without quotes", col, strconv.FormatFloat(x, 'g', -1, 64))
			}
		}
	}
	return hint
}

// neededColumns drops empty and repeated names, keeping the first order.
func neededColumns(need []string) []string {
	var cols []string
	for _, c := range need {
		if c != "" && !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	return cols
}

// name is how errors name the query's input.
func (q *Query) name() string {
	if src, err := q.source(); err == nil {
		return src.Name()
	}
	return "the episodes"
}

// hasColumn reports whether the query's source has column col.
func (q *Query) hasColumn(col string) (bool, error) {
	src, err := q.source()
	if err != nil {
		return false, err
	}
	return src.HasColumn(col)
}
