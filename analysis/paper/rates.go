package paper

import (
	"fmt"
	"slices"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// rateCol is one rate column: which episodes count (scope) and the 0/1
// outcome.
type rateCol struct {
	key   string
	scope func(row) bool
	y     func(row) float64
}

// rateFrame builds the frame that Rates reads for the tables' rates: text
// columns given per row (group, and the column of stacked rates), then the
// episode's template (the cluster), outcome y and weight w; the frame is
// the one frame.Builder.Add would build from such rows, codes interned
// without a row value per episode.
type rateFrame struct {
	b     *frame.Builder
	codes []int32
	tmpl  []int32 // template dictionary code → level code, −1 not yet
	n     int
	boot  *tableBoot // a bootstrap's cluster column other than template, or nil
}

// newRateFrame is the frame of lead's columns and template, and for a
// bootstrap (boot) that resamples another column, that column after
// template.
func newRateFrame(lead []string, weighted bool, boot *tableBoot) *rateFrame {
	cols := append(slices.Clone(lead), "template")
	if boot.extra() {
		cols = append(cols, boot.spec.Cluster)
	} else {
		boot = nil
	}
	spec := frame.Spec{Columns: cols, Outcome: "y", Collapse: true}
	if weighted {
		spec.Weight = "w"
	}
	return &rateFrame{b: frame.NewBuilder(spec), codes: make([]int32, len(cols)), boot: boot}
}

// add adds episode e with the lead columns' texts, outcome y and weight w.
func (f *rateFrame) add(e row, lead []string, y, w float64) {
	for j, s := range lead {
		f.codes[j] = f.b.Intern(j, ledger.KindString, s)
	}
	t := e.h.template
	k := max(0, int(t.Code(e.i))) // a column not read is "" in every row
	for len(f.tmpl) <= k {
		f.tmpl = append(f.tmpl, -1)
	}
	if f.tmpl[k] < 0 {
		f.tmpl[k] = f.b.Intern(len(lead), ledger.KindString, t.Value(e.i))
	}
	f.codes[len(lead)] = f.tmpl[k]
	if f.boot != nil {
		f.codes[len(lead)+1] = f.b.Intern(len(lead)+1, ledger.KindString, f.boot.col.Value(e.i))
	}
	f.b.AddCoded(f.codes, y, w)
	f.n++
}

// clusteredRates is how the tables and hypotheses compute rates: the
// engine's Rates over the episodes of eps in col's scope, grouped by
// groupOf (nil: one group), clustered on task templates with one ICC over
// every group (docs/methods.md, "Intervals on rates"), weighted by the episode weight (1 when
// not positive) if weighted. It returns the rows by group, the ICC and the
// engine's warnings; nothing in scope gives no rows and a NaN ICC.
func clusteredRates(eps []row, col rateCol, groupOf func(row) string, weighted bool) (map[string]analysis.RateRow, float64, []analysis.Warning) {
	return clusteredRatesBoot(eps, col, groupOf, weighted, nil)
}

// clusteredRatesBoot is clusteredRates with a bootstrap's intervals
// (RateRow.Boot) when boot is not nil.
func clusteredRatesBoot(eps []row, col rateCol, groupOf func(row) string, weighted bool, boot *tableBoot) (map[string]analysis.RateRow, float64, []analysis.Warning) {
	fr := newRateFrame([]string{"group"}, weighted, boot)
	lead := make([]string, 1)
	for _, e := range eps {
		if !col.scope(e) {
			continue
		}
		lead[0] = ""
		if groupOf != nil {
			lead[0] = groupOf(e)
		}
		fr.add(e, lead, col.y(e), episodeWeight(e, weighted))
	}
	out := map[string]analysis.RateRow{}
	if fr.n == 0 {
		return out, nan, nil
	}
	q := analysis.Query{Source: analysis.Built(fr.b.Frame())}
	if weighted {
		q.Weight = "w"
	}
	res, err := analysis.Rates(q, analysis.RatesSpec{Outcome: "y", By: []string{"group"}, Cluster: "template", Bootstrap: boot.rates()})
	if err != nil {
		// Frames built here always carry their columns; an error is a bug.
		panic("paper: clusteredRates: " + err.Error())
	}
	for _, r := range res.Rows {
		out[r.Levels[0]] = r
	}
	return out, res.ICC, res.Warnings
}

// episodeWeight is e's weight when weighted and positive, else 1.
func episodeWeight(e row, weighted bool) float64 {
	if w := e.Weight(); weighted && w > 0 {
		return w
	}
	return 1
}

// rateCellOf is a rate (percent) with its Wilson interval on the clustered
// n_eff; NaN without episodes.
func rateCellOf(r analysis.RateRow, ok bool) Cell {
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
	rateColumnBoot(t, eps, col, j, groupOf, groups, nil)
}

// rateColumnBoot is rateColumn with bootstrap intervals when boot is not
// nil.
func rateColumnBoot(t *Table, eps []row, col rateCol, j int, groupOf func(row) string, groups []string, boot *tableBoot) {
	rates, _, warns := clusteredRatesBoot(eps, col, groupOf, true, boot)
	for _, w := range warns {
		t.warnf("%s: %s", t.columnLabel(col.key), w)
	}
	for i, g := range groups {
		r, ok := rates[g]
		if !ok {
			t.warnf("%s / %s: no episodes", t.Rows[i].Labels[len(t.Rows[i].Labels)-1], t.columnLabel(col.key))
		}
		t.Rows[i].Cells[j] = boot.cell(rateCellOf(r, ok), r.Boot, 100)
	}
}

// meanCell is the mean of f over eps (NaN if empty); values for which f
// reports !ok are skipped.
func meanCell(eps []row, f func(row) (float64, bool), digits int) Cell {
	var m meanSum
	for _, e := range eps {
		m.add(e, f)
	}
	return m.cell(digits)
}

// meanSum is a running sum for meanCell.
type meanSum struct {
	s float64
	n int
}

func (m *meanSum) add(e row, f func(row) (float64, bool)) {
	if v, ok := f(e); ok {
		m.s += v
		m.n++
	}
}

// cell is the mean as meanCell makes it.
func (m meanSum) cell(digits int) Cell {
	c := numCell(Number, nan, digits)
	c.N = m.n
	if m.n > 0 {
		c.Value = m.s / float64(m.n)
	}
	return c
}

// meansBy is meanCell over each group of eps by key: the sums are taken
// in eps's order, as meanCell takes a group's rows, without a slice of
// rows per group.
func meansBy(eps []row, key func(row) string, f func(row) (float64, bool)) map[string]*meanSum {
	out := map[string]*meanSum{}
	for _, e := range eps {
		k := key(e)
		m := out[k]
		if m == nil {
			m = new(meanSum)
			out[k] = m
		}
		m.add(e, f)
	}
	return out
}

// meanOf is group k's mean cell of ms (NaN with N 0 for a group without
// rows).
func meanOf(ms map[string]*meanSum, k string, digits int) Cell {
	if m := ms[k]; m != nil {
		return m.cell(digits)
	}
	return meanSum{}.cell(digits)
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

// tableBoot is the bootstrap of a table's intervals (Options.Bootstrap):
// its spec, with the cluster column defaulting to template, and that
// column's view when it is another one.
type tableBoot struct {
	spec analysis.BootstrapSpec
	col  table.Strings
}

// newTableBoot returns the bootstrap of spec, nil without replicates.
func newTableBoot(d *table.Data, spec analysis.BootstrapSpec) (*tableBoot, error) {
	if spec.Replicates == 0 {
		return nil, nil
	}
	if spec.Cluster == "" {
		spec.Cluster = "template"
	}
	if spec.Interval == "" {
		spec.Interval = analysis.BootBCa
	}
	b := &tableBoot{spec: spec}
	if b.extra() {
		col, ok := d.Strings(spec.Cluster)
		if !ok {
			return nil, fmt.Errorf("bootstrap cluster %s: not a text column of the ledger", spec.Cluster)
		}
		b.col = col
	}
	return b, nil
}

// extra reports whether the bootstrap resamples a column other than
// template, which the rate frames then carry.
func (b *tableBoot) extra() bool { return b != nil && b.spec.Cluster != "template" }

// rates is the bootstrap of a rate frame (whose cluster column is
// template or the extra one), the zero spec without a bootstrap.
func (b *tableBoot) rates() analysis.BootstrapSpec {
	if b == nil {
		return analysis.BootstrapSpec{}
	}
	return b.spec
}

// cell is c with the bootstrap interval iv, times scale (100 for a
// proportion in a percent cell), in place of its own.
func (b *tableBoot) cell(c Cell, iv *analysis.BootInterval, scale float64) Cell {
	if b == nil || iv == nil {
		return c
	}
	lo, hi := iv.Bounds(b.spec.Interval)
	c.Lo, c.Hi = scale*lo, scale*hi
	return c
}

// what says what the intervals are, for a caption.
func (b *tableBoot) what() string {
	m := "BCa"
	if b.spec.Interval == analysis.BootPercentile {
		m = "percentile"
	}
	level := b.spec.Level
	if level == 0 {
		level = 0.95
	}
	return fmt.Sprintf("%g%% cluster-bootstrap %s intervals (%d replicates of %s clusters, seed %d)", 100*level, m, b.spec.Replicates, b.spec.Cluster, b.spec.Seed)
}
