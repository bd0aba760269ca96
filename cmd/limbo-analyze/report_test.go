package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/report"
)

// readTree returns every file under dir by relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTrees(t *testing.T, a, b map[string][]byte) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%d files vs %d", len(a), len(b))
	}
	for k, v := range a {
		if !bytes.Equal(v, b[k]) {
			t.Errorf("%s differs between runs", k)
		}
	}
}

// The report on a ledger is complete and byte-stable.
func TestReportFromLedger(t *testing.T) {
	t.Parallel()
	in := analysisSample(t)
	d1, d2 := filepath.Join(t.TempDir(), "r1"), filepath.Join(t.TempDir(), "r2")
	for _, d := range []string{d1, d2} {
		if code, _, errs := runCmd(t, "report", "--in", in, "--out", d); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	a := readTree(t, d1)
	sameTrees(t, a, readTree(t, d2))
	md := string(a["report.md"])
	for _, n := range paper.TableNumbers {
		if !strings.Contains(md, "\n## Table "+itoa(n)+" — ") {
			t.Errorf("report.md lacks the heading of Table %d", n)
		}
		for _, ext := range []string{"txt", "md", "tex", "csv", "json"} {
			if _, ok := a[filepath.Join("tables", "table"+itoa(n)+"."+ext)]; !ok {
				t.Errorf("missing tables/table%d.%s", n, ext)
			}
		}
	}
	if !strings.Contains(md, "\n## Hypotheses\n") {
		t.Error("report.md lacks the Hypotheses section")
	}
	for _, h := range []string{"**H1**", "**H2**", "**H3**", "**H4**", "**H5**", "**H6**"} {
		if !strings.Contains(md, h) {
			t.Errorf("report.md lacks %s", h)
		}
	}
	html := string(a["report.html"])
	for _, s := range []string{"<li>Seed: 7</li>", "limbo-analyze " + version, "Paper vs run", "<h2>Hypotheses</h2>"} {
		if !strings.Contains(html, s) {
			t.Errorf("report.html lacks %q", s)
		}
	}
	if strings.Contains(html, "src=\"http") || strings.Contains(html, "<link") {
		t.Error("report.html is not self-contained")
	}
}

// The report simulated from a fixed seed is byte-stable (it simulates the
// paper's 25,930 episodes twice).
func TestReportSeedByteStable(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("simulates the paper design twice")
	}
	d1, d2 := filepath.Join(t.TempDir(), "r1"), filepath.Join(t.TempDir(), "r2")
	for _, d := range []string{d1, d2} {
		if code, _, errs := runCmd(t, "report", "--seed", "3", "--out", d); code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
	}
	a := readTree(t, d1)
	sameTrees(t, a, readTree(t, d2))
	if !bytes.Contains(a["report.md"], []byte("- Seed: 3\n- Episodes: 25930\n")) {
		t.Errorf("report.md header:\n%s", a["report.md"][:300])
	}
}

// paperEpisodes simulates the paper design once per test binary.
func paperEpisodes(b *testing.B) *analysis.Data {
	b.Helper()
	d, err := report.SimulatePaper(defaultSeed)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkTablesAndHypotheses: every table and hypothesis on the paper's
// 25,930 episodes (simulation excluded).
func BenchmarkTablesAndHypotheses(b *testing.B) {
	d := paperEpisodes(b)
	tools := report.Tools()
	for b.Loop() {
		paper.Analyze(d, paper.Options{Tools: tools})
	}
}

// BenchmarkReport: the whole `report` command without --in: simulation,
// analysis, figures (when a renderer is wired) and every file.
func BenchmarkReport(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		var out, errb bytes.Buffer
		if code := run([]string{"report", "--out", dir}, strings.NewReader(""), &out, &errb); code != 0 {
			b.Fatal(errb.String())
		}
	}
}
