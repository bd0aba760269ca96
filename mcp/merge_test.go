package mcp

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/design"
)

// MergeAny merges driven shards as MergeShards does and simulated ones as
// design.Merge does, naming the kind.
func TestMergeAny(t *testing.T) {
	plan, err := DefaultPlan(1, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	driven := []string{writeDriven(t, dir, plan, "2/2", reversed), writeDriven(t, dir, plan, "1/2", reversed)}
	n, kind, err := MergeAny(filepath.Join(dir, "driven.jsonl"), nil, driven)
	if err != nil || n != plan.Len() || kind != "driven shards" {
		t.Errorf("driven: %d episodes, kind %q, err %v; want %d, driven shards", n, kind, err, plan.Len())
	}

	sim, err := design.LoadSimulator("paper", "", 1)
	if err != nil {
		t.Fatal(err)
	}
	var simulated []string
	for _, s := range []string{"1/4000", "2/4000"} {
		p := filepath.Join(dir, "sim-"+s[:1]+".jsonl")
		if err := design.Run(sim, design.RunOptions{Design: "paper", Out: p, Jobs: 1, Shard: s, Toolkit: "test"}); err != nil {
			t.Fatal(err)
		}
		simulated = append(simulated, p)
	}
	var out bytes.Buffer
	n, kind, err = MergeAny("-", &out, simulated)
	// Two shards of 4,000 are not the whole run: design.Merge refuses them,
	// which shows the simulated path was taken.
	if err == nil || !strings.HasPrefix(err.Error(), "incomplete run: ") || kind != "shards" {
		t.Errorf("simulated: %d episodes, kind %q, err %.200v; want design.Merge's refusal of a partial run", n, kind, err)
	}
}
