package replay

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Results are the replay study's tables: Tables R1–R3 (paper.Table
// values, rendered by the report as the paper's are) and the figure's
// data.
type Results struct {
	Tables   []*paper.Table
	Figure   *paper.Table // the figure's data: rates by agent-side arm and guard
	Warnings []string
}

// Columns are the columns the tables read.
var Columns = []string{"agent_fault", "crash_window", "guard", "fault_mode", "model", "template",
	"duplicated", "exact_duplicated", "perturbed", "suppressed", "error_replayed", "task_success", "eos",
	"tool_calls", "agent_time_s"}

// Simulate runs the agent-side design in-process with seed on every core
// and returns its graded episodes in design order (the one-command
// report without a ledger).
func Simulate(seed uint64) (*table.Data, error) {
	d := &table.Data{}
	err := design.Episodes("replay", seed, runtime.GOMAXPROCS(0), func(ep *ledger.Episode) error {
		d.Append(ep) // a copy: design.Episodes reuses ep
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// Analyze computes the replay study's tables from d, an episode table of
// the agent-side design (the replay column group). A ledger without the
// group is an error naming what it lacks.
func Analyze(d *table.Data) (*Results, error) {
	if d.Columns != nil {
		var miss []string
		for _, c := range Columns {
			if !slices.Contains(d.Columns, c) {
				miss = append(miss, c)
			}
		}
		if miss != nil {
			return nil, &paper.MissingColumnsError{What: "The replay study", Missing: miss}
		}
	}
	q := analysis.Query{Source: table.Held(d, nil), Where: `agent_fault != ""`}
	res := &Results{}
	r1, err := armTable(q)
	if err != nil {
		return nil, err
	}
	r2, err := modeTable(q)
	if err != nil {
		return nil, err
	}
	r3, err := modelTable(q)
	if err != nil {
		return nil, err
	}
	res.Tables = []*paper.Table{r1, r2, r3}
	res.Figure = figureData(r1)
	for _, t := range res.Tables {
		for _, w := range t.Warnings {
			res.Warnings = append(res.Warnings, t.Title+": "+w)
		}
	}
	return res, nil
}

// arms are the agent-side arms in the catalogue's order, crash_resume
// once per window: a key (agent_fault, or agent_fault:window) and a label.
func arms() (keys, labels []string) {
	for _, f := range ledger.AgentFaults() {
		if len(f.Windows) == 0 {
			keys, labels = append(keys, f.Name), append(labels, f.Label)
		}
		for _, w := range f.Windows {
			keys = append(keys, f.Name+":"+w)
			labels = append(labels, f.Label+" ("+windowLabel(w)+")")
		}
	}
	return keys, labels
}

func windowLabel(w string) string {
	if w == ledger.WindowBeforeJournal {
		return "before the journal"
	}
	return "after the journal"
}

func guardLabel(g string) string {
	for _, a := range ledger.GuardArms() {
		if a.Name == g {
			return a.Label
		}
	}
	return g
}

// rates runs the engine's Rates of outcome by the columns by, clustered
// on task templates (docs/methods.md, Intervals on rates), and returns
// the rows by their levels joined with "|".
func rates(q analysis.Query, outcome string, by []string) (map[string]analysis.RateRow, []analysis.Warning, error) {
	r, err := analysis.Rates(q, analysis.RatesSpec{Outcome: outcome, By: by, Cluster: "template"})
	if err != nil {
		return nil, nil, fmt.Errorf("replay: rates of %s: %w", outcome, err)
	}
	out := map[string]analysis.RateRow{}
	for _, row := range r.Rows {
		k := ""
		for i, l := range row.Levels {
			if i > 0 {
				k += "|"
			}
			k += l
		}
		out[k] = row
	}
	return out, r.Warnings, nil
}

// rateCell is a rate in percent with its Wilson interval on the clustered
// n_eff; NaN when the group has no episode.
func rateCell(r analysis.RateRow, ok bool) paper.Cell {
	c := paper.Cell{Kind: paper.Percent, Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), NEff: math.NaN()}
	if ok {
		c.Value, c.Lo, c.Hi, c.NEff, c.N = 100*r.P, 100*r.Lo, 100*r.Hi, r.NEff, int(r.N)
	}
	return c
}

// rateOutcomes are the rate columns of Table R1, in order.
var rateOutcomes = []struct{ key, label string }{
	{"duplicated", "duplicated (%)"},
	{"exact_duplicated", "exact duplicate (%)"},
	{"perturbed", "perturbed re-issue (%)"},
	{"suppressed", "suppressed (%)"},
	{"error_replayed", "lost to a replayed error (%)"},
	{"task_success", "task success (%)"},
	{"eos", "EOS (%)"},
}

// armTable is Table R1: every agent-side arm under every guard.
func armTable(q analysis.Query) (*paper.Table, error) {
	t := &paper.Table{Name: "replay1", Title: "Agent-side faults under each guard",
		Caption:     "Table R1: duplicates and wrongful suppression by agent-side fault and guard, over every world of the design (95% Wilson intervals on the clustered effective size, templates as clusters). A duplicate is a logical action committed more often than the task asks; an exact one repeats the arguments; suppressed is work the guard answered in the service's stead, lost is work a replayed error cost.",
		LabelHeader: []string{"Agent-side fault", "Guard"}}
	for _, o := range rateOutcomes {
		t.Columns = append(t.Columns, paper.Column{Key: o.key, Label: o.label, ShowCI: o.key == "duplicated" || o.key == "suppressed"})
	}
	t.Columns = append(t.Columns, paper.Column{Key: "calls", Label: "tool calls (mean)"}, paper.Column{Key: "minutes", Label: "agent time (min, mean)"})
	by := []string{"agent_fault", "crash_window", "guard"}
	cols := make([]map[string]analysis.RateRow, len(rateOutcomes))
	for j, o := range rateOutcomes {
		var warns []analysis.Warning
		var err error
		if cols[j], warns, err = rates(q, o.key, by); err != nil {
			return nil, err
		}
		for _, w := range warns {
			t.Warnings = append(t.Warnings, o.label+": "+w.String())
		}
	}
	mean := map[string][2]float64{}
	for j, o := range []string{"tool_calls", "agent_time_s"} {
		ms, err := analysis.Means(q, analysis.MeansSpec{Outcome: o, By: by})
		if err != nil {
			return nil, fmt.Errorf("replay: means of %s: %w", o, err)
		}
		for _, r := range ms.Rows {
			k := r.Levels[0] + "|" + r.Levels[1] + "|" + r.Levels[2]
			m := mean[k]
			m[j] = r.Mean
			if o == "agent_time_s" {
				m[j] /= 60
			}
			mean[k] = m
		}
	}
	keys, labels := arms()
	for i, a := range keys {
		fault, window := a, ""
		if j := indexByte(a, ':'); j >= 0 {
			fault, window = a[:j], a[j+1:]
		}
		for _, g := range ledger.GuardNames.Values {
			k := fault + "|" + window + "|" + g
			row := paper.Row{Key: a + "/" + g, Labels: []string{labels[i], guardLabel(g)}}
			any := false
			for j := range rateOutcomes {
				r, ok := cols[j][k]
				any = any || ok
				row.Cells = append(row.Cells, rateCell(r, ok))
			}
			if !any {
				continue // an arm the ledger does not have
			}
			m, ok := mean[k]
			if !ok {
				m = [2]float64{math.NaN(), math.NaN()}
			}
			row.Cells = append(row.Cells, number(m[0], 1), number(m[1], 1))
			t.Rows = append(t.Rows, row)
		}
	}
	return t, nil
}

func indexByte(s string, b byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return i
		}
	}
	return -1
}

func number(v float64, digits int) paper.Cell {
	return paper.Cell{Kind: paper.Number, Value: v, Lo: math.NaN(), Hi: math.NaN(), NEff: math.NaN(), Digits: digits}
}

// guardColumns are Tables R2 and R3's columns: per guard, the given
// outcomes.
func guardColumns(t *paper.Table, outcomes []struct{ key, label string }) {
	for _, g := range ledger.GuardNames.Values {
		for _, o := range outcomes {
			t.Columns = append(t.Columns, paper.Column{Key: g + "/" + o.key, Label: o.label, Group: guardLabel(g)})
		}
	}
}

// modeTable is Table R2: each service fault's family under each guard,
// every agent-side arm pooled.
func modeTable(q analysis.Query) (*paper.Table, error) {
	outs := []struct{ key, label string }{{"duplicated", "dup. (%)"}, {"suppressed", "supp. (%)"}, {"error_replayed", "lost (%)"}}
	t := &paper.Table{Name: "replay2", Title: "Service faults under each guard",
		Caption:     "Table R2: duplicates, suppressed work and work lost to a replayed error (%) by the service fault the focal write met, over every agent-side arm, per guard (95% Wilson intervals on the clustered effective size in the CSV and JSON).",
		LabelHeader: []string{"Service fault", "Family"}}
	guardColumns(t, outs)
	cols := make([]map[string]analysis.RateRow, len(outs))
	for j, o := range outs {
		var warns []analysis.Warning
		var err error
		if cols[j], warns, err = rates(q, o.key, []string{"fault_mode", "guard"}); err != nil {
			return nil, err
		}
		for _, w := range warns {
			t.Warnings = append(t.Warnings, o.label+": "+w.String())
		}
	}
	for _, m := range ledger.Faults() {
		row := paper.Row{Key: m.Name, Labels: []string{m.Label, familyLabel(m.Family)}}
		any := false
		for _, g := range ledger.GuardNames.Values {
			for j := range outs {
				r, ok := cols[j][m.Name+"|"+g]
				any = any || ok
				row.Cells = append(row.Cells, rateCell(r, ok))
			}
		}
		if any {
			t.Rows = append(t.Rows, row)
		}
	}
	return t, nil
}

func familyLabel(f string) string {
	if fam, ok := ledger.FamilyByName(f); ok {
		return fam.Label
	}
	return f
}

// modelTable is Table R3: each model's duplicate rate under each guard.
func modelTable(q analysis.Query) (*paper.Table, error) {
	outs := []struct{ key, label string }{{"duplicated", "dup. (%)"}}
	t := &paper.Table{Name: "replay3", Title: "Models under each guard",
		Caption:     "Table R3: duplicate rate (%) by model and guard, over every world and agent-side arm (95% Wilson intervals on the clustered effective size in the CSV and JSON): the guard decides, the model hardly does.",
		LabelHeader: []string{"Model"}}
	guardColumns(t, outs)
	rows, warns, err := rates(q, "duplicated", []string{"model", "guard"})
	if err != nil {
		return nil, err
	}
	for _, w := range warns {
		t.Warnings = append(t.Warnings, w.String())
	}
	var models []string
	for k := range rows {
		m := k[:indexByte(k, '|')]
		if !slices.Contains(models, m) {
			models = append(models, m)
		}
	}
	slices.Sort(models)
	for _, m := range models {
		row := paper.Row{Key: m, Labels: []string{m}}
		for _, g := range ledger.GuardNames.Values {
			r, ok := rows[m+"|"+g]
			row.Cells = append(row.Cells, rateCell(r, ok))
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// figureData is the figure's data: Table R1's duplicate, suppressed and
// lost rates, one row per (arm, guard).
func figureData(r1 *paper.Table) *paper.Table {
	f := &paper.Table{Name: "replay-figure", Title: "Duplicates and wrongful suppression by agent-side fault and guard",
		Caption:     "The data of the replay figure: Table R1's duplicate, suppressed and lost rates (%).",
		LabelHeader: r1.LabelHeader}
	keep := []string{"duplicated", "suppressed", "error_replayed"}
	var idx []int
	for j, c := range r1.Columns {
		if slices.Contains(keep, c.Key) {
			f.Columns = append(f.Columns, c)
			idx = append(idx, j)
		}
	}
	for _, r := range r1.Rows {
		row := paper.Row{Key: r.Key, Labels: r.Labels}
		for _, j := range idx {
			row.Cells = append(row.Cells, r.Cells[j])
		}
		f.Rows = append(f.Rows, row)
	}
	return f
}
