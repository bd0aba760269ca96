package paper

import (
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Figures is the data behind the paper's figures that no table already
// holds (Figure 4 plots Table 6 and Figure 5 plots Table 7). Each is a
// Table named "figureN"; package plots draws them and package report
// writes them as data.
type Figures struct {
	Dup      *Table // Figure 2: duplicate rate by model × fault mode (E1)
	Class    *Table // Figure 3: duplicate rate by model × contract class (E1, E1s)
	Recovery *Table // Figure 6: recovery behaviour by world × model (E1)
}

// figureColumns are the columns the figure data read.
var figureColumns = []string{"experiment", "model", "template", "weight", "fault_mode", "fault_fired", "duplicated", "write_class", "recovery"}

// BuildFigures computes the figure data. A MissingColumnsError names the
// columns the data lacks.
func BuildFigures(d *table.Data) (*Figures, error) {
	if err := require(d, "The figures", figureColumns); err != nil {
		return nil, err
	}
	return &Figures{Dup: Figure2(d), Class: Figure3(d), Recovery: Figure6(d)}, nil
}

// Tables returns the figure tables in figure order (none for nil f).
func (f *Figures) Tables() []*Table {
	if f == nil {
		return nil
	}
	return []*Table{f.Dup, f.Class, f.Recovery}
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

// Figure6 is the distribution (%) of recovery behaviour after the focal
// timeout by model and hidden world (not executed: timeout_pre; committed:
// timeout_post; late: timeout_late), E1 minimal vanilla.
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
	t := &Table{Name: "figure6", Number: 6, Title: "Recovery behaviour after the focal timeout (E1)",
		Caption:     "Recovery behaviour after the focal timeout, by model and hidden world (minimal scaffold, vanilla, E1): share (%) of episodes per behaviour.",
		LabelHeader: []string{"World", "Model"}}
	recs := ordered(eps, func(e row) string { return e.Recovery() }, ledger.Recoveries.Values)
	for _, r := range recs {
		t.Columns = append(t.Columns, Column{Key: r, Label: r})
	}
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
	for j, r := range recs {
		rec := r
		rateColumn(t, eps, rateCol{rec, func(row) bool { return true }, func(e row) float64 { return b2f(e.Recovery() == rec) }}, j, group, keys)
	}
	return t
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
