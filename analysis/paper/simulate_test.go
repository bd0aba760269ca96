package paper

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

func TestRunSeed(t *testing.T) {
	d := table.NewData([]*ledger.Episode{{Seed: 7}, {Seed: 7}})
	dir := t.TempDir()
	withSidecar := filepath.Join(dir, "run.jsonl")
	if err := os.WriteFile(filepath.Join(dir, "run.meta.json"), []byte(`{"seed": 42}`), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in string
		d        *table.Data
		want     string
	}{
		{"sidecar wins", withSidecar, d, "42"},
		{"shared episode seed", filepath.Join(dir, "other.csv"), d, "7"},
		{"mixed seeds", "", table.NewData([]*ledger.Episode{{Seed: 1}, {Seed: 2}}), ""},
	}
	for _, tc := range tests {
		if got := RunSeed(tc.in, tc.d); got != tc.want {
			t.Errorf("%s: RunSeed = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestTools(t *testing.T) {
	tools := NativeTools()
	cat := sandbox.Catalogue(ledger.ContractNative)
	if len(tools) != len(cat) || len(tools) == 0 {
		t.Fatalf("%d tools, want the %d of the native catalogue", len(tools), len(cat))
	}
	for i, s := range cat {
		if tools[i].Name != s.Name || tools[i].Write != s.Write || tools[i].Description != s.Description {
			t.Errorf("tool %d = %+v, want %s", i, tools[i], s.Name)
		}
	}
}
