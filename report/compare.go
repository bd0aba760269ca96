package report

import (
	"fmt"
	"math"

	"github.com/limbo-toolkit/limbo/analysis"
)

// CompareTable lays the paper's published numbers of t beside this run's
// as a table of its own (one row per published number: paper, run,
// difference), so every format renders it. Nil when the paper publishes no
// number of t.
func CompareTable(t *analysis.Table) *analysis.Table {
	cs := analysis.Compare(t)
	if len(cs) == 0 {
		return nil
	}
	ct := &analysis.Table{
		Number:      t.Number,
		Title:       t.Title + ": paper vs run",
		Caption:     fmt.Sprintf("Table %d: the paper's published numbers beside this run's (difference = run − paper; for p-values log10(run/paper)).", t.Number),
		LabelHeader: []string{"Row", "Column"},
		Columns: []analysis.Column{
			{Key: "paper", Label: "paper", ShowCI: true},
			{Key: "run", Label: "run", ShowCI: true},
			{Key: "diff", Label: "run − paper"},
		},
		Warnings: t.Warnings,
	}
	for _, c := range cs {
		kind := c.Kind
		digits := 0
		if cell, ok := t.Cell(c.Row, c.Col); ok {
			digits = cell.Digits
		}
		paper := analysis.Cell{Kind: kind, Value: c.Paper, Lo: c.PaperLo, Hi: c.PaperHi, NEff: math.NaN(), Digits: digits, Design: true}
		run := analysis.Cell{Kind: kind, Value: c.Run, Lo: c.RunLo, Hi: c.RunHi, NEff: math.NaN(), Digits: digits}
		dk, dd := analysis.Delta, digits+1
		switch kind {
		case analysis.Percent, analysis.PP:
			dk, dd = analysis.PP, 1
		case analysis.PValue:
			dd = 1 // log10(run/paper)
		case analysis.Count:
			dd = 0
		}
		diff := analysis.Cell{Kind: dk, Value: c.Diff, Lo: math.NaN(), Hi: math.NaN(), NEff: math.NaN(), Digits: dd}
		if c.MissingInRun {
			run.Value = math.NaN()
		}
		colLabel := c.ColLabel
		if kind == analysis.PValue {
			// Say so where it is read: the caption is not in every format.
			colLabel += " (difference: log10 run/paper)"
		}
		ct.Rows = append(ct.Rows, analysis.Row{Key: c.Row + "|" + c.Col, Labels: []string{c.RowLabel, colLabel}, Cells: []analysis.Cell{paper, run, diff}})
	}
	return ct
}

// VerdictTable puts the paper's hypothesis outcomes beside this run's.
func VerdictTable(hs []*analysis.Hypothesis) *analysis.Table {
	t := &analysis.Table{
		Name: "verdicts", Number: 12, Title: "Hypotheses: paper vs run",
		Caption:     "The paper's Table 12 outcomes beside this run's verdicts and statistics.",
		LabelHeader: []string{""},
		Columns: []analysis.Column{
			{Key: "paper_result", Label: "paper result"}, {Key: "paper_verdict", Label: "paper verdict"},
			{Key: "run_result", Label: "run result"}, {Key: "run_verdict", Label: "run verdict"},
		},
	}
	text := func(s string) analysis.Cell {
		return analysis.Cell{Kind: analysis.Text, Text: s, Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), NEff: math.NaN()}
	}
	for _, p := range analysis.PaperVerdicts() {
		rr, rv := "", ""
		for _, h := range hs {
			if h.ID == p.ID {
				rr, rv = h.Result, h.Verdict
			}
		}
		t.Rows = append(t.Rows, analysis.Row{Key: p.ID, Labels: []string{p.ID}, Cells: []analysis.Cell{text(p.Result), text(p.Verdict), text(rr), text(rv)}})
	}
	return t
}
