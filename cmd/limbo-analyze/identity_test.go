package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/ledgertest"
)

// Issue 37, case 1: a ledger that holds an episode twice (a row copied, a
// part file copied beside itself by a sync tool) is refused by every
// command, whatever columns the command reads, in every format: before,
// rates, means, model, tost and shapley counted the copy (n 38 for 36
// episodes) and exited 0.
func TestDuplicateEpisodesRefused(t *testing.T) {
	dir := t.TempDir()
	sample, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(sample), "\n")
	// CSV: the first data row again at the end.
	csvDup := filepath.Join(dir, "dup.csv")
	writeFile(t, csvDup, string(sample)+lines[1])
	// Parquet: the first episode twice.
	eps := ledgertest.ReadEpisodes(t, samplePath)
	pqDup := filepath.Join(dir, "dup.parquet")
	ledgertest.WriteParquet(t, pqDup, append(eps, eps[0]))
	// Graded JSONL: a line twice.
	graded, err := os.ReadFile("../../testdata/ledger/sample.graded.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	jsonlDup := filepath.Join(dir, "dup.jsonl")
	writeFile(t, jsonlDup, string(graded)+strings.SplitAfter(string(graded), "\n")[0])
	// A partitioned dataset with one part file copied beside itself.
	ds := filepath.Join(dir, "ds")
	if code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", ds, "--partition-by", "model"); code != 0 {
		t.Fatalf("export: %d %s", code, stderr)
	}
	part := filepath.Join(ds, "model=gpt-4.1", "part-0.parquet")
	b, err := os.ReadFile(part)
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(ds, "model=gpt-4.1", "part-0 (1).parquet"), string(b))
	// Two files of one glob holding the same episode.
	globDir := filepath.Join(dir, "glob")
	if err := os.Mkdir(globDir, 0o755); err != nil {
		t.Fatal(err)
	}
	ledgertest.WriteParquet(t, filepath.Join(globDir, "a.parquet"), eps)
	ledgertest.WriteParquet(t, filepath.Join(globDir, "b.parquet"), eps[:1])

	commands := [][]string{
		{"rates", "--outcome", "duplicated"},
		{"rates", "--outcome", "duplicated", "--by", "model", "--where", "fault_fired"},
		{"means", "--outcome", "tool_calls"},
		{"model", "--formula", "duplicated ~ contract"},
		{"model", "--family", "gee", "--formula", "eos ~ condition", "--group", "task"},
		{"tost", "--outcome", "eos", "--arm", "condition", "--a", "vanilla", "--b", "aware", "--margin", "0.05"},
		{"shapley", "--formula", "duplicated ~ contract + fault_mode"},
		{"paired", "--outcome", "eos", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key"},
		{"tables"},
		{"hypotheses"},
	}
	sources := []struct{ name, in string }{
		{"csv", csvDup},
		{"parquet", pqDup},
		{"jsonl", jsonlDup},
		{"dataset", ds},
		{"glob", filepath.Join(globDir, "*.parquet")},
	}
	for _, src := range sources {
		for _, cmd := range commands {
			t.Run(src.name+"/"+strings.Join(cmd, " "), func(t *testing.T) {
				args := append(append([]string{}, cmd...), "--in", src.in)
				code, stdout, stderr := runCmd(t, args...)
				if code != exitFailure || !strings.Contains(stderr, "episode_id: duplicate") {
					t.Fatalf("exit %d, stderr %q, stdout %q; want exit 1 naming the duplicate episode_id", code, stderr, stdout)
				}
				if stdout != "" {
					t.Errorf("a refused ledger printed results:\n%s", stdout)
				}
			})
		}
		t.Run(src.name+"/gate", func(t *testing.T) {
			for _, args := range [][]string{
				{"gate", "--in", src.in, "--baseline", samplePath, "--margin", "0.05"},
				{"gate", "--in", samplePath, "--baseline", src.in, "--margin", "0.05"},
			} {
				code, _, stderr := runCmd(t, args...)
				if code != exitFailure || !strings.Contains(stderr, "episode_id: duplicate") {
					t.Errorf("%v: exit %d, stderr %q; want exit 1 naming the duplicate", args, code, stderr)
				}
			}
		})
	}
}

func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
