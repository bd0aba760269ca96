package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"
	"github.com/limbo-toolkit/limbo/mcp"
)

// TestPreregLockPredatesLedger: `hypotheses --prereg` says whether the
// lock predates the ledger from each source of its creation time, warns
// when the lock is later, and refuses a malformed --ledger-created.
func TestPreregLockPredatesLedger(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	study := filepath.Join(dir, "study.yaml")
	if code, _, stderr := runPrereg(t, "prereg", "init", "--out", study); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	if code, _, stderr := runPrereg(t, "prereg", "lock", study); code != 0 {
		t.Fatalf("lock: %s", stderr)
	}
	data, err := os.ReadFile(cliCSV)
	if err != nil {
		t.Fatal(err)
	}
	// The lock was written just now: a day ago is before it, a day ahead after.
	past, future := time.Now().Add(-24*time.Hour), time.Now().Add(24*time.Hour)
	ledgerIn := func(name string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	driven := ledgerIn("driven.csv")
	if err := mcp.WriteCreated(driven, future); err != nil {
		t.Fatal(err)
	}
	drivenEarly := ledgerIn("early.csv")
	if err := mcp.WriteCreated(drivenEarly, past); err != nil {
		t.Fatal(err)
	}
	simulated := ledgerIn("sim.csv")
	if err := os.WriteFile(filepath.Join(dir, "sim.meta.json"), []byte(`{"seed": 9}`), 0o644); err != nil {
		t.Fatal(err)
	}
	foreign := ledgerIn("foreign.csv")

	tests := []struct {
		name     string
		args     []string
		predates string
		warn     bool
	}{
		{"drive sidecar, later", []string{"--in", driven}, "yes", false},
		{"drive sidecar, earlier", []string{"--in", drivenEarly}, "no", true},
		{"simulated", []string{"--in", simulated}, "not applicable: simulated (seed 9)", false},
		{"foreign", []string{"--in", foreign}, "unknown", false},
		{"flag", []string{"--in", foreign, "--ledger-created", future.UTC().Format(time.RFC3339)}, "yes", false},
		{"flag over the sidecar", []string{"--in", driven, "--ledger-created", past.Format(time.RFC3339)}, "no", true},
	}
	for _, tt := range tests {
		code, out, stderr := runPrereg(t, append([]string{"hypotheses", "--prereg", study, "--format", "json"}, tt.args...)...)
		if code != 0 {
			t.Errorf("%s: exit %d: %s", tt.name, code, stderr)
			continue
		}
		var v struct {
			Hypotheses []struct {
				Provenance struct {
					Lock struct {
						PredatesLedger string `json:"predates_ledger"`
					} `json:"lock"`
				} `json:"provenance"`
			} `json:"hypotheses"`
		}
		if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Hypotheses) == 0 {
			t.Fatalf("%s: %v\n%s", tt.name, err, out)
		}
		if got := v.Hypotheses[0].Provenance.Lock.PredatesLedger; got != tt.predates {
			t.Errorf("%s: predates %q, want %q", tt.name, got, tt.predates)
		}
		if warned := strings.Contains(stderr, "does not predate the data"); warned != tt.warn {
			t.Errorf("%s: stderr %q, want the late-lock warning: %v", tt.name, stderr, tt.warn)
		}
	}

	for _, args := range [][]string{
		{"--prereg", study, "--in", foreign, "--ledger-created", "yesterday"},
		{"--prereg", study, "--in", foreign, "--ledger-created", "2026-03-01 12:00"},
		{"--in", foreign, "--ledger-created", "2026-03-01T12:00:00Z"}, // without --prereg
	} {
		code, _, stderr := runPrereg(t, append([]string{"hypotheses"}, args...)...)
		if code != 2 || !strings.Contains(stderr, "--ledger-created") {
			t.Errorf("%v: exit %d, stderr %q; want a usage error naming the flag", args, code, stderr)
		}
	}
	// report --prereg --in takes the same flag into prereg.json, and
	// refuses it without --in or malformed, before writing anything.
	repOut := filepath.Join(dir, "report")
	if code, _, stderr := runPrereg(t, "report", "--prereg", study, "--in", foreign, "--out", repOut,
		"--ledger-created", future.UTC().Format(time.RFC3339)); code != 0 {
		t.Fatalf("report --ledger-created: exit %d: %s", code, stderr)
	}
	pj, err := os.ReadFile(filepath.Join(repOut, "prereg.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(pj), `"predates_ledger": "yes"`) {
		t.Errorf("report prereg.json lacks predates_ledger yes:\n%.600s", pj)
	}
	for _, args := range [][]string{
		{"--prereg", study, "--ledger-created", "2026-03-01T12:00:00Z"}, // simulated: no --in
		{"--prereg", study, "--in", foreign, "--ledger-created", "yesterday"},
	} {
		o := filepath.Join(dir, "refused")
		code, _, stderr := runPrereg(t, append([]string{"report", "--out", o}, args...)...)
		if _, serr := os.Stat(o); code != 2 || !strings.Contains(stderr, "--ledger-created") || serr == nil {
			t.Errorf("report %v: exit %d, stderr %q, output left: %v; want a usage error and no output", args, code, stderr, serr == nil)
		}
	}
	// A malformed sidecar is an error naming it.
	bad := ledgerIn("bad.csv")
	if err := os.WriteFile(mcp.CreatedPath(bad), []byte(`{"created_utc": "noon"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runPrereg(t, "hypotheses", "--prereg", study, "--in", bad)
	if code != 1 || !strings.Contains(stderr, mcp.CreatedPath(bad)) || !strings.Contains(stderr, "created_utc") {
		t.Errorf("malformed sidecar: exit %d, stderr %q", code, stderr)
	}
}

// TestReportPreregSimulated: `report --prereg` without --in simulates in
// process; its provenance carries the seed, and the lock's order is "not
// applicable" (the simulation is reproduced from its seed).
func TestReportPreregSimulated(t *testing.T) {
	eps := ledgertest.ReadEpisodes(t, cliCSV)
	old := simulatePaper
	t.Cleanup(func() { simulatePaper = old })
	simulatePaper = func(seed uint64) (*table.Data, error) {
		return table.NewData(eps), nil
	}
	dir := t.TempDir()
	study := filepath.Join(dir, "study.yaml")
	if code, _, stderr := runPrereg(t, "prereg", "init", "--out", study); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	if code, _, stderr := runPrereg(t, "prereg", "lock", study); code != 0 {
		t.Fatalf("lock: %s", stderr)
	}
	out := filepath.Join(dir, "rep")
	if code, _, stderr := runPrereg(t, "report", "--prereg", study, "--seed", "3", "--out", out); code != 0 {
		t.Fatalf("report: exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(filepath.Join(out, "prereg.json"))
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Hypotheses []struct {
			Provenance struct {
				Seed string `json:"seed"`
				Lock struct {
					PredatesLedger string `json:"predates_ledger"`
				} `json:"lock"`
			} `json:"provenance"`
		} `json:"hypotheses"`
	}
	if err := json.Unmarshal(b, &v); err != nil || len(v.Hypotheses) == 0 {
		t.Fatalf("prereg.json: %v\n%s", err, b)
	}
	p := v.Hypotheses[0].Provenance
	if p.Seed != "3" || p.Lock.PredatesLedger != "not applicable: simulated (seed 3)" {
		t.Errorf("provenance %+v", p)
	}
}
