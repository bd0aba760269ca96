package analysis

import (
	"fmt"
	"math"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// rateCol is one rate column: which episodes count (scope) and the 0/1
// outcome.
type rateCol struct {
	key   string
	scope func(*ledger.Episode) bool
	y     func(*ledger.Episode) float64
}

// pooledICC estimates ρ̂ over template clusters for the episodes of eps
// in col's scope (pooled over every group), truncated at 0.
func pooledICC(eps []*ledger.Episode, col rateCol) (rho float64, n int) {
	ids := map[string]int{}
	var y []float64
	var cl []int
	for _, e := range eps {
		if !col.scope(e) {
			continue
		}
		id, ok := ids[e.Template]
		if !ok {
			id = len(ids)
			ids[e.Template] = id
		}
		y = append(y, col.y(e))
		cl = append(cl, id)
	}
	// A constant outcome has no ICC (NaN, as in Rates): n_eff falls back
	// to Kish's.
	return stats.ICCANOVA(y, cl), len(y)
}

// rateCell is the rate (percent) of col's outcome over eps in col's scope,
// with a Wilson interval on the clustered n_eff for the given ρ̂ (NaN ρ̂
// means no clustering correction could be estimated: Kish's n is used).
func rateCell(eps []*ledger.Episode, col rateCol, rho float64) Cell {
	var n, sw, sw2, swy float64
	tmpl := map[string]bool{}
	for _, e := range eps {
		if !col.scope(e) {
			continue
		}
		w := e.Weight
		if !(w > 0) {
			w = 1
		}
		n++
		sw += w
		sw2 += w * w
		swy += w * col.y(e)
		tmpl[e.Template] = true
	}
	c := Cell{Kind: Percent, Value: nan, Lo: nan, Hi: nan, NEff: nan, N: int(n), Digits: 0}
	if n == 0 {
		return c
	}
	p := swy / sw
	neff := designNEff(n, sw, sw2, len(tmpl), rho)
	lo, hi := stats.Wilson(p, neff, z95)
	c.Value, c.Lo, c.Hi, c.NEff = 100*p, 100*lo, 100*hi, neff
	return c
}

// rateColumn fills column j of rows (one per group value) with col's rate,
// pooling the ICC over every group of eps.
func rateColumn(t *Table, eps []*ledger.Episode, col rateCol, j int, groupOf func(*ledger.Episode) string, groups []string) {
	rho, n := pooledICC(eps, col)
	if n > 0 && math.IsNaN(rho) {
		t.warnf("%s: intraclass correlation undefined (fewer than two task templates, one episode per template, or a constant outcome); intervals use Kish's n_eff", t.columnLabel(col.key))
	}
	by := map[string][]*ledger.Episode{}
	for _, e := range eps {
		if col.scope(e) {
			g := groupOf(e)
			by[g] = append(by[g], e)
		}
	}
	for i, g := range groups {
		c := rateCell(by[g], col, rho)
		if c.N == 0 {
			t.warnf("%s / %s: no episodes", t.Rows[i].Labels[len(t.Rows[i].Labels)-1], t.columnLabel(col.key))
		}
		t.Rows[i].Cells[j] = c
	}
}

// meanCell is the mean of f over eps (NaN if empty); values for which f
// reports !ok are skipped.
func meanCell(eps []*ledger.Episode, f func(*ledger.Episode) (float64, bool), digits int) Cell {
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

// pct formats a percentage for result strings.
func pct(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.0f%%", v)
}
