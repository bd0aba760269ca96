package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/design"
)

// simulateSmallReplay simulates analysis/replay's small test design.
func simulateSmallReplay(seed uint64) (*table.Data, error) {
	sim, err := design.LoadSimulator(filepath.Join("..", "analysis", "replay", "testdata", "small.json"), "", seed)
	if err != nil {
		return nil, err
	}
	d := &table.Data{}
	err = design.Generate(sim, 0, sim.Plan.Len(), 2, true, func(c *design.Chunk) error {
		for i := range c.Eps {
			d.Append(&c.Eps[i])
		}
		return nil
	})
	return d, err
}

// The replay report writes its tables in every format, the figure, its
// data, the preregistration's verdicts and report.md, the same bytes for
// the same seed; a directory holding a foreign file is refused.
func TestGenerateReplay(t *testing.T) {
	dir := t.TempDir()
	run := func(out string) {
		var warns []string
		job := ReplayJob{Seed: 1, Simulate: simulateSmallReplay, Out: out, Meta: Meta{Toolkit: "test", Schema: "1", Go: "go"},
			Warn: func(m string) { warns = append(warns, m) }}
		w, err := GenerateReplay(job)
		if err != nil {
			t.Fatal(err)
		}
		if w.Figures != 1 || w.Files != 23 || w.Episodes == 0 {
			t.Errorf("wrote %+v", w)
		}
	}
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	run(a)
	run(b)
	var names []string
	err := filepath.WalkDir(a, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(a, p)
		names = append(names, rel)
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, rel))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs of the same seed", rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"report.md", "prereg.md", "prereg.csv", "prereg.json", "tables/replay1.csv", "tables/replay2.tex",
		"tables/replay3.json", "figures/replay.png", "figures/replay.svg", "figure-data/replay-figure.csv"} {
		if !slices.Contains(names, filepath.FromSlash(want)) {
			t.Errorf("no %s in %v", want, names)
		}
	}
	md, _ := os.ReadFile(filepath.Join(a, "report.md"))
	for _, want := range []string{"# LIMBO agent-side replay report", "## Agent-side faults under each guard", "R1", "![replay.png](figures/replay.png)"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	if err := os.WriteFile(filepath.Join(a, "notes.txt"), []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := GenerateReplay(ReplayJob{Seed: 1, Simulate: simulateSmallReplay, Out: a, Warn: func(string) {}}); err == nil || !strings.Contains(err.Error(), "notes.txt") {
		t.Errorf("a foreign file: %v", err)
	}
}
