package design

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/outfile"
)

func TestRunOptionsCheck(t *testing.T) {
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.csv")
	if err := os.WriteFile(profiles, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := RunOptions{Design: "paper", Out: filepath.Join(dir, "run.jsonl")}
	tests := []struct {
		name string
		edit func(*RunOptions)
		err  string
	}{
		{"defaults", func(*RunOptions) {}, ""},
		{"stdout", func(c *RunOptions) { c.Out = "-" }, ""},
		{"no out", func(c *RunOptions) { c.Out = "" }, "Out is required"},
		{"negative jobs", func(c *RunOptions) { c.Jobs = -1 }, "Jobs must be ≥ 0"},
		{"bad shard", func(c *RunOptions) { c.Shard = "0/4" }, "Shard: "},
		{"csv out", func(c *RunOptions) { c.Out = "run.csv" }, "Out run.csv: the raw ledger is JSONL; name it .jsonl (or - for stdout)"},
		{"bad episodes name", func(c *RunOptions) { c.Episodes = "run.txt" }, "Episodes run.txt: want a .parquet, .csv or .jsonl name"},
		{"episodes over out", func(c *RunOptions) { c.Episodes = c.Out }, "Episodes and Out name the same file"},
		{"out over profiles", func(c *RunOptions) { c.Profiles, c.Episodes = profiles, profiles }, "output " + profiles},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.Check()
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("Check() = %v, want %q", err, tc.err)
			}
		})
	}
	c := ok
	c.Profiles, c.Episodes = profiles, profiles
	var ie *outfile.InputError
	if err := c.Check(); !errors.As(err, &ie) {
		t.Errorf("an output that is an input: %v, want an *outfile.InputError", err)
	}
}

// Run with Jobs 0 (GOMAXPROCS) reports every episode of the shard to
// Progress and writes the same bytes as one worker.
func TestRunJobsZeroAndProgress(t *testing.T) {
	sim, err := LoadSimulator("paper", "", 3)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	done := 0
	o := RunOptions{Design: "paper", Out: "-", Stdout: &out, Shard: "7/2000", Toolkit: "test", Progress: func(k int) { done += k }}
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	if err := Run(sim, o); err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(out.String(), "\n")
	if lines == 0 || done != lines {
		t.Errorf("%d done, %d lines written: want equal and > 0", done, lines)
	}
	var want bytes.Buffer
	if err := Run(sim, RunOptions{Design: "paper", Out: "-", Stdout: &want, Jobs: 1, Shard: "7/2000", Toolkit: "test"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Error("Jobs 0 and Jobs 1 wrote different bytes")
	}
}
