package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
)

// -update-sim rewrites the pinned hash of the small simulation (for a
// deliberate change of the sandbox, agent or design).
var updateSim = flag.Bool("update-sim", false, "rewrite testdata/sim/small.sha256")

const smallDesign = "../../testdata/sim/small.json"

func simulateBytes(t *testing.T, extra ...string) []byte {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "run.jsonl")
	args := append([]string{"simulate", "--design", smallDesign, "--seed", "7", "--out", out}, extra...)
	var stderr bytes.Buffer
	if code := run(args, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("simulate %v: exit %d: %s", extra, code, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "run.meta.json")); err != nil {
		t.Errorf("no sidecar: %v", err)
	}
	return b
}

// Same seed, same bytes, whatever --jobs; shards concatenated equal the run;
// the bytes are pinned by hash.
func TestSimulateDeterminism(t *testing.T) {
	one := simulateBytes(t, "--jobs", "1")
	three := simulateBytes(t, "--jobs", "3")
	if !bytes.Equal(one, three) {
		t.Fatal("--jobs 1 and --jobs 3 differ")
	}
	var cat []byte
	for _, s := range []string{"1/3", "2/3", "3/3"} {
		cat = append(cat, simulateBytes(t, "--jobs", "2", "--shard", s)...)
	}
	if !bytes.Equal(one, cat) {
		t.Fatal("shards 1/3..3/3 concatenated differ from the whole run")
	}
	if n := bytes.Count(one, []byte("\n")); n != 2304 {
		t.Errorf("%d lines, want 2304 (one per episode)", n)
	}
	sum := sha256.Sum256(one)
	got := hex.EncodeToString(sum[:])
	// A changed pin means the simulation's bytes changed: rewrite it with
	// -update-sim only when that is deliberate.
	testfile.CheckGolden(t, "../../testdata/sim/small.sha256", []byte(got+"\n"), *updateSim)
}

// simulate --episodes writes the graded table; grade regrades the raw
// ledger to the same rows.
func TestSimulateEpisodesAndGrade(t *testing.T) {
	dir := t.TempDir()
	raw := filepath.Join(dir, "run.jsonl")
	eps := filepath.Join(dir, "run.csv")
	var stderr bytes.Buffer
	if code := run([]string{"simulate", "--design", smallDesign, "--out", raw, "--episodes", eps, "--shard", "1/8"}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, stderr.String())
	}
	regraded := filepath.Join(dir, "regraded.csv")
	if code := run([]string{"grade", raw, "--out", regraded}, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("grade: exit %d: %s", code, stderr.String())
	}
	a, err := os.ReadFile(eps)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(regraded)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("graded table from simulate differs from grade of the raw ledger")
	}
	var n, dups int
	if err := ledger.ReadEpisodes(eps, ledger.ReadOptions{}, func(e *ledger.Episode) error {
		n++
		if e.Duplicated {
			dups++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if n != 288 || dups == 0 {
		t.Errorf("%d episodes (%d duplicated), want 288 with some duplicates", n, dups)
	}
}

func TestSimulateUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"simulate"}, exitUsage, "--out is required"},
		{[]string{"simulate", "--out", "x.jsonl", "--shard", "3/2"}, exitUsage, "--shard"},
		{[]string{"simulate", "--out", "x.jsonl", "--shard", "a"}, exitUsage, "--shard"},
		{[]string{"simulate", "--out", filepath.Join(t.TempDir(), "x.jsonl"), "--design", "nope.json"}, exitFailure, "nope.json"},
		{[]string{"grade", "in.jsonl"}, exitUsage, "--out is required"},
		{[]string{"simulate", "--out", "x.txt"}, exitUsage, "--out x.txt: the raw ledger is JSONL"},
		{[]string{"simulate", "--out", "x.jsonl", "--episodes", "x.xlsx"}, exitUsage, "--episodes x.xlsx: want a .parquet, .csv or .jsonl name"},
		{[]string{"simulate", "--out", "x.jsonl", "--episodes", "./x.jsonl"}, exitUsage, "--episodes and --out name the same file ./x.jsonl"},
		{[]string{"simulate", "--out", filepath.Join(t.TempDir(), "x.jsonl"), "--design", "nope"}, exitFailure, "--design nope: not a built-in design (paper, replay) and no such manifest file"},
		{[]string{"grade", "in.jsonl", "--out", "x.txt"}, exitUsage, "--out x.txt: name it .parquet, .csv or .jsonl"},
		{[]string{"grade", "in.jsonl", "--out", "x.csv", "--format", "xls"}, exitUsage, `--format "xls": want parquet, csv or jsonl`},
		{[]string{"report", "--out", "simulate_test.go"}, exitUsage, "--out simulate_test.go is a file; want a directory"},
		{[]string{"figures", "--in", "x.csv", "--out", "simulate_test.go"}, exitUsage, "--out simulate_test.go is a file; want a directory"},
		// Usage mistakes found by cobra are exit 2 with one plain line.
		{[]string{"simulate", "--out", "x.jsonl", "--seed", "-1"}, exitUsage, `--seed "-1": want a whole number ≥ 0 (see 'limbo-analyze simulate --help')`},
		{[]string{"tables", "--table", "x"}, exitUsage, `--table "x": want an integer`},
		{[]string{"grade"}, exitUsage, "grade: accepts 1 arg(s), received 0"},
		{[]string{"version", "extra"}, exitUsage, `unknown command "extra"`},
		{[]string{"nosuchcmd"}, exitUsage, `unknown command "nosuchcmd"`},
	} {
		var stderr bytes.Buffer
		code := run(c.args, nil, io.Discard, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.msg) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, stderr.String(), c.code, c.msg)
		}
	}
}

// A bad profile file is reported with its name and field before any output.
func TestSimulateBadProfiles(t *testing.T) {
	dir := t.TempDir()
	prof := filepath.Join(dir, "p.json")
	os.WriteFile(prof, []byte(`{"version":1,"noise":0,"time":{"think_min_s":1,"think_max_s":2,"jitter_mean_s":1,"patience_min_s":1,"patience_max_s":2,"in_progress_wait_s":1,"oracle_poll_s":1,"max_polls":1},
"report":{"completed":1,"silent":1},"models":[{"name":"gpt-6-sol","v_to":2}]}`), 0o644)
	out := filepath.Join(dir, "x.jsonl")
	var stderr bytes.Buffer
	code := run([]string{"simulate", "--design", smallDesign, "--profiles", prof, "--out", out}, nil, io.Discard, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "p.json") || !strings.Contains(stderr.String(), "v_to") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("output written despite the error")
	}
}

// --out - streams the raw ledger to stdout, the same bytes as a file.
func TestSimulateStdout(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"simulate", "--design", smallDesign, "--seed", "7", "--out", "-", "--shard", "2/16"}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if file := simulateBytes(t, "--shard", "2/16"); !bytes.Equal(stdout.Bytes(), file) {
		t.Error("stdout and file output differ")
	}
}
