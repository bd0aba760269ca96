package paper

import (
	"slices"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// Figures is the data behind the paper's figures that no table already
// holds (Figure 4 plots Table 6 and Figure 5 plots Table 7). Each is a
// Table named "figureN"; package plots draws them and package report
// writes them as data.
type Figures struct {
	Dup      *Table // Figure 2: duplicate rate by model × fault mode (E1)
	Class    *Table // Figure 3: duplicate rate by model × contract class (E1, E1s)
	Recovery *Table // Figure 6: the first move after the focal timeout by world × model (E1)
}

// figureColumns are the columns the figure data read; Figure 6 reads
// first_move as well, which ledgers graded before it was added lack.
var (
	figureColumns  = []string{"experiment", "model", "template", "weight", "fault_mode", "fault_fired", "duplicated", "write_class"}
	figure6Columns = []string{"first_move"}
)

// FigureColumns returns every episode column the figure data read, so a
// reader may decode only these (with Columns' for the tables).
func FigureColumns() []string { return slices.Concat(figureColumns, figure6Columns) }

// BuildFigures computes the figure data. A MissingColumnsError names the
// columns the data lacks: with the figures' own, none is built; with
// Figure 6's alone, the others are, and the error says so.
func BuildFigures(d *table.Data) (*Figures, error) {
	if err := require(d, "The figures", figureColumns); err != nil {
		return nil, err
	}
	f := &Figures{Dup: Figure2(d), Class: Figure3(d)}
	if err := require(d, "Figure 6", figure6Columns); err != nil {
		return f, err
	}
	f.Recovery = Figure6(d)
	return f, nil
}

// Tables returns the figure tables in figure order, those built (none
// for nil f; Figure 6 is missing from a ledger without first_move).
func (f *Figures) Tables() []*Table {
	if f == nil {
		return nil
	}
	var out []*Table
	for _, t := range []*Table{f.Dup, f.Class, f.Recovery} {
		if t != nil {
			out = append(out, t)
		}
	}
	return out
}

// Figure2 is the duplicate rate (%) by model (rows) and fault mode
// (columns) in E1 (E1s pooled into partial_batch), with the clustered
// Wilson intervals of Table 3; the fault modes follow the paper's grouping
// (timeout, HTTP 500, batch, success).
func Figure2(d *table.Data) *Table {
	h := hold(d)
	eps := h.filter(expIn("E1", "E1s"))
	t := &Table{Name: "figure2", Number: 2, Title: "Duplicate rate by model and fault mode (E1)",
		Caption:     "Duplicate side-effect rate (%) by model and fault mode (minimal scaffold, vanilla prompt, E1; partial batch includes E1s).",
		LabelHeader: []string{"Model"}}
	var modes []string
	for _, m := range ledger.Faults() {
		if m.Control() {
			continue
		}
		for _, e := range eps {
			if e.FaultMode() == m.Name {
				modes = append(modes, m.Name)
				t.Columns = append(t.Columns, Column{Key: m.Name, Label: m.Name, Group: m.Group, ShowCI: true})
				break
			}
		}
	}
	models := ordered(eps, modelOf, paperModels)
	t.Rows = newRows(models, oneLabel(models), len(t.Columns))
	for j, m := range modes {
		mode := m
		rateColumn(t, eps, rateCol{mode, func(e row) bool { return e.FaultFired() && e.FaultMode() == mode }, dupOf}, j, modelOf, models)
	}
	return t
}

// Figure3 is the duplicate rate (%) under committed faults (lost
// acknowledgement, misleading 500, late commit, partial batch) by contract
// class (columns) and model (rows), E1 and E1s, with intervals; the ICC is
// pooled over models per class.
func Figure3(d *table.Data) *Table {
	h := hold(d)
	eps := h.filter(func(e row) bool {
		return in(e.Experiment(), "E1", "E1s") && e.FaultFired() && in(e.FaultMode(), committedModes...)
	})
	t := &Table{Name: "figure3", Number: 3, Title: "Duplicate rate by contract class and model (E1, E1s)",
		Caption:     "Duplicate rate (%) under committed faults (lost acknowledgement, misleading 500, late commit, partial batch) by tool-contract class and model (E1 and E1s, with 95% intervals).",
		LabelHeader: []string{"Model"}}
	classes := ordered(eps, func(e row) string { return e.WriteClass() }, ledger.WriteClasses.Values)
	models := ordered(eps, modelOf, paperModels)
	for _, c := range classes {
		t.Columns = append(t.Columns, Column{Key: c, Label: c, ShowCI: true})
	}
	t.Rows = newRows(models, oneLabel(models), len(t.Columns))
	for j, c := range classes {
		cl := c
		rateColumn(t, eps, rateCol{cl, func(e row) bool { return e.WriteClass() == cl }, dupOf}, j, modelOf, models)
	}
	return t
}

// Figure6 is the distribution (%) of the agent's first move after the
// focal timeout (first_move: read back, wait, re-issue, …), by model and
// hidden world (not executed: timeout_pre; committed: timeout_post; late:
// timeout_late), E1. The first move is what the agent does before the
// worlds can differ: the paper's caption holds the not-executed and
// committed panels observation-equivalent, with distributions
// statistically indistinguishable for every model. Column "p" tests it:
// per model, Fisher's exact test (Freeman–Halton; stats.FisherExact) of
// the first moves' counts in the world against those in the not-executed
// world, unadjusted. The whole recovery path (the recovery column) is not
// drawn: it follows the read-back's answer, which differs between worlds
// by design.
func Figure6(d *table.Data) *Table {
	h := hold(d)
	worlds := figure6Worlds()
	var modes []string
	for _, w := range worlds {
		modes = append(modes, w.Name)
	}
	eps := h.filter(func(e row) bool {
		return e.Experiment() == "E1" && e.FaultFired() && in(e.FaultMode(), modes...)
	})
	worlds = shown(worlds, eps)
	t := &Table{Name: "figure6", Number: 6, Title: "First move after the focal timeout (E1)",
		Caption:     "The agent's first move after the focal timeout, before the hidden worlds can differ, by model and hidden world (minimal scaffold, vanilla, E1): share (%) of episodes per move; p is Fisher's exact test (Freeman–Halton) of the world's first moves against the not-executed world's, per model.",
		LabelHeader: []string{"World", "Model"}}
	moves := ordered(eps, func(e row) string { return e.FirstMove() }, ledger.FirstMoves.Values)
	for _, m := range moves {
		t.Columns = append(t.Columns, Column{Key: m, Label: m})
	}
	t.Columns = append(t.Columns, Column{Key: "p", Label: "p (vs not executed)"})
	var keys []string
	var labels [][]string
	models := ordered(eps, modelOf, paperModels)
	for _, w := range worlds {
		for _, m := range models {
			keys = append(keys, w.Name+"/"+m)
			labels = append(labels, []string{w.Fate.String(), m})
		}
	}
	t.Rows = newRows(keys, labels, len(t.Columns))
	group := joined(faultModeCol, modelCol, "/")
	for j, mv := range moves {
		rateColumn(t, eps, rateCol{mv, func(row) bool { return true }, func(e row) float64 { return b2f(e.FirstMove() == mv) }}, j, group, keys)
	}
	// The exact test of each world against the not-executed one, per model.
	counts := map[string][]int{} // world/model → episodes per move
	for _, e := range eps {
		k := e.FaultMode() + "/" + e.Model()
		if counts[k] == nil {
			counts[k] = make([]int, len(moves))
		}
		counts[k][slices.Index(moves, e.FirstMove())]++
	}
	base := slices.IndexFunc(worlds, ledger.FaultMode.NotExecuted)
	pj := len(moves)
	for wi, w := range worlds {
		for mi, m := range models {
			c := pCell(nan, false, nan)
			a, b := counts[worlds[max(base, 0)].Name+"/"+m], counts[w.Name+"/"+m]
			if base >= 0 && wi != base && a != nil && b != nil {
				p, err := stats.FisherExact([][]int{a, b})
				if err != nil {
					t.warnf("%s / %s: %v", w.Fate, m, err)
				}
				c = pCell(p, false, nan)
				c.N = sum(a) + sum(b)
			}
			t.Rows[wi*len(models)+mi].Cells[pj] = c
		}
	}
	return t
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// figure6Worlds are the worlds of Figure 6: the timeout group's modes
// (observation-equivalent at the response) with a fixed delay or none, the
// heavy tail being E5's; each is named by its fate (not executed,
// committed, late).
func figure6Worlds() []ledger.FaultMode {
	var out []ledger.FaultMode
	for _, m := range ledger.Faults() {
		if m.Group == ledger.GroupTimeout && m.Delay != ledger.DelayDrawn {
			out = append(out, m)
		}
	}
	return out
}
