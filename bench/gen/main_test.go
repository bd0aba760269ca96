package main

import (
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// gen replicates the base: the requested row count, unique ids, replicate
// suffixes on task and pair_key, extra columns present, every row valid.
func TestGen(t *testing.T) {
	dir := t.TempDir()
	base := filepath.Join(dir, "base.parquet")
	// The sample ledger (36 rows) as the base.
	if err := run("../../testdata/ledger/sample.csv", base, 36, 0); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "big.parquet")
	if err := run(base, out, 100, 2); err != nil {
		t.Fatal(err)
	}
	ids, tasks := map[string]bool{}, map[string]bool{}
	n := 0
	err := ledger.ReadEpisodes(out, ledger.ReadOptions{}, func(e *ledger.Episode) error {
		n++
		ids[e.EpisodeID] = true
		tasks[e.Task] = true
		if e.Extra["x1"] == "" || e.Extra["x2"] == "" {
			t.Errorf("%s: extra columns missing: %v", e.EpisodeID, e.Extra)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 100 || len(ids) != 100 {
		t.Errorf("%d rows, %d distinct ids; want 100 and 100", n, len(ids))
	}
	var baseTasks int
	seen := map[string]bool{}
	ledger.ReadEpisodes(base, ledger.ReadOptions{}, func(e *ledger.Episode) error {
		if !seen[e.Task] {
			seen[e.Task] = true
			baseTasks++
		}
		return nil
	})
	if len(tasks) <= baseTasks {
		t.Errorf("%d tasks in the output, %d in the base: replicates should add clusters", len(tasks), baseTasks)
	}
}
