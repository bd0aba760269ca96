package ledger

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The summary of the sample counts its rows, true values and distinct
// strings (report's summary test pins their text).
func TestCheckFileSummary(t *testing.T) {
	c := CheckFile("../testdata/ledger/sample.csv", ReadOptions{}, true, func(err error) { t.Errorf("error: %v", err) })
	if c.Rows != 36 || c.Errors != 0 || c.Summary == nil {
		t.Fatalf("rows %d, errors %d, summary %v", c.Rows, c.Errors, c.Summary != nil)
	}
	if s := c.Summary; s.Rows != 36 || s.BoolSums["duplicated"] != 10 || s.Distinct["condition"] != 12 {
		t.Errorf("summary: %d rows, %d duplicated, %d conditions; want 36, 10, 12", s.Rows, s.BoolSums["duplicated"], s.Distinct["condition"])
	}
}

// Every row problem and the read's own error reach report and are counted.
func TestCheckFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	b, err := os.ReadFile("../testdata/ledger/sample.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	lines = append(lines[:3], lines[2]) // row 2 twice: duplicate episode_id
	if err := os.WriteFile(bad, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"duplicate id", bad, "episode_id"},
		{"missing file", filepath.Join(dir, "none.csv"), "none.csv"},
	}
	for _, tt := range tests {
		var reported []error
		c := CheckFile(tt.path, ReadOptions{}, false, func(err error) { reported = append(reported, err) })
		if c.Errors == 0 || c.Errors != len(reported) || !strings.Contains(errors.Join(reported...).Error(), tt.want) {
			t.Errorf("%s: %d errors, reported %v; want one naming %q", tt.name, c.Errors, reported, tt.want)
		}
	}
}

func TestWarnLimiter(t *testing.T) {
	var out bytes.Buffer
	wl := NewWarnLimiter(&out)
	for i := range 7 {
		wl.Warn(Problem{File: "f", Line: i + 1, Field: "harness", Msg: "unknown", Warning: true})
	}
	wl.Warn(Problem{File: "f", Line: 9, Field: "tool", Msg: "unknown", Warning: true})
	wl.Flush()
	got := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(got) != 7 || got[6] != "f: harness: warning: unknown (and 2 more like this)" || !strings.HasPrefix(got[5], "f:9: tool") {
		t.Errorf("printed:\n%s", out.String())
	}
}

func TestFiles(t *testing.T) {
	if got := Files("a/x.parquet"); len(got) != 3 || got[1] != "a/x.calls.parquet" || got[2] != "a/x.effects.parquet" {
		t.Errorf("Files(parquet) = %v", got)
	}
	if got := Files("x.csv"); len(got) != 1 || got[0] != "x.csv" {
		t.Errorf("Files(csv) = %v", got)
	}
}

// Convert writes the graded table; a failing read leaves nothing behind.
func TestConvert(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	if err := Convert("../testdata/ledger/sample.csv", out, "", ReadOptions{}, ""); err != nil {
		t.Fatal(err)
	}
	c := CheckFile(out, ReadOptions{}, false, func(err error) { t.Errorf("converted ledger: %v", err) })
	if c.Rows != 36 {
		t.Errorf("converted %d rows, want 36", c.Rows)
	}
	bad := filepath.Join(dir, "bad.out.csv")
	if err := Convert(filepath.Join(dir, "none.csv"), bad, "", ReadOptions{}, ""); err == nil {
		t.Error("missing input converted")
	}
	if _, err := os.Stat(bad); err == nil {
		t.Error("output left behind after a failed read")
	}
}
