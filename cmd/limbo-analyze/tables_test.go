package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
)

// analysisSample writes the analysis package's committed sample ledger
// (testdata/analysis/sample.jsonl.gz, graded episodes) to a temporary
// JSONL file and returns its path.
func analysisSample(t testing.TB) string {
	t.Helper()
	return testfile.GunzipTemp(t, filepath.Join("..", "..", "testdata", "analysis", "sample.jsonl.gz"), "sample.jsonl")
}

func TestTablesCLI(t *testing.T) {
	in := analysisSample(t)
	code, out, errs := runCmd(t, "tables", "--in", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, n := range paper.TableNumbers {
		if !strings.Contains(out, "Table "+itoa(n)+":") {
			t.Errorf("text output lacks Table %d", n)
		}
	}
	// JSON: an array of every table, NaN as null, parseable.
	code, out, errs = runCmd(t, "tables", "--in", in, "--format", "json")
	var tables []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &tables) != nil || len(tables) != len(paper.TableNumbers) {
		t.Fatalf("json: exit %d, %d tables, %s", code, len(tables), errs)
	}
	// CSV: one header, full precision.
	code, out, _ = runCmd(t, "tables", "--in", in, "--table", "3", "--format", "csv")
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if code != 0 || err != nil || recs[0][0] != "table" || len(recs) < 10 {
		t.Fatalf("csv: exit %d err %v", code, err)
	}
	code, out, _ = runCmd(t, "tables", "--in", in, "--table", "5", "--format", "latex")
	if code != 0 || !strings.Contains(out, `\toprule`) || !strings.Contains(out, `\multicolumn`) && !strings.Contains(out, `\bottomrule`) {
		t.Errorf("latex: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, "tables", "--in", in, "--table", "13", "--compare-paper")
	if code != 0 || !strings.Contains(out, "paper vs run") || !strings.Contains(out, "sdk-retry") {
		t.Errorf("compare-paper: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd(t, "tables", "--in", in, "--table", "7", "--format", "md")
	if code != 0 || !strings.HasPrefix(out, "## Table 7 — ") {
		t.Errorf("md: exit %d\n%s", code, out)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestTablesUsage(t *testing.T) {
	for _, args := range [][]string{
		{"tables"},
		{"tables", "--in", "x.jsonl", "--table", "2"},
		{"tables", "--in", "x.jsonl", "--format", "xml"},
		{"hypotheses"},
		{"hypotheses", "--in", "x.jsonl", "--format", "latex"},
		{"report"},
		{"report", "--in", "x.jsonl", "--seed", "3", "--out", "d"},
	} {
		if code, _, errs := runCmd(t, args...); code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want usage error", args, code, errs)
		}
	}
	if code, _, errs := runCmd(t, "tables", "--in", filepath.Join(t.TempDir(), "none.jsonl")); code != 1 || !strings.Contains(errs, "none.jsonl") {
		t.Errorf("missing file: exit %d, %q", code, errs)
	}
}

// A ledger that lacks a column a table needs is an error naming it.
func TestTablesMissingColumn(t *testing.T) {
	in := analysisSample(t)
	// Rewrite the sample as CSV without the recovery column.
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	var cols []string
	for _, c := range ledger.EpisodeColumns {
		if c.Name != "recovery" && c.Name != "cost_usd" {
			cols = append(cols, c.Name)
		}
	}
	cw.Write(cols)
	err := ledger.ReadEpisodes(in, ledger.ReadOptions{}, func(e *ledger.Episode) error {
		var rec []string
		for _, c := range cols {
			v, _ := e.Get(c)
			rec = append(rec, v.String())
		}
		return cw.Write(rec)
	})
	if err != nil {
		t.Fatal(err)
	}
	cw.Flush()
	p := filepath.Join(t.TempDir(), "norecovery.csv")
	os.WriteFile(p, buf.Bytes(), 0o644)
	code, _, errs := runCmd(t, "hypotheses", "--in", p)
	if code != 1 || !strings.Contains(errs, "recovery") {
		t.Errorf("exit %d, stderr %q; want an error naming recovery", code, errs)
	}
}

func TestHypothesesCLI(t *testing.T) {
	in := analysisSample(t)
	code, out, errs := runCmd(t, "hypotheses", "--in", in)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, h := range []string{"H1 ", "H2 ", "H3 ", "H4 ", "H5 ", "H6 "} {
		if !strings.Contains(out, "\n"+h) && !strings.HasPrefix(out, h) {
			t.Errorf("output lacks %s", h)
		}
	}
	code, out, _ = runCmd(t, "hypotheses", "--in", in, "--format", "json")
	var hs []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &hs) != nil || len(hs) != 6 {
		t.Errorf("json: exit %d, %d hypotheses", code, len(hs))
	}
}
