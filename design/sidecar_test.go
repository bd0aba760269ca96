package design

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// SidecarSeed reads the seed of LEDGER.meta.json and gives "" for no
// path, no sidecar, no seed or a sidecar that is not JSON.
func TestSidecarSeed(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, meta, want string
	}{
		{"seed", `{"seed": 18446744073709551615, "episodes": 3}`, "18446744073709551615"},
		{"zero seed", `{"seed": 0}`, "0"},
		{"no seed", `{"episodes": 3}`, ""},
		{"not json", `seed: 7`, ""},
		{"no sidecar", "", ""},
	}
	for _, tt := range tests {
		ledger := filepath.Join(dir, tt.name+".jsonl")
		if tt.meta != "" {
			if err := os.WriteFile(MetaPath(ledger), []byte(tt.meta), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := SidecarSeed(ledger); got != tt.want {
			t.Errorf("%s: SidecarSeed = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := SidecarSeed(""); got != "" {
		t.Errorf(`SidecarSeed("") = %q, want ""`, got)
	}
}

// Episodes passes the graded episodes of the whole design in design
// order, the same for any number of workers and the same as the graded
// table Run writes.
func TestEpisodes(t *testing.T) {
	collect := func(jobs int) []ledger.Episode {
		var out []ledger.Episode
		if err := Episodes(smallDesign, 7, jobs, func(e *ledger.Episode) error { out = append(out, *e); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	one := collect(1)
	dir := t.TempDir()
	table := filepath.Join(dir, "eps.jsonl")
	sim, err := LoadSimulator(smallDesign, "", 7)
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(sim, RunOptions{Design: smallDesign, Out: filepath.Join(dir, "raw.jsonl"), Episodes: table, Jobs: 2, Toolkit: "test"}); err != nil {
		t.Fatal(err)
	}
	var want []ledger.Episode
	if err := ledger.ReadEpisodes(table, ledger.ReadOptions{}, func(e *ledger.Episode) error { want = append(want, *e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(one) != sim.Plan.Len() || len(want) != len(one) {
		t.Fatalf("%d episodes, Run wrote %d, the plan has %d", len(one), len(want), sim.Plan.Len())
	}
	three := collect(3)
	for i := range one {
		a, b, c := one[i], three[i], want[i]
		if a.EpisodeID != b.EpisodeID || a.EpisodeID != c.EpisodeID || a.EOS != c.EOS || a.Duplicated != c.Duplicated || a.FocalCommits != b.FocalCommits {
			t.Fatalf("episode %d: %s/%v/%v (1 job), %s (3 jobs), %s/%v/%v (Run)", i, a.EpisodeID, a.EOS, a.Duplicated, b.EpisodeID, c.EpisodeID, c.EOS, c.Duplicated)
		}
	}
	if err := Episodes("no-such-design.json", 7, 1, func(*ledger.Episode) error { return nil }); err == nil {
		t.Error("a missing design simulated")
	}
}

// CheckMergeOutput refuses an output that is a shard or would replace a
// shard's sidecar, however spelled; stdout and a new file pass.
func TestCheckMergeOutput(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(a, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	shards := []string{a, filepath.Join(dir, "b.jsonl")}
	tests := []struct {
		out, err string
	}{
		{filepath.Join(dir, "whole.jsonl"), ""},
		{"-", ""},
		{filepath.Join(dir, ".", "a.jsonl"), "is one of the shards"},
		{filepath.Join(dir, "a.ndjson"), "would replace the sidecar of shard " + a},
	}
	for _, tt := range tests {
		err := CheckMergeOutput(tt.out, shards)
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("CheckMergeOutput(%s) = %v, want %q", tt.out, err, tt.err)
		}
	}
}
