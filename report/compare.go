package report

import (
	"fmt"
	"math"

	"github.com/limbo-toolkit/limbo/analysis/paper"
)

// CompareTable lays the paper's published numbers of t beside this run's
// as a table of its own (one row per published number: paper, run,
// difference), so every format renders it. Nil when the paper publishes no
// number of t.
func CompareTable(t *paper.Table) *paper.Table {
	cs := paper.Compare(t)
	if len(cs) == 0 {
		return nil
	}
	ct := &paper.Table{
		Number:      t.Number,
		Title:       t.Title + ": paper vs run",
		Caption:     fmt.Sprintf("Table %d: the paper's published numbers beside this run's (difference = run − paper; for p-values log10(run/paper)).", t.Number),
		LabelHeader: []string{"Row", "Column"},
		Columns: []paper.Column{
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
		pub := paper.Cell{Kind: kind, Value: c.Paper, Lo: c.PaperLo, Hi: c.PaperHi, NEff: math.NaN(), Digits: digits, Design: true}
		run := paper.Cell{Kind: kind, Value: c.Run, Lo: c.RunLo, Hi: c.RunHi, NEff: math.NaN(), Digits: digits}
		dk, dd := paper.Delta, digits+1
		switch kind {
		case paper.Percent, paper.PP:
			dk, dd = paper.PP, 1
		case paper.PValue:
			dd = 1 // log10(run/paper)
		case paper.Count:
			dd = 0
		}
		diff := paper.Cell{Kind: dk, Value: c.Diff, Lo: math.NaN(), Hi: math.NaN(), NEff: math.NaN(), Digits: dd}
		if c.MissingInRun {
			run.Value = math.NaN()
		}
		colLabel := c.ColLabel
		if kind == paper.PValue {
			// Say so where it is read: the caption is not in every format.
			colLabel += " (difference: log10 run/paper)"
		}
		ct.Rows = append(ct.Rows, paper.Row{Key: c.Row + "|" + c.Col, Labels: []string{c.RowLabel, colLabel}, Cells: []paper.Cell{pub, run, diff}})
	}
	return ct
}

// VerdictTable puts the paper's hypothesis outcomes beside this run's.
func VerdictTable(hs []*paper.Hypothesis) *paper.Table {
	t := &paper.Table{
		Name: "verdicts", Number: 12, Title: "Hypotheses: paper vs run",
		Caption:     "The paper's Table 12 outcomes beside this run's verdicts and statistics.",
		LabelHeader: []string{""},
		Columns: []paper.Column{
			{Key: "paper_result", Label: "paper result"}, {Key: "paper_verdict", Label: "paper verdict"},
			{Key: "run_result", Label: "run result"}, {Key: "run_verdict", Label: "run verdict"},
		},
	}
	text := func(s string) paper.Cell {
		return paper.Cell{Kind: paper.Text, Text: s, Value: math.NaN(), Lo: math.NaN(), Hi: math.NaN(), NEff: math.NaN()}
	}
	for _, p := range paper.PaperVerdicts() {
		rr, rv := "", ""
		for _, h := range hs {
			if h.ID == p.ID {
				rr, rv = h.Result, h.Verdict.String()
			}
		}
		t.Rows = append(t.Rows, paper.Row{Key: p.ID, Labels: []string{p.ID}, Cells: []paper.Cell{text(p.Result), text(p.Verdict), text(rr), text(rv)}})
	}
	return t
}
