package analysis

import (
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

// rateCol is one rate column: which episodes count (scope) and the 0/1
// outcome.
type rateCol struct {
	key   string
	scope func(row) bool
	y     func(row) float64
}

// rateRow is an episode in one of the tables' rates, with its group, its
// 0/1 outcome and its weight as columns for the engine's Rates.
type rateRow struct {
	ep    row
	group string
	y, w  float64
}

func (r rateRow) Get(name string) (ledger.Value, bool) {
	switch name {
	case "group":
		return ledger.Value{Kind: ledger.KindString, Str: r.group}, true
	case "y":
		return ledger.Value{Kind: ledger.KindBool, Bool: r.y == 1}, true
	case "w":
		return ledger.Value{Kind: ledger.KindFloat, Num: r.w}, true
	}
	return r.ep.Get(name)
}

// clusteredRates is how the tables and hypotheses compute rates: the
// engine's Rates over the episodes of eps in col's scope, grouped by
// groupOf (nil: one group), clustered on task templates with one ICC over
// every group (paper-design §2.4), weighted by the episode weight (1 when
// not positive) if weighted. It returns the rows by group, the ICC and the
// engine's warnings; nothing in scope gives no rows and a NaN ICC.
func clusteredRates(eps []row, col rateCol, groupOf func(row) string, weighted bool) (map[string]RateRow, float64, []string) {
	// The rows live in one slice and the engine gets pointers into it:
	// boxing each rateRow in an interface would allocate once per episode.
	var rrs []rateRow
	for _, e := range eps {
		if !col.scope(e) {
			continue
		}
		if rrs == nil {
			rrs = make([]rateRow, 0, len(eps))
		}
		r := rateRow{ep: e, y: col.y(e), w: 1}
		if groupOf != nil {
			r.group = groupOf(e)
		}
		if weighted && e.Weight() > 0 {
			r.w = e.Weight()
		}
		rrs = append(rrs, r)
	}
	rows := make([]frame.Row, len(rrs))
	for i := range rrs {
		rows[i] = &rrs[i]
	}
	out := map[string]RateRow{}
	if len(rows) == 0 {
		return out, nan, nil
	}
	q := Query{Rows: rows}
	if weighted {
		q.Weight = "w"
	}
	res, err := Rates(q, RatesSpec{Outcome: "y", By: []string{"group"}, Cluster: "template"})
	if err != nil {
		// Rows built here always carry their columns; an error is a bug.
		panic("analysis: clusteredRates: " + err.Error())
	}
	for _, r := range res.Rows {
		out[r.Levels[0]] = r
	}
	return out, res.ICC, res.Warnings
}

// rateCellOf is a rate (percent) with its Wilson interval on the clustered
// n_eff; NaN without episodes.
func rateCellOf(r RateRow, ok bool) Cell {
	c := Cell{Kind: Percent, Value: nan, Lo: nan, Hi: nan, NEff: nan, Digits: 0}
	if ok {
		c.Value, c.Lo, c.Hi, c.NEff, c.N = 100*r.P, 100*r.Lo, 100*r.Hi, r.NEff, int(r.N)
	}
	return c
}

// rateColumn fills column j of rows (one per group value) with col's rate,
// pooling the ICC over every group of eps; the engine's warnings (an
// undefined ICC, a tiny n_eff) go under the table.
func rateColumn(t *Table, eps []row, col rateCol, j int, groupOf func(row) string, groups []string) {
	rates, _, warns := clusteredRates(eps, col, groupOf, true)
	for _, w := range warns {
		t.warnf("%s: %s", t.columnLabel(col.key), w)
	}
	for i, g := range groups {
		r, ok := rates[g]
		if !ok {
			t.warnf("%s / %s: no episodes", t.Rows[i].Labels[len(t.Rows[i].Labels)-1], t.columnLabel(col.key))
		}
		t.Rows[i].Cells[j] = rateCellOf(r, ok)
	}
}

// meanCell is the mean of f over eps (NaN if empty); values for which f
// reports !ok are skipped.
func meanCell(eps []row, f func(row) (float64, bool), digits int) Cell {
	var s float64
	var n int
	for _, e := range eps {
		if v, ok := f(e); ok {
			s += v
			n++
		}
	}
	c := numCell(Number, nan, digits)
	c.N = n
	if n > 0 {
		c.Value = s / float64(n)
	}
	return c
}

// newRows makes rows with labels and nc empty cells each.
func newRows(keys []string, labels [][]string, nc int) []Row {
	rows := make([]Row, len(keys))
	for i := range keys {
		cells := make([]Cell, nc)
		for j := range cells {
			cells[j] = numCell(Number, nan, 0)
		}
		rows[i] = Row{Key: keys[i], Labels: labels[i], Cells: cells}
	}
	return rows
}

// oneLabel wraps each key as a single label.
func oneLabel(keys []string) [][]string {
	out := make([][]string, len(keys))
	for i, k := range keys {
		out[i] = []string{k}
	}
	return out
}
