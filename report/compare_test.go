package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
)

// sameFloat treats two NaNs as equal.
func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// TestCompareTable checks each comparison row of every sample table
// against paper.Compare: the paper's number, the run's (NaN when the run
// lacks the row), the difference and its unit.
func TestCompareTable(t *testing.T) {
	res := sampleResults(t)
	compared := 0
	for _, tb := range res.Tables {
		cs := paper.Compare(tb)
		ct := CompareTable(tb)
		if len(cs) == 0 {
			if ct != nil {
				t.Errorf("table %d: a comparison without paper numbers", tb.Number)
			}
			continue
		}
		compared++
		if ct == nil || len(ct.Rows) != len(cs) {
			t.Fatalf("table %d: %d comparisons, comparison table %v", tb.Number, len(cs), ct)
		}
		if ct.Number != tb.Number || ct.Title != tb.Title+": paper vs run" {
			t.Errorf("table %d: number %d, title %q", tb.Number, ct.Number, ct.Title)
		}
		for i, c := range cs {
			r := ct.Rows[i]
			pub, run, diff := r.Cells[0], r.Cells[1], r.Cells[2]
			if r.Key != c.Row+"|"+c.Col || r.Labels[0] != c.RowLabel {
				t.Errorf("table %d row %d: key %q labels %q", tb.Number, i, r.Key, r.Labels)
			}
			if !sameFloat(pub.Value, c.Paper) || !sameFloat(pub.Lo, c.PaperLo) || !sameFloat(diff.Value, c.Diff) {
				t.Errorf("table %d %s: paper %v [%v], diff %v; want %v [%v], %v", tb.Number, r.Key, pub.Value, pub.Lo, diff.Value, c.Paper, c.PaperLo, c.Diff)
			}
			wantRun := c.Run
			if c.MissingInRun {
				wantRun = math.NaN()
			}
			if !sameFloat(run.Value, wantRun) || !pub.Design || run.Design {
				t.Errorf("table %d %s: run %v, want %v (design flags %v %v)", tb.Number, r.Key, run.Value, wantRun, pub.Design, run.Design)
			}
			switch c.Kind {
			case paper.Percent, paper.PP:
				if diff.Kind != paper.PP || diff.Digits != 1 {
					t.Errorf("table %d %s: a percent difference is %v with %d digits", tb.Number, r.Key, diff.Kind, diff.Digits)
				}
			case paper.PValue:
				if !strings.HasSuffix(r.Labels[1], " (difference: log10 run/paper)") {
					t.Errorf("table %d %s: p-value column label %q", tb.Number, r.Key, r.Labels[1])
				}
			case paper.Count:
				if diff.Kind != paper.Delta || diff.Digits != 0 {
					t.Errorf("table %d %s: a count difference is %v with %d digits", tb.Number, r.Key, diff.Kind, diff.Digits)
				}
			}
		}
		var b bytes.Buffer
		if err := Text(&b, ct); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, tb.ID()+".paper.txt", b.Bytes())
	}
	if compared == 0 {
		t.Fatal("no sample table has paper numbers")
	}
}

// A table the paper publishes but this run lacks every row of: the run
// column is undefined ("–"), the paper's numbers and intervals remain.
func TestCompareTableMissingRun(t *testing.T) {
	var n int
	for _, p := range paper.Paper() {
		if p.Table == 3 {
			n++
		}
	}
	ct := CompareTable(&paper.Table{Number: 3, Title: "empty", Columns: []paper.Column{{Key: "x", Label: "x"}}})
	if ct == nil || len(ct.Rows) != n {
		t.Fatalf("comparison of an empty table 3: %v, want %d rows", ct, n)
	}
	var b bytes.Buffer
	Text(&b, ct)
	var first paper.PaperValue
	for _, p := range paper.Paper() {
		if p.Table == 3 {
			first = p
			break
		}
	}
	// The first published number of Table 3.
	line := ""
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.HasPrefix(l, first.Row+"  ") {
			line = l
			break
		}
	}
	if f := strings.Fields(line); len(f) < 5 || f[len(f)-2] != "–" || f[len(f)-1] != "–" || (first.Lo != nil) != strings.Contains(line, " [") {
		t.Errorf("missing run row %q (want the paper's value, its interval if published, then – –):\n%s", line, b.String())
	}
	if CompareTable(&paper.Table{Number: 99}) != nil {
		t.Error("a comparison for a table the paper does not publish")
	}
}

// TestVerdictTable puts the paper's H1–H6 beside the run's: verdicts of
// hypotheses the run has, empty cells for the others.
func TestVerdictTable(t *testing.T) {
	h := testHypothesis()
	vt := VerdictTable([]*paper.Hypothesis{h})
	pv := paper.PaperVerdicts()
	if len(vt.Rows) != len(pv) || len(pv) != 6 {
		t.Fatalf("%d rows for %d paper verdicts", len(vt.Rows), len(pv))
	}
	for i, r := range vt.Rows {
		if r.Key != pv[i].ID || r.Cells[0].Text != pv[i].Result || r.Cells[1].Text != pv[i].Verdict {
			t.Errorf("row %d: %q %q %q, want paper %v", i, r.Key, r.Cells[0].Text, r.Cells[1].Text, pv[i])
		}
		wantResult, wantVerdict := "", ""
		if r.Key == "H1" {
			wantResult, wantVerdict = h.Result, h.Verdict.String()
		}
		if r.Cells[2].Text != wantResult || r.Cells[3].Text != wantVerdict {
			t.Errorf("%s: run %q %q, want %q %q", r.Key, r.Cells[2].Text, r.Cells[3].Text, wantResult, wantVerdict)
		}
		for _, c := range r.Cells {
			if c.Kind != paper.Text {
				t.Errorf("%s: a %v cell", r.Key, c.Kind)
			}
		}
	}
	var b bytes.Buffer
	Markdown(&b, vt)
	if !strings.Contains(b.String(), "| H1 | "+pv[0].Result+" | "+pv[0].Verdict+" | rate 12.5% [5, 25] | not supported |") ||
		!strings.Contains(b.String(), "| :-- | :-- | :-- | :-- | :-- |") {
		t.Errorf("verdict table in Markdown:\n%s", b.String())
	}
}
