package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// export --partition-by writes every row of the sample exactly once, each
// in the directory its experiment and model name, with all its columns.
func TestExportPartitioned(t *testing.T) {
	for _, per := range []int{partitionsPerPass, 2} {
		testExportPartitioned(t, per)
	}
}

// testExportPartitioned exports with at most per partitions per pass (the
// sample has 11: one pass, or six).
func testExportPartitioned(t *testing.T, per int) {
	defer func(old int) { partitionsPerPass = old }(partitionsPerPass)
	partitionsPerPass = per
	out := filepath.Join(t.TempDir(), "ds")
	code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", out, "--partition-by", "experiment,model")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var want []ledger.Episode
	if err := ledger.ReadEpisodes(samplePath, ledger.ReadOptions{}, func(e *ledger.Episode) error {
		want = append(want, *e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(out, "experiment=*", "model=*", "part-*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no part files under %s: %v", out, err)
	}
	for _, f := range files {
		if filepath.Base(f) != "part-0.parquet" {
			t.Errorf("%d per pass: %s: every partition should be one file", per, f)
		}
	}
	var got []ledger.Episode
	for _, f := range files {
		dir, _ := filepath.Rel(out, filepath.Dir(f))
		if err := ledger.ReadEpisodes(f, ledger.ReadOptions{}, func(e *ledger.Episode) error {
			if p, _ := ledger.PartitionPath(e, []string{"experiment", "model"}); p != filepath.ToSlash(dir) {
				t.Errorf("%s: episode %s belongs in %s", f, e.EpisodeID, p)
			}
			got = append(got, *e)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	byID := func(a, b ledger.Episode) int { return strings.Compare(a.EpisodeID, b.EpisodeID) }
	slices.SortFunc(want, byID)
	slices.SortFunc(got, byID)
	if len(got) != len(want) {
		t.Fatalf("%d rows in the dataset, %d in the sample", len(got), len(want))
	}
	for i := range want {
		for _, c := range ledger.EpisodeColumns {
			a, _ := want[i].Get(c.Name)
			b, _ := got[i].Get(c.Name)
			if a != b {
				t.Errorf("%s: %s = %v in the dataset, %v in the sample", want[i].EpisodeID, c.Name, b, a)
			}
		}
	}
	if !strings.Contains(stderr, "partitions") {
		t.Errorf("stderr %q does not report the partitions", stderr)
	}
}

func TestExportPartitionedRefuses(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "ds")
	code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", out, "--partition-by", "nope")
	if code != exitFailure || !strings.Contains(stderr, "nope") {
		t.Errorf("unknown column: exit %d, %q", code, stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("left %d entries behind", len(ents))
	}
}
