package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// relabel writes the sample CSV with every harness set to h.
func relabel(t *testing.T, dir, name, h string) string {
	t.Helper()
	var out []string
	for i, l := range readSample(t) {
		if i > 0 {
			c := strings.Split(l, ",")
			c[3] = h
			l = strings.Join(c, ",")
		}
		out = append(out, l)
	}
	p := filepath.Join(dir, name)
	writeFile(t, p, strings.Join(out, "\n")+"\n")
	return p
}

// Issue 37, case 4, and issue 36's gate output: no pass without evidence,
// a refusal naming the counts when the candidate matches too little of the
// baseline, the verdict once, the ledger warnings capped.
func TestGateCLI(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.csv")
	lines := readSample(t)
	writeFile(t, one, lines[0]+"\n"+lines[1]+"\n")

	// A crashed candidate: one episode of 36. Before: "gate pass … over 1
	// pairs … p = 0", exit 0.
	code, stdout, stderr := runCmd(t, "gate", "--in", one, "--baseline", samplePath, "--margin", "0.05")
	if code != exitFailure || stdout != "" || !strings.Contains(stderr, "only 1 of the baseline's 36 episodes (2.8%) have a partner among the candidate's 1; the gate needs 95% (--min-matched)") {
		t.Errorf("one-episode candidate: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// The share is the flag's: at 0.02 the pair is matched, and the test
	// has no evidence.
	code, stdout, _ = runCmd(t, "gate", "--in", one, "--baseline", samplePath, "--margin", "0.05", "--min-matched", "0.02")
	if code != exitFailure || !strings.HasPrefix(stdout, "gate FAIL: duplicated candidate − baseline = +0.0000 over 1 pairs") {
		t.Errorf("one pair: exit %d, %q; want FAIL", code, stdout)
	}
	for _, bad := range []string{"0", "1.5", "-1"} {
		if code, _, stderr := runCmd(t, "gate", "--in", one, "--baseline", samplePath, "--margin", "0.05", "--min-matched", bad); code != exitUsage || !strings.Contains(stderr, "--min-matched") {
			t.Errorf("--min-matched %s: exit %d, %q; want 2", bad, code, stderr)
		}
	}

	// Identical runs of 36 episodes: no discordance, but not enough pairs
	// to exclude a 5-point worsening (the score interval reaches 0.070).
	// The verdict is printed once, on stdout; stderr does not repeat it.
	code, stdout, stderr = runCmd(t, "gate", "--in", samplePath, "--baseline", samplePath, "--margin", "0.05")
	if code != exitFailure || strings.Count(stdout, "\n") != 1 || !strings.Contains(stdout, "gate FAIL") || !strings.Contains(stdout, "90% score [-0.0699, 0.0699]") {
		t.Errorf("36 identical pairs: exit %d, stdout %q", code, stdout)
	}
	if strings.Contains(stderr, "gate FAIL") || strings.Contains(stderr, "Newcombe") || !strings.Contains(stderr, "gate failed over 36 pairs") {
		t.Errorf("stderr %q: want the failure and its pairs, not the verdict again", stderr)
	}
	// Enough identical pairs pass (4,460 episodes).
	big := analysisSample(t)
	code, stdout, stderr = runCmd(t, "gate", "--in", big, "--baseline", big, "--margin", "0.02")
	if code != 0 || !strings.HasPrefix(stdout, "gate pass") || strings.Count(stdout+stderr, "gate pass") != 1 {
		t.Errorf("4,460 identical pairs: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}

	// A harness label outside the paper's warns on every row: 72 warnings
	// for two 36-episode ledgers before, five of a kind now and a count.
	a, b := relabel(t, dir, "a.csv", "my-harness"), relabel(t, dir, "b.csv", "my-harness")
	_, _, stderr = runCmd(t, "gate", "--in", a, "--baseline", b, "--margin", "0.05")
	if n := strings.Count(stderr, `harness: warning: "my-harness" is not one of the paper's harnesses`); n != 2*5+2 {
		t.Errorf("%d harness warning lines, want 5 per file and one count each:\n%s", n, stderr)
	}
	if !strings.Contains(stderr, "(and 31 more like this)") {
		t.Errorf("no count of the warnings not shown:\n%s", stderr)
	}
	// The toolkit's own Inspect harness label is not a warning at all.
	a, b = relabel(t, dir, "ia.csv", "inspect"), relabel(t, dir, "ib.csv", "inspect")
	if _, _, stderr = runCmd(t, "gate", "--in", a, "--baseline", b, "--margin", "0.05"); strings.Contains(stderr, "harness") {
		t.Errorf("the Inspect task's harness label warns:\n%s", stderr)
	}
	if _, err := os.Stat(one); err != nil {
		t.Fatal(err)
	}
}
