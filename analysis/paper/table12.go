package paper

import "github.com/limbo-toolkit/limbo/analysis/prereg"

// Hypothesis is one preregistered hypothesis as Table 12 and the reports
// show it: its prediction, the rule in words, the result as a person reads
// it, the verdict and the numbers behind it (each statistic's P is NaN:
// a p-value is a statistic of its own, gee_p). The preregistration
// computes them (Hypotheses evaluates the paper's with package
// analysis/prereg); Layout only words them.
type Hypothesis struct {
	ID         string
	Prediction string
	Rule       string // the preregistered decision rule, in words
	Result     string // the statistic as a person reads it
	Verdict    prereg.Verdict
	Stats      []prereg.Stat
	Warnings   []string
}

// hypothesisColumns are the columns the paper's hypotheses read.
var hypothesisColumns = tableColumns[12]

// Table12 lays the hypotheses out as the paper's Table 12.
func Table12(hs []*Hypothesis) *Table {
	t := &Table{
		Number:      12,
		Title:       "Preregistered hypotheses and outcomes",
		Caption:     "Preregistered hypotheses and outcomes; verdicts follow the preregistered rules. Intervals are 95% unless stated otherwise.",
		LabelHeader: []string{""},
		Columns: []Column{
			{Key: "prediction", Label: "Prediction"},
			{Key: "result", Label: "Result"},
			{Key: "verdict", Label: "Verdict"},
		},
	}
	for _, h := range hs {
		p := textCell(h.Prediction)
		p.Design = true
		t.Rows = append(t.Rows, Row{Key: h.ID, Labels: []string{h.ID}, Cells: []Cell{p, textCell(h.Result), textCell(h.Verdict.String())}})
		for _, w := range h.Warnings {
			t.warnf("%s: %s", h.ID, w)
		}
	}
	return t
}
