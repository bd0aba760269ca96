package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/table"
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
func paperEpisodes(b *testing.B) *table.Data {
	b.Helper()
	d, err := paper.Simulate(defaultSeed)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkTablesAndHypotheses: every table and hypothesis on the paper's
// 25,930 episodes (simulation excluded).
func BenchmarkTablesAndHypotheses(b *testing.B) {
	d := paperEpisodes(b)
	tools := paper.NativeTools()
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

// Issue 28, item 5: a report written over an earlier one leaves exactly
// one run's outputs: a report of a minimal ledger over a full one holds
// the files a fresh run of it writes, no stale table or prereg.md; a
// directory holding files no report writes is refused (exit 2).
func TestReportReplacesEarlierReport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "rep")
	if code, _, stderr := runCmd(t, "report", "--in", analysisSample(t), "--out", out, "--prereg", "../../analysis/prereg/testdata/study.yaml"); code != 0 {
		t.Fatalf("full report: exit %d: %s", code, stderr)
	}
	full := readTree(t, out)
	// A minimal ledger: the columns of rates alone.
	var lines []string
	for i, l := range readSample(t) {
		c := strings.Split(l, ",")
		if i == 0 {
			lines = append(lines, "episode_id,model,fault_fired,duplicated")
			continue
		}
		lines = append(lines, strings.Join([]string{c[0], c[2], c[19], c[25]}, ","))
	}
	minimal := filepath.Join(dir, "minimal.csv")
	os.WriteFile(minimal, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	if code, _, stderr := runCmd(t, "report", "--in", minimal, "--out", out); code != 0 {
		t.Fatalf("minimal report over the full one: exit %d: %s", code, stderr)
	}
	fresh := filepath.Join(dir, "fresh")
	if code, _, stderr := runCmd(t, "report", "--in", minimal, "--out", fresh); code != 0 {
		t.Fatalf("fresh minimal report: exit %d: %s", code, stderr)
	}
	got, want := readTree(t, out), readTree(t, fresh)
	if len(got) >= len(full) {
		t.Errorf("%d files after the minimal report, %d after the full one", len(got), len(full))
	}
	for name := range got {
		if _, ok := want[name]; !ok {
			t.Errorf("stale %s left by the earlier report", name)
		}
	}
	for name := range want {
		if _, ok := got[name]; !ok {
			t.Errorf("%s missing", name)
		}
	}
	if h := hidden(t, dir); len(h) > 0 {
		t.Errorf("temporary entries left: %v", h)
	}
	// A file that is not a report's refuses the directory, untouched.
	os.WriteFile(filepath.Join(out, "notes.txt"), []byte("mine"), 0o644)
	code, _, stderr := runCmd(t, "report", "--in", minimal, "--out", out)
	if code != exitUsage || !strings.Contains(stderr, "holds notes.txt, which the report did not write") {
		t.Errorf("foreign file: exit %d, %q; want 2 and the file named", code, stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "notes.txt")); string(b) != "mine" {
		t.Error("the foreign file was changed")
	}
}
