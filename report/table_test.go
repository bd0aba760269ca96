package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
)

// TestMarkdownTable: groups folded into the headers, pipes escaped, label
// and text columns left-aligned, numbers right-aligned, NaN as "–", and
// warnings as a list.
func TestMarkdownTable(t *testing.T) {
	tb := nanTable()
	tb.Rows[0].Labels = []string{"a|1"}
	tb.Columns = append(tb.Columns, paper.Column{Key: "note", Label: "note"})
	n := math.NaN()
	tb.Rows[0].Cells = append(tb.Rows[0].Cells, paper.Cell{Kind: paper.Text, Text: "x | y", Value: n, Lo: n, Hi: n, NEff: n})
	tb.Rows[1].Cells = append(tb.Rows[1].Cells, paper.Cell{Kind: paper.Text, Value: n, Lo: n, Hi: n, NEff: n})
	var b bytes.Buffer
	if err := Markdown(&b, tb); err != nil {
		t.Fatal(err)
	}
	want := "| Row | g: rate | p | note |\n" +
		"| :-- | --: | --: | :-- |\n" +
		"| a\\|1 | 12 [5,25] | 1.5e-9 | x \\| y |\n" +
		"| b | – | – |  |\n" +
		"\nWarnings:\n\n- b: no episodes\n"
	if b.String() != want {
		t.Errorf("markdown:\n%s\nwant:\n%s", b.String(), want)
	}
}

// TestTableFormats: every name Table accepts, and a clear error for the
// others.
func TestTableFormats(t *testing.T) {
	tb := nanTable()
	for _, tc := range []struct{ format, prefix string }{
		{"text", "Table 99: t\n\n"},
		{"md", "| Row | g: rate | p |\n"},
		{"markdown", "| Row | g: rate | p |\n"},
		{"latex", "\\begin{table}"},
		{"tex", "\\begin{table}"},
		{"csv", strings.Join(CSVHeader, ",") + "\n"},
		{"json", "{\n  \"id\": \"table99\",\n"},
	} {
		var b bytes.Buffer
		if err := Table(&b, tb, tc.format); err != nil {
			t.Errorf("%s: %v", tc.format, err)
		}
		if !strings.HasPrefix(b.String(), tc.prefix) {
			t.Errorf("%s starts %.60q, want %q", tc.format, b.String(), tc.prefix)
		}
	}
	var b bytes.Buffer
	err := Table(&b, tb, "xml")
	if err == nil || !strings.Contains(err.Error(), `"xml"`) || b.Len() != 0 {
		t.Errorf("xml: err %v, wrote %q", err, b.String())
	}
	for f, want := range map[string]string{"text": "txt", "latex": "tex", "md": "md", "csv": "csv", "json": "json"} {
		if got := Ext(f); got != want {
			t.Errorf("Ext(%q) = %q, want %q", f, got, want)
		}
	}
}

// TestTablesStream: several tables in one stream, per format.
func TestTablesStream(t *testing.T) {
	a := nanTable()
	b2 := nanTable()
	b2.Number, b2.Title, b2.Warnings = 98, "second", nil
	tables := []*paper.Table{a, b2}
	render := func(f string) string {
		t.Helper()
		var b bytes.Buffer
		if err := Tables(&b, tables, f); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		return b.String()
	}
	// CSV: one header, then both tables' cells.
	recs, err := csv.NewReader(strings.NewReader(render("csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1+4+4 || strings.Join(recs[0], ",") != strings.Join(CSVHeader, ",") || recs[1][0] != "table99" || recs[5][0] != "table98" {
		t.Errorf("csv: %d records: %v", len(recs), recs)
	}
	// JSON: one array of both tables, NaN as null, warnings [] not null.
	var js []struct {
		ID       string   `json:"id"`
		Warnings []string `json:"warnings"`
		Rows     []struct {
			Cells []struct {
				Value *float64 `json:"value"`
				NEff  *float64 `json:"n_eff"`
				N     int      `json:"n"`
			} `json:"cells"`
		} `json:"rows"`
	}
	s := render("json")
	if err := json.Unmarshal([]byte(s), &js); err != nil {
		t.Fatalf("json: %v\n%s", err, s)
	}
	if len(js) != 2 || js[0].ID != "table99" || js[1].ID != "table98" || js[1].Warnings == nil || len(js[1].Warnings) != 0 {
		t.Fatalf("json:\n%s", s)
	}
	if c := js[0].Rows[0].Cells[0]; *c.Value != 12.5 || *c.NEff != 7.5 || c.N != 8 || js[0].Rows[1].Cells[0].Value != nil {
		t.Errorf("json cells:\n%s", s)
	}
	if !strings.Contains(s, "\"warnings\": []") {
		t.Errorf("json: empty warnings not []:\n%s", s)
	}
	// Markdown: a heading per table, a blank line between.
	md := render("md")
	if !strings.HasPrefix(md, "## Table 99 — t\n\n| Row |") || !strings.Contains(md, "- b: no episodes\n\n## Table 98 — second\n\n| Row |") {
		t.Errorf("md:\n%s", md)
	}
	txt := render("text")
	if !strings.HasPrefix(txt, "Table 99: t\n") || !strings.Contains(txt, "  [1] b: no episodes\n\nTable 98: second\n") {
		t.Errorf("text:\n%s", txt)
	}
	tex := render("latex")
	if strings.Count(tex, "\\begin{table}") != 2 || !strings.Contains(tex, "\\label{tab:98}") {
		t.Errorf("latex:\n%s", tex)
	}
	var b bytes.Buffer
	if err := Tables(&b, tables, "xml"); err == nil {
		t.Error("Tables accepted format xml")
	}
}

// TestHumanKinds covers the number kinds the sample's goldens do not
// pin on their own.
func TestHumanKinds(t *testing.T) {
	n := math.NaN()
	for _, tc := range []struct {
		c      paper.Cell
		showCI bool
		want   string
	}{
		{paper.Cell{Kind: paper.Ratio, Value: 2.117, Lo: 0.7946, Hi: 5.641}, false, "2.1 (0.8–5.6)"},
		{paper.Cell{Kind: paper.Ratio, Value: 2.117, Lo: n, Hi: n}, false, "2.1"},
		{paper.Cell{Kind: paper.Count, Value: 4460}, false, "4460"},
		{paper.Cell{Kind: paper.Number, Value: 0.12345, Digits: 3}, false, "0.123"},
		{paper.Cell{Kind: paper.Number, Value: -0.0001, Digits: 2}, false, "0.00"},
		{paper.Cell{Kind: paper.Percent, Value: 12.5, Lo: n, Hi: 20, Digits: 1}, true, "12.5"},
		{paper.Cell{Kind: paper.Percent, Value: 12.5, Lo: 5, Hi: 20, Digits: 1}, false, "12.5"},
		{paper.Cell{Kind: paper.Text, Text: "yes", Value: n}, false, "yes"},
		{paper.Cell{Kind: paper.Count, Value: n}, false, "–"},
	} {
		if got := human(tc.c, tc.showCI); got != tc.want {
			t.Errorf("human(%v %v, ci %v) = %q, want %q", tc.c.Kind, tc.c.Value, tc.showCI, got, tc.want)
		}
	}
}

// failWriter fails every write, as a full disk does.
type failWriter struct{}

var errFull = errors.New("disk full")

func (failWriter) Write([]byte) (int, error) { return 0, errFull }

// TestWriteErrors: a failing writer's error reaches the caller from every
// renderer, so a command never reports success for a lost output.
func TestWriteErrors(t *testing.T) {
	tb := nanTable()
	res := &paper.Results{Tables: []*paper.Table{tb}, Hypotheses: []*paper.Hypothesis{testHypothesis()}}
	o := testResults()["model_glmm"]
	checks := map[string]func() error{}
	for _, f := range Formats {
		checks["table "+f] = func() error { return Table(failWriter{}, tb, f) }
		checks["tables "+f] = func() error { return Tables(failWriter{}, []*paper.Table{tb}, f) }
	}
	for _, f := range ResultFormats {
		checks["output "+f] = func() error { return o.Write(failWriter{}, f) }
	}
	for _, f := range []string{"text", "md", "csv", "json"} {
		checks["hypotheses "+f] = func() error { return Hypotheses(failWriter{}, res.Hypotheses, f) }
	}
	checks["report.md"] = func() error { return MarkdownReport(failWriter{}, res, Meta{}, nil) }
	checks["report.html"] = func() error { return HTMLReport(failWriter{}, res, Meta{}, nil) }
	for name, fn := range checks {
		if err := fn(); !errors.Is(err, errFull) {
			t.Errorf("%s: error %v, want %v", name, err, errFull)
		}
	}
}
