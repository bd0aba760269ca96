package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const replaySmall = "../../analysis/replay/testdata/small.json"

// simulate --design takes the built-in replay design by name and a small
// agent-side manifest; its graded table carries the replay columns, and
// report --design replay reads it.
func TestReplayCommands(t *testing.T) {
	dir := t.TempDir()
	raw, eps := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "r.csv")
	if code, _, stderr := runCmd(t, "simulate", "--design", replaySmall, "--out", raw, "--episodes", eps, "--jobs", "2"); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr)
	}
	head, err := os.ReadFile(eps)
	if err != nil {
		t.Fatal(err)
	}
	if hdr, _, _ := strings.Cut(string(head), "\n"); !strings.Contains(hdr, "agent_fault,crash_window,guard") || !strings.Contains(hdr, "suppressed,error_replayed,guard_answers") {
		t.Errorf("header lacks the replay columns: %s", hdr)
	}
	out := filepath.Join(dir, "rep")
	code, _, stderr := runCmd(t, "report", "--design", "replay", "--in", eps, "--out", out)
	if code != 0 {
		t.Fatalf("report --design replay: exit %d: %s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "figures", "replay.png")); err != nil {
		t.Error(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", "--design", "sideways", "--out", filepath.Join(dir, "x")}, `--design "sideways": want paper or replay`},
		{[]string{"report", "--design", "replay", "--prereg", "p.yaml", "--out", filepath.Join(dir, "x")}, "--prereg applies to --design paper"},
	} {
		if code, _, stderr := runCmd(t, c.args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if code, _, stderr := runCmd(t, "simulate", "--design", "nonesuch", "--out", filepath.Join(dir, "n.jsonl")); code == 0 || !strings.Contains(stderr, "not a built-in design (paper, replay)") {
		t.Errorf("unknown design: exit %d, %q", code, stderr)
	}
}
