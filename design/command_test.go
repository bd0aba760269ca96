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

func TestSimulateConfigCheck(t *testing.T) {
	dir := t.TempDir()
	profiles := filepath.Join(dir, "profiles.csv")
	if err := os.WriteFile(profiles, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	ok := SimulateConfig{Design: "paper", Out: filepath.Join(dir, "run.jsonl")}
	tests := []struct {
		name string
		edit func(*SimulateConfig)
		err  string
	}{
		{"defaults", func(*SimulateConfig) {}, ""},
		{"stdout", func(c *SimulateConfig) { c.Out = "-" }, ""},
		{"no out", func(c *SimulateConfig) { c.Out = "" }, "Out is required"},
		{"negative jobs", func(c *SimulateConfig) { c.Jobs = -1 }, "Jobs must be ≥ 0"},
		{"bad shard", func(c *SimulateConfig) { c.Shard = "0/4" }, "Shard: "},
		{"csv out", func(c *SimulateConfig) { c.Out = "run.csv" }, "Out run.csv: the raw ledger is JSONL; name it .jsonl (or - for stdout)"},
		{"bad episodes name", func(c *SimulateConfig) { c.Episodes = "run.txt" }, "Episodes run.txt: want a .parquet, .csv or .jsonl name"},
		{"episodes over out", func(c *SimulateConfig) { c.Episodes = c.Out }, "Episodes and Out name the same file"},
		{"out over profiles", func(c *SimulateConfig) { c.Profiles, c.Episodes = profiles, profiles }, "output " + profiles},
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

// Simulate reports the shard's episode count before the first and every
// episode after, and writes the same bytes as Run.
func TestSimulateConfigSimulate(t *testing.T) {
	c := SimulateConfig{Design: "paper", Seed: 3, Out: "-", Shard: "7/2000", Jobs: 2}
	var out bytes.Buffer
	total, done := -1, 0
	err := c.Simulate(&out, "test", func(n int) func(int) {
		total = n
		return func(k int) { done += k }
	})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(out.String(), "\n")
	if total <= 0 || done != total || lines != total {
		t.Errorf("start(%d), %d done, %d lines written: want all equal and > 0", total, done, lines)
	}
	sim, err := LoadSimulator("paper", "", 3)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := Run(sim, RunOptions{Design: "paper", Out: "-", Stdout: &want, Jobs: 1, Shard: "7/2000", Toolkit: "test"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Error("Simulate and Run wrote different bytes")
	}
}
