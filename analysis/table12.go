package analysis

// Verdicts of a preregistered decision rule, as Table 12 prints them.
const (
	Supported     = "supported"
	NotSupported  = "not supported"
	Inconclusive  = "inconclusive"
	PartlySupport = "partly supported"
	NotComputable = "not computable"
)

// Stat is one named number behind a verdict.
type Stat struct {
	Name   string
	Value  float64
	Lo, Hi float64 // interval (95% unless the name says otherwise); NaN if none
	N      int
}

// Hypothesis is one preregistered hypothesis as Table 12 and the reports
// show it: its prediction, the rule in words, the result as a person reads
// it, the verdict and the numbers behind it. The package does not compute
// hypotheses itself: the preregistration (package analysis/prereg, whose
// embedded file is the paper's H1–H6) does, and reaches Table 12 through
// Options.Hypotheses.
type Hypothesis struct {
	ID         string
	Prediction string
	Rule       string // the preregistered decision rule, in words
	Result     string // the statistic as a person reads it
	Verdict    string
	Stats      []Stat
	Warnings   []string
}

// HypothesesFunc evaluates preregistered hypotheses on the data.
type HypothesesFunc func(d *Data) ([]*Hypothesis, error)

// hypothesisColumns are the columns the paper's hypotheses read.
var hypothesisColumns = tableColumns[12]

// Hypotheses checks that d has the columns of the paper's hypotheses (a
// MissingColumnsError names those it lacks) and evaluates them with fn.
func Hypotheses(d *Data, fn HypothesesFunc) ([]*Hypothesis, error) {
	if fn == nil {
		return nil, errNoHypotheses
	}
	if err := d.require("The hypotheses", hypothesisColumns); err != nil {
		return nil, err
	}
	return fn(d)
}

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
		t.Rows = append(t.Rows, Row{Key: h.ID, Labels: []string{h.ID}, Cells: []Cell{p, textCell(h.Result), textCell(h.Verdict)}})
		for _, w := range h.Warnings {
			t.warnf("%s: %s", h.ID, w)
		}
	}
	return t
}
