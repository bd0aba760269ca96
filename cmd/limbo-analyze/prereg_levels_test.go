package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreregCheckWhereLevels: `prereg check --in` reports a mistyped
// level inside a population as file:line with a suggestion (exit 1), a
// known level the ledger lacks as a warning (exit 0); `hypotheses
// --prereg` warns about the typo and still evaluates.
func TestPreregCheckWhereLevels(t *testing.T) {
	dir := t.TempDir()
	study := filepath.Join(dir, "study.yaml")
	src := `prereg: 1
hypotheses:
  - id: A
    statement: the guard keeps duplicates low
    population: 'fault_fired && condition == "gaurd"'
    outcome: duplicated
    estimand: {kind: rate}
    rule: {direction: below, bound: 5}
`
	if err := os.WriteFile(study, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	want := study + `:5: hypothesis A: population: level "gaurd" not in column condition; did you mean "guard"?`
	code, _, stderr := runPrereg(t, "prereg", "check", study, "--in", cliCSV)
	if code != 1 || !strings.Contains(stderr, want+"\n") {
		t.Errorf("check: exit %d, stderr:\n%s\nwant the line %q", code, stderr, want)
	}
	code, out, stderr := runPrereg(t, "hypotheses", "--prereg", study, "--in", cliCSV)
	if code != 0 || !strings.Contains(stderr, "warning: "+want) || !strings.Contains(out, want) {
		t.Errorf("hypotheses: exit %d, stdout:\n%s\nstderr:\n%s", code, out, stderr)
	}

	// A level of the paper's design the ledger lacks: a warning only.
	pilot := strings.Replace(src, `"gaurd"`, `"reflect"`, 1)
	if err := os.WriteFile(study, []byte(pilot), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runPrereg(t, "prereg", "check", study, "--in", cliCSV)
	if code != 0 || !strings.Contains(stderr, study+`:5: warning: hypothesis A: population: level "reflect" not in column condition of this ledger`) || !strings.Contains(out, "ok") {
		t.Errorf("check pilot: exit %d, stdout %q, stderr:\n%s", code, out, stderr)
	}
}
