package ledger

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The library's summary of the sample prints the text validate --summary
// pins in testdata/ledger/sample.summary.txt (written with the path as the
// command's test names it).
func TestCheckFileSummaryMatchesGolden(t *testing.T) {
	const path = "../../testdata/ledger/sample.csv" // as cmd/limbo-analyze names it
	want, err := os.ReadFile("../testdata/ledger/sample.summary.txt")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	c := CheckFile("../testdata/ledger/sample.csv", ReadOptions{}, true, func(err error) { t.Errorf("error: %v", err) })
	if c.Rows != 36 || c.Errors != 0 || c.Summary == nil {
		t.Fatalf("rows %d, errors %d, summary %v", c.Rows, c.Errors, c.Summary != nil)
	}
	c.Summary.File = path
	if err := c.Summary.WriteText(&got); err != nil {
		t.Fatal(err)
	}
	if got.String() != string(want) {
		t.Errorf("summary:\n%s\nwant:\n%s", got.String(), want)
	}
	// Write's text is WriteText's; its JSON is one line that reads back.
	var text, js bytes.Buffer
	if err := c.Summary.Write(&text, "text"); err != nil || text.String() != string(want) {
		t.Errorf("Write text: %v\n%s", err, text.String())
	}
	if err := c.Summary.Write(&js, "json"); err != nil {
		t.Fatal(err)
	}
	var back Summary
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || bytes.Count(js.Bytes(), []byte("\n")) != 1 ||
		back.Rows != c.Summary.Rows || back.Distinct["model"] != c.Summary.Distinct["model"] || back.BoolSums["duplicated"] != c.Summary.BoolSums["duplicated"] {
		t.Errorf("Write json: %v\n%s", err, js.String())
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
