package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/outfile"
)

// Issue 37, case 2: a report or viewer directory owns only the files the
// tool wrote into it (its manifest). A re-run over it replaces exactly
// those and refuses, naming it and changing nothing, any other file at any
// depth; before, report deleted tables/mine.csv and figures/deep/keep.txt
// and view even a top-level notes.txt, exit 0.
func TestOutputsOwnOnlyWhatTheyWrote(t *testing.T) {
	in := analysisSample(t)
	sample := "../../testdata/ledger/sample.jsonl"
	tools := []struct {
		name string
		run  func(out string) (int, string, string)
		mine []string // user files to plant, one at a time
	}{
		{"report", func(out string) (int, string, string) { return runCmd(t, "report", "--in", in, "--out", out) },
			[]string{"tables/mine.csv", "figures/deep/keep.txt", "notes.txt", "figure-data/figure9.csv.bak"}},
		{"view", func(out string) (int, string, string) { return runCmd(t, "view", sample, "--out", out) },
			[]string{"notes.txt", "data/mine.js", "deep/er/keep.txt"}},
	}
	for _, tool := range tools {
		t.Run(tool.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			if code, _, stderr := tool.run(out); code != 0 {
				t.Fatalf("first run: exit %d: %s", code, stderr)
			}
			manifest, err := os.ReadFile(filepath.Join(out, outfile.ManifestName))
			if err != nil {
				t.Fatalf("no manifest: %v", err)
			}
			first := readTree(t, out)
			for name := range first {
				if name != outfile.ManifestName && !strings.Contains(string(manifest), "\n"+filepath.ToSlash(name)+"\n") {
					t.Errorf("%s is not in the manifest", name)
				}
			}
			// A re-run over its own output replaces it.
			if code, _, stderr := tool.run(out); code != 0 {
				t.Fatalf("re-run: exit %d: %s", code, stderr)
			}
			sameTrees(t, first, readTree(t, out))
			for _, mine := range tool.mine {
				p := filepath.Join(out, filepath.FromSlash(mine))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte("mine"), 0o644); err != nil {
					t.Fatal(err)
				}
				before := readTree(t, out)
				code, _, stderr := tool.run(out)
				if code != exitUsage || !strings.Contains(stderr, mine) {
					t.Errorf("%s planted: exit %d, %q; want 2 naming it", mine, code, stderr)
				}
				sameTrees(t, before, readTree(t, out))
				os.Remove(p)
				os.Remove(filepath.Dir(p)) // an empty directory is not the tool's either
				if d := filepath.Dir(filepath.Dir(p)); d != out {
					os.Remove(d)
				}
			}
			// A directory an earlier version wrote (no manifest) is replaced
			// when every file in it is one the tool writes, and refused
			// otherwise.
			os.Remove(filepath.Join(out, outfile.ManifestName))
			if code, _, stderr := tool.run(out); code != 0 {
				t.Fatalf("re-run over a directory without a manifest: exit %d: %s", code, stderr)
			}
			os.Remove(filepath.Join(out, outfile.ManifestName))
			os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
			if code, _, stderr := tool.run(out); code != exitUsage || !strings.Contains(stderr, "notes.txt") {
				t.Errorf("no manifest, a foreign file: exit %d, %q; want 2 naming it", code, stderr)
			}
			if b, _ := os.ReadFile(filepath.Join(out, "notes.txt")); string(b) != "mine" {
				t.Error("the foreign file was changed")
			}
		})
	}
}

// A directory another command owns is not this one's: a report over a
// viewer site is refused, the site left as it was.
func TestReportOverASite(t *testing.T) {
	site := filepath.Join(t.TempDir(), "site")
	if code, _, stderr := runCmd(t, "view", "../../testdata/ledger/sample.jsonl", "--out", site); code != 0 {
		t.Fatalf("view: exit %d: %s", code, stderr)
	}
	before := readTree(t, site)
	code, _, stderr := runCmd(t, "report", "--in", analysisSample(t), "--out", site)
	if code != exitUsage || !strings.Contains(stderr, "which the report did not write") {
		t.Errorf("report over a site: exit %d, %q; want 2", code, stderr)
	}
	sameTrees(t, before, readTree(t, site))
}
