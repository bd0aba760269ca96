package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/sandbox"
)

func TestProve(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"prove"}, nil, &out, &errb); code != exitOK {
		t.Fatalf("prove: exit %d, stderr %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{"Proposition 1\n", "Proposition 2\n", "PASS: Proposition 1", "PASS: Proposition 2", "T09#0", "tail 7200s"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if strings.Contains(s, "FAIL") {
		t.Error("output reports a failure")
	}
}

// Switching key deduplication off in the sandbox must make prove fail.
func TestProveFailsWithoutDedup(t *testing.T) {
	restore := sandbox.DisableKeyDedupForTesting()
	defer restore()
	var out, errb bytes.Buffer
	if code := run([]string{"prove", "--grid", "30,3600", "--tail", "7200"}, nil, &out, &errb); code != exitFailure {
		t.Fatalf("prove without dedup: exit %d, want %d", code, exitFailure)
	}
	if !strings.Contains(out.String(), "FAIL: Proposition 2") || !strings.Contains(out.String(), "PASS: Proposition 1") {
		t.Errorf("want Proposition 1 to pass and 2 to fail:\n%s", out.String())
	}
}

func TestProveUsage(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"prove", "--grid", "abc"}, nil, &out, &errb); code != exitUsage {
		t.Errorf("bad --grid: exit %d, want %d", code, exitUsage)
	}
}
