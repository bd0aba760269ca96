package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const cliCSV = "../../testdata/cli/episodes.csv"

func runPrereg(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, nil, &out, &errb)
	return code, out.String(), errb.String()
}

// TestPreregCommands runs init, check, lock and hypotheses --prereg end
// to end on the committed CLI ledger.
func TestPreregCommands(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	paper := filepath.Join(dir, "paper.yaml")
	if code, _, stderr := runPrereg(t, "prereg", "init", "--paper", "--out", paper); code != 0 {
		t.Fatalf("init: exit %d: %s", code, stderr)
	}
	if code, _, _ := runPrereg(t, "prereg", "init", "--paper", "--out", paper); code != 1 {
		t.Errorf("init over an existing file: exit %d, want 1", code)
	}
	if code, out, stderr := runPrereg(t, "prereg", "check", paper); code != 0 || !strings.Contains(out, "ok (7 hypotheses") {
		t.Errorf("check paper: exit %d: %s%s", code, out, stderr)
	}
	// The skeleton parses and checks against the ledger.
	skel := filepath.Join(dir, "skel.yaml")
	if code, _, stderr := runPrereg(t, "prereg", "init", "--out", skel); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	if code, out, stderr := runPrereg(t, "prereg", "check", skel, "--in", cliCSV); code != 0 {
		t.Errorf("check skeleton: exit %d: %s%s", code, out, stderr)
	}

	// A study with a mistyped column and a mistyped level.
	study := filepath.Join(dir, "study.yaml")
	src := `prereg: 1
hypotheses:
  - id: A
    statement: guard vs vanilla
    population: fault_fired
    outcome: duplicatd
    estimand: {kind: mcnemar, arm: condition, a: gaurd, b: vanilla, pair_by: [pair_key, contract]}
    rule: {direction: below}
`
	if err := os.WriteFile(study, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runPrereg(t, "prereg", "check", study, "--in", cliCSV)
	if code != 1 {
		t.Errorf("check with typos: exit %d, want 1", code)
	}
	for _, want := range []string{
		study + `:3: hypothesis A: outcome: the ledger has no column "duplicatd" (did you mean duplicated`,
		study + `:7: hypothesis A: condition has no level "gaurd" in the ledger (did you mean guard`,
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("check stderr lacks %q:\n%s", want, stderr)
		}
	}
	// Syntax errors: file:line, exit 1.
	if err := os.WriteFile(study, []byte("prereg: 1\nhypotheses:\n  - id: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runPrereg(t, "prereg", "check", study); code != 1 || !strings.Contains(stderr, study+":") {
		t.Errorf("syntax error: exit %d: %s", code, stderr)
	}
	if code, _, _ := runPrereg(t, "prereg", "check"); code != 2 {
		t.Errorf("check without FILE: exit %d, want 2", code)
	}

	// Evaluate the fixed study in every format; lock it and tamper with it.
	src = strings.NewReplacer("duplicatd", "eos", "gaurd", "guard", "below", "above").Replace(src)
	if err := os.WriteFile(study, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runPrereg(t, "prereg", "lock", study); code != 0 || !strings.Contains(out, "sha256") {
		t.Fatalf("lock: exit %d: %s%s", code, out, stderr)
	}
	for _, format := range []string{"text", "md", "csv", "json"} {
		code, out, stderr := runPrereg(t, "hypotheses", "--prereg", study, "--in", cliCSV, "--format", format)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		switch format {
		case "json":
			var v struct {
				Hypotheses []struct {
					ID, Verdict string
					Provenance  struct {
						PreregSHA256 string `json:"prereg_sha256"`
						LedgerSHA256 string `json:"ledger_sha256"`
						Lock         struct{ Present, Matches bool }
					}
				}
			}
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatal(err)
			}
			h := v.Hypotheses[0]
			if h.ID != "A" || h.Verdict != "supported" || len(h.Provenance.PreregSHA256) != 64 || len(h.Provenance.LedgerSHA256) != 64 || !h.Provenance.Lock.Present || !h.Provenance.Lock.Matches {
				t.Errorf("json: %+v", h)
			}
		case "csv":
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) < 2 || rows[0][0] != "id" || rows[1][3] != "supported" || rows[1][len(rows[1])-2] != "true" {
				t.Errorf("csv: %v", rows[:min(2, len(rows))])
			}
		default:
			if !strings.Contains(out, "SUPPORTED") && !strings.Contains(out, "| supported |") {
				t.Errorf("%s: no verdict:\n%s", format, out)
			}
		}
	}
	if err := os.WriteFile(study, append([]byte(src), '#'), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runPrereg(t, "hypotheses", "--prereg", study, "--in", cliCSV)
	if code != 0 || !strings.Contains(stderr, "changed after it was locked") || !strings.Contains(out, "matches the file: false") {
		t.Errorf("tampered: exit %d:\n%s\n%s", code, out, stderr)
	}

	// report --prereg writes the verdicts beside the report's files.
	rep := filepath.Join(dir, "rep")
	if code, _, stderr := runPrereg(t, "report", "--in", cliCSV, "--prereg", study, "--out", rep); code != 0 {
		t.Fatalf("report --prereg: exit %d: %s", code, stderr)
	}
	for _, name := range []string{"prereg.md", "prereg.csv", "prereg.json"} {
		b, err := os.ReadFile(filepath.Join(rep, name))
		if err != nil || !strings.Contains(string(b), "supported") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if code, _, _ := runPrereg(t, "report", "--in", cliCSV, "--prereg", filepath.Join(dir, "missing.yaml"), "--out", filepath.Join(dir, "rep2")); code != 1 {
		t.Errorf("report with a missing preregistration: exit %d, want 1", code)
	}
	if _, err := os.Stat(filepath.Join(dir, "rep2")); err == nil {
		t.Error("report wrote a directory although the preregistration was missing")
	}
}

// Issue 28, item 7 and the size limits: a user-named file that is not a
// ledger is read with a bound, so /dev/zero fails at once naming the file
// and the limit instead of growing without end.
func TestSmallFilesBounded(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"prereg", "check", "/dev/zero"}, "/dev/zero: larger than 64 MiB, the limit for a preregistration"},
		{[]string{"prereg", "lock", "/dev/zero"}, "/dev/zero: larger than 64 MiB, the limit for a preregistration"},
		{[]string{"simulate", "--design", "/dev/zero", "--out", filepath.Join(t.TempDir(), "x.jsonl")}, "/dev/zero: larger than 64 MiB, the limit for a design manifest"},
		{[]string{"simulate", "--profiles", "/dev/zero", "--out", filepath.Join(t.TempDir(), "x.jsonl")}, "/dev/zero: larger than 64 MiB, the limit for agent profiles"},
		{[]string{"power", "--design", "/dev/zero", "--reps", "1"}, "/dev/zero: larger than 64 MiB, the limit for a design manifest"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		if code != exitFailure || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want 1 and %q", c.args, code, stderr, c.want)
		}
	}
}

// Issue 28, item 7: a derived name may not shadow a column of the ledger,
// even one the schema does not know (a user's extra CSV column).
func TestPreregDeriveShadowsLedgerColumn(t *testing.T) {
	dir := t.TempDir()
	lines := readSample(t)
	for i := range lines {
		if i == 0 {
			lines[i] += ",flag"
		} else {
			lines[i] += ",x"
		}
	}
	in := filepath.Join(dir, "extra.csv")
	os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	pre := filepath.Join(dir, "p.yaml")
	os.WriteFile(pre, []byte(`prereg: 1
title: "t"
alpha: 0.05
derive:
  - {name: flag, where: 'fault_fired'}
hypotheses:
  - id: H1
    statement: "s"
    population: 'flag'
    outcome: duplicated
    estimand: {kind: rate, cluster: template}
    rule: {direction: below, bound: 5, use: interval}
`), 0o644)
	code, _, stderr := runCmd(t, "prereg", "check", pre, "--in", in)
	if code == 0 || !strings.Contains(stderr, "derive flag: the ledger has its own column flag") {
		t.Errorf("exit %d, %q; want a failure naming the shadowed column", code, stderr)
	}
}

// Issue 28, item 8: the preregistration commands do not demand a column
// the file does not use (platform), and evaluate as on the whole ledger.
func TestPreregUnusedColumnNotDemanded(t *testing.T) {
	dir := t.TempDir()
	lines := readSample(t)
	header := strings.Split(lines[0], ",")
	k := slices.Index(header, "platform")
	for i, l := range lines {
		cells := strings.Split(l, ",")
		lines[i] = strings.Join(slices.Delete(cells, k, k+1), ",")
	}
	in := filepath.Join(dir, "noplatform.csv")
	os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	pre := filepath.Join(dir, "p.yaml")
	os.WriteFile(pre, []byte(`prereg: 1
title: "t"
alpha: 0.05
hypotheses:
  - id: H1
    statement: "s"
    population: 'fault_fired'
    outcome: duplicated
    estimand: {kind: rate, cluster: template}
    rule: {direction: below, bound: 50, use: interval}
`), 0o644)
	for _, args := range [][]string{
		{"prereg", "check", pre, "--in", in},
		{"hypotheses", "--prereg", pre, "--in", in, "--format", "csv"},
		{"power", "--prereg", pre, "--pilot", in, "--reps", "2", "--sizes", "1"},
	} {
		code, _, stderr := runCmd(t, args...)
		if code != 0 || strings.Contains(stderr, "platform") {
			t.Errorf("%v: exit %d, %q; want 0 and platform not demanded", args, code, stderr)
		}
	}
	_, a, _ := runCmd(t, "hypotheses", "--prereg", pre, "--in", in, "--format", "csv")
	_, b, _ := runCmd(t, "hypotheses", "--prereg", pre, "--in", samplePath, "--format", "csv")
	strip := func(s string) string { return strings.ReplaceAll(strings.ReplaceAll(s, in, ""), samplePath, "") }
	if x, y := strip(a), strip(b); !strings.EqualFold(strings.SplitN(x, "sha256", 2)[0], strings.SplitN(y, "sha256", 2)[0]) {
		t.Errorf("verdicts differ without platform:\n%s\nvs\n%s", a, b)
	}
}
