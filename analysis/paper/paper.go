package paper

import (
	_ "embed"
	"encoding/json"
	"math"
	"slices"
	"sync"
)

// paperJSON holds the paper's published numbers: the only place they
// appear in the toolkit.
//
//go:embed paper.json
var paperJSON []byte

// PaperValue is one published number: table, row key, column key (the
// keys of this package's tables), the printed value and interval.
type PaperValue struct {
	Table int      `json:"table"`
	Row   string   `json:"row"`
	Col   string   `json:"col"`
	Value float64  `json:"value"`
	Lo    *float64 `json:"lo,omitempty"`
	Hi    *float64 `json:"hi,omitempty"`
}

// PaperVerdict is the paper's published outcome of a hypothesis (Table 12).
type PaperVerdict struct {
	ID string `json:"id"`
	// Verdict is the paper's wording, which need not be one of the
	// preregistration's verdicts ("contract > model supported only
	// pooled; …").
	Verdict string `json:"verdict"`
	Result  string `json:"result"`
}

type paperFile struct {
	Entries  []PaperValue   `json:"entries"`
	Verdicts []PaperVerdict `json:"verdicts"`
}

// loadPaper decodes the embedded file once per process; Paper and
// PaperVerdicts hand out copies, so no caller can change another's.
var loadPaper = sync.OnceValue(func() paperFile {
	var f paperFile
	if err := json.Unmarshal(paperJSON, &f); err != nil {
		panic("paper: embedded paper.json: " + err.Error()) // a build defect, not user input
	}
	return f
})

// Paper returns the published numbers, in the order of the reference file.
func Paper() []PaperValue {
	vs := slices.Clone(loadPaper().Entries)
	for i := range vs {
		vs[i].Lo, vs[i].Hi = clonePtr(vs[i].Lo), clonePtr(vs[i].Hi)
	}
	return vs
}

func clonePtr(p *float64) *float64 {
	if p == nil {
		return nil
	}
	x := *p
	return &x
}

// PaperVerdicts returns the paper's Table 12 outcomes, H1 to H6.
func PaperVerdicts() []PaperVerdict { return slices.Clone(loadPaper().Verdicts) }

// Comparison is one published number beside this run's.
type Comparison struct {
	Table        int
	Row, Col     string
	RowLabel     string // the run table's row labels joined, or the key
	ColLabel     string
	Kind         Kind
	Paper, Run   float64
	Diff         float64 // Run − Paper; NaN when the run has no value
	PaperLo      float64
	PaperHi      float64
	RunLo        float64
	RunHi        float64
	MissingInRun bool // the run's table has no such row or column
}

// Compare lines up the published numbers of table t with t's cells.
func Compare(t *Table) []Comparison {
	var out []Comparison
	for _, p := range Paper() {
		if p.Table != t.Number {
			continue
		}
		c := Comparison{Table: p.Table, Row: p.Row, Col: p.Col, RowLabel: p.Row, ColLabel: p.Col, Paper: p.Value,
			Run: nan, Diff: nan, PaperLo: nan, PaperHi: nan, RunLo: nan, RunHi: nan}
		if p.Lo != nil && p.Hi != nil {
			c.PaperLo, c.PaperHi = *p.Lo, *p.Hi
		}
		cell, ok := t.Cell(p.Row, p.Col)
		if !ok {
			c.MissingInRun = true
		} else {
			c.Kind = cell.Kind
			c.Run, c.RunLo, c.RunHi = cell.Value, cell.Lo, cell.Hi
			c.Diff = cell.Value - p.Value
			if cell.Kind == PValue {
				// p-values differ by orders of magnitude: compare on log10.
				c.Diff = math.Log10(cell.Value / p.Value)
				if cell.Below {
					// cell.Value is only the bound 1e-300.
					c.Diff = cell.Log10 - math.Log10(p.Value)
				}
			}
			if math.IsNaN(cell.Value) {
				c.Diff = nan
			}
			for _, r := range t.Rows {
				if r.Key == p.Row {
					c.RowLabel = joinLabels(r.Labels)
				}
			}
			for _, col := range t.Columns {
				if col.Key == p.Col {
					c.ColLabel = col.Label
					if col.Group != "" {
						c.ColLabel = col.Group + ": " + col.Label
					}
				}
			}
		}
		out = append(out, c)
	}
	return out
}

func joinLabels(l []string) string {
	s := ""
	for i, x := range l {
		if i > 0 {
			s += " / "
		}
		s += x
	}
	return s
}
