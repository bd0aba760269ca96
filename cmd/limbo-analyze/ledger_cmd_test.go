package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

const samplePath = "../../testdata/ledger/sample.csv"

// runCmd runs the command in-process and returns exit code, stdout, stderr.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func readSample(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// sampleJSONL returns the sample as graded JSONL lines (via export).
func sampleJSONL(t *testing.T) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", p); code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func TestValidateSample(t *testing.T) {
	code, stdout, stderr := runCmd(t, "validate", samplePath, "../../testdata/ledger/sample.jsonl")
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "sample.csv: 36 episodes, no errors") {
		t.Errorf("stderr: %s", stderr)
	}
}

// Every bad input gives exactly one line naming file, line and field, exit
// status 1, and (for export) no output file.
func TestBadInputs(t *testing.T) {
	hdr := readSample(t)[0]
	row := readSample(t)[1]
	jl := sampleJSONL(t)
	cell := func(line, col, val string) string { // replace one CSV cell
		cols := strings.Split(hdr, ",")
		cells := strings.Split(line, ",")
		for i, c := range cols {
			if c == col {
				cells[i] = val
			}
		}
		return strings.Join(cells, ",")
	}
	dropCol := func(line, col string) string {
		cols := strings.Split(hdr, ",")
		cells := strings.Split(line, ",")
		var out []string
		for i, c := range cols {
			if c != col {
				out = append(out, cells[i])
			}
		}
		return strings.Join(out, ",")
	}
	row2 := strings.Replace(cell(row, "pair_key", "other"), "s-001", "s-002", 1)
	for _, tc := range []struct {
		name, file, content string
		want                string // the one line, with FILE for the path
	}{
		{"truncated JSONL line", "x.jsonl", jl[0] + "\n" + jl[1][:200] + "\n",
			`FILE:2: task: unexpected end of line (truncated?) inside a string`},
		{"invalid UTF-8 in JSONL", "x.jsonl", strings.Replace(jl[0], `"gpt-4.1"`, "\"gpt\xff\"", 1) + "\n",
			`FILE:1: model: invalid UTF-8 in string`},
		{"invalid UTF-8 in CSV", "x.csv", hdr + "\n" + cell(row, "model", "gpt\xff") + "\n",
			`FILE:2: model: invalid UTF-8`},
		{"wrong JSON type", "x.jsonl", strings.Replace(jl[0], `"weight":1`, `"weight":"1"`, 1) + "\n",
			`FILE:1: weight: expected a number, found a string`},
		{"unknown enum value", "x.csv", hdr + "\n" + cell(row, "fault_mode", "timeout_maybe") + "\n",
			`FILE:2: fault_mode: unknown value "timeout_maybe" (want one of ` + strings.Join(ledger.FaultModes.Values, ", ") + `)`},
		{"missing required column", "x.csv", dropCol(hdr, "weight") + "\n" + dropCol(row, "weight") + "\n",
			`FILE:1: weight: missing required column`},
		{"missing JSON field", "x.jsonl", strings.Replace(jl[0], `"weight":1,`, ``, 1) + "\n",
			`FILE:1: weight: missing`},
		{"duplicate episode_id", "x.csv", hdr + "\n" + row + "\n" + cell(row, "pair_key", "other") + "\n",
			`FILE:3: episode_id: duplicate "s-001" (first on line 2)`},
		{"NaN weight", "x.csv", hdr + "\n" + cell(row, "weight", "NaN") + "\n",
			`FILE:2: weight: missing or NaN; must be a finite number`},
		// The same message whether a command reads the column or not.
		{"empty weight", "x.csv", hdr + "\n" + cell(row, "weight", "") + "\n",
			`FILE:2: weight: empty cell in a required column`},
		{"negative weight", "x.csv", hdr + "\n" + cell(row, "weight", "-2") + "\n",
			`FILE:2: weight: must be > 0, is -2`},
		{"eos without task success", "x.csv", hdr + "\n" + cell(row, "task_success", "0") + "\n",
			`FILE:2: eos: true but task_success is false (eos requires task success)`},
		{"bad boolean", "x.csv", hdr + "\n" + cell(row, "eos", "yes") + "\n",
			`FILE:2: eos: expected a boolean (true, false, 1 or 0), found "yes"`},
		{"empty file", "x.csv", "", `FILE: empty ledger: no header and no episodes`},
		{"empty JSONL file", "x.jsonl", "\n\n", `FILE: empty ledger: no episodes`},
		{"header only", "x.csv", hdr + "\n", `FILE: empty ledger: a header but no episodes`},
		{"CSV ragged row", "x.csv", hdr + "\n" + row + "\n" + row2[:strings.LastIndex(row2, ",")] + "\n",
			`FILE:3: first_move: row has 35 fields, the header has 36`},
		{"CSV bad quote", "x.csv", hdr + "\n" + cell(row, "model", `gp"t`) + "\n",
			`FILE:2: (row): malformed CSV: bare " in non-quoted-field`},
		{"not Parquet", "x.parquet", "episode_id\ns-1\n",
			`FILE: not a readable Parquet file: *`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			in := filepath.Join(dir, tc.file)
			if err := os.WriteFile(in, []byte(tc.content), 0o644); err != nil {
				t.Fatal(err)
			}
			want := strings.ReplaceAll(tc.want, "FILE", in)
			// A trailing * matches the rest of the line (messages of
			// libraries we do not control).
			match := func(got string) bool {
				if p, ok := strings.CutSuffix(want, "*"); ok {
					return strings.HasPrefix(got, p) && strings.Count(got, "\n") == 1 && strings.HasSuffix(got, "\n")
				}
				return got == want+"\n"
			}
			code, stdout, _ := runCmd(t, "validate", in)
			if code != 1 || !match(stdout) {
				t.Errorf("validate: exit %d, stdout\n%s\nwant\n%s", code, stdout, want)
			}
			out := filepath.Join(dir, "out.parquet")
			code, _, stderr := runCmd(t, "export", "--in", in, "--out", out)
			if code != 1 || !strings.HasPrefix(stderr, "limbo-analyze: ") || !match(strings.TrimPrefix(stderr, "limbo-analyze: ")) {
				t.Errorf("export: exit %d, stderr\n%s", code, stderr)
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 1 {
				t.Errorf("export left files: %v", ents)
			}
		})
	}
}

func TestBadPaths(t *testing.T) {
	dir := t.TempDir()
	// A directory without ledger files (a directory is read as a dataset).
	sub := filepath.Join(dir, "ledger.csv")
	os.Mkdir(sub, 0o755)
	code, stdout, _ := runCmd(t, "validate", sub)
	if want := sub + ": directory holds no ledger files (.parquet, .csv, .jsonl, .ndjson)\n"; code != 1 || stdout != want {
		t.Errorf("directory: exit %d, %q", code, stdout)
	}
	// A missing file.
	code, stdout, _ = runCmd(t, "validate", filepath.Join(dir, "nope.csv"))
	if code != 1 || !strings.Contains(stdout, "nope.csv: no such file") {
		t.Errorf("missing: exit %d, %q", code, stdout)
	}
	// An unwritable output path (below a regular file, so that it fails
	// even for root).
	blocker := filepath.Join(dir, "file")
	os.WriteFile(blocker, nil, 0o644)
	out := filepath.Join(blocker, "x.parquet")
	code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", out)
	if want := "limbo-analyze: " + out + ": cannot create output: open: not a directory\n"; code != 1 || !strings.HasPrefix(stderr, "limbo-analyze: "+out+": cannot create output: ") {
		t.Errorf("unwritable: exit %d, %q want %q", code, stderr, want)
	}
	// An unknown extension is a usage error.
	code, _, _ = runCmd(t, "export", "--in", samplePath, "--out", filepath.Join(dir, "x.xlsx"))
	if code != 2 {
		t.Errorf("unknown output extension: exit %d, want 2", code)
	}
	for _, args := range [][]string{
		{"export", "--in", samplePath},
		{"export", "--in", samplePath, "--out", "x.csv", "stray"},
		{"export", "--in", samplePath, "--out", samplePath},
		{"validate"},
		{"validate", "--format", "xml", "--summary", samplePath},
		{"validate", "--bogus", samplePath},
	} {
		if code, _, _ := runCmd(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", args, code)
		}
	}
}

// validate reports every problem, not just the first.
func TestValidateReportsAll(t *testing.T) {
	lines := readSample(t)
	bad := []string{lines[0], lines[1], strings.Replace(lines[2], "aware", "", 1), lines[3], lines[1]}
	in := filepath.Join(t.TempDir(), "x.csv")
	os.WriteFile(in, []byte(strings.Join(bad, "\n")+"\n"), 0o644)
	code, stdout, stderr := runCmd(t, "validate", in)
	want := in + ":3: condition: empty cell in a required column\n" +
		in + ":5: episode_id: duplicate \"s-001\" (first on line 2)\n"
	if code != 1 || stdout != want {
		t.Errorf("exit %d\n%s\nwant\n%s", code, stdout, want)
	}
	if !strings.Contains(stderr, "limbo-analyze: 2 errors in 1 of 1 file") {
		t.Errorf("stderr %q", stderr)
	}
}

// Extra CSV columns survive export to every format and back; --strict
// rejects them.
func TestExtraColumns(t *testing.T) {
	lines := readSample(t)
	var b strings.Builder
	b.WriteString(lines[0] + ",site,batch\n")
	for i, l := range lines[1:] {
		b.WriteString(l + ",lab" + string(rune('A'+i%3)) + ",\"b, " + string(rune('0'+i%10)) + "\"\n")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "x.csv")
	os.WriteFile(in, []byte(b.String()), 0o644)
	prev := in
	for _, ext := range []string{".parquet", ".jsonl", ".csv"} {
		out := filepath.Join(dir, "y"+ext)
		if code, _, stderr := runCmd(t, "export", "--in", prev, "--out", out); code != 0 {
			t.Fatalf("%s: %s", ext, stderr)
		}
		prev = out
	}
	got, _ := os.ReadFile(prev)
	if string(got) != b.String() {
		t.Errorf("CSV → Parquet → JSONL → CSV changed the file:\n%s", got)
	}
	code, stdout, _ := runCmd(t, "validate", "--strict", in)
	if want := in + ":1: site: extra column (not in the ledger schema; rejected under --strict)\n"; code != 1 || stdout != want {
		t.Errorf("strict: exit %d %q", code, stdout)
	}
}

func TestWarningsAndStrict(t *testing.T) {
	lines := readSample(t)
	in := filepath.Join(t.TempDir(), "x.csv")
	os.WriteFile(in, []byte(lines[0]+"\n"+strings.Replace(lines[1], "minimal", "my-harness", 1)+"\n"), 0o644)
	code, stdout, stderr := runCmd(t, "validate", in)
	if code != 0 || stdout != "" || !strings.Contains(stderr, in+":2: harness: warning: \"my-harness\" is not one of the paper's harnesses") {
		t.Errorf("warning: exit %d stdout %q stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = runCmd(t, "validate", "--strict", in)
	if code != 1 || !strings.Contains(stdout, in+":2: harness: \"my-harness\" is not one of the paper's harnesses (an error under --strict)") {
		t.Errorf("strict: exit %d stdout %q", code, stdout)
	}
}

func TestSummaryJSON(t *testing.T) {
	code, stdout, stderr := runCmd(t, "validate", "--summary", "--format", "json", samplePath)
	if code != 0 {
		t.Fatal(stderr)
	}
	var s struct {
		Rows     int
		BoolSums map[string]int `json:"bool_sums"`
		Distinct map[string]int
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	// Hand-counted from sample.csv (see make_sample.py's table).
	if s.Rows != 36 || s.BoolSums["eos"] != 23 || s.BoolSums["duplicated"] != 10 || s.Distinct["fault_mode"] != 12 || s.Distinct["model"] != 3 {
		t.Errorf("summary %+v", s)
	}
}

func TestCompletion(t *testing.T) {
	// Flag values complete too.
	if code, stdout, _ := runCmd(t, "__complete", "export", "--format", ""); code != 0 || !strings.Contains(stdout, "parquet\n") {
		t.Errorf("export --format completion: %q", stdout)
	}
	for _, sh := range []string{"bash", "zsh", "fish", "powershell"} {
		code, stdout, _ := runCmd(t, "completion", sh)
		if code != 0 || !strings.Contains(stdout, "limbo-analyze") {
			t.Errorf("completion %s: exit %d", sh, code)
		}
	}
}

// The paper's grader (package sandbox, through grader()) grades the raw
// sample into exactly the hand-checked table of sample.csv.
func TestSampleGraderAgrees(t *testing.T) {
	out := filepath.Join(t.TempDir(), "graded.csv")
	if code, _, stderr := runCmd(t, "export", "--in", "../../testdata/ledger/sample.jsonl", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(samplePath)
	if err != nil {
		t.Fatal(err)
	}
	g, w := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	if len(g) != len(w) {
		t.Fatalf("%d lines graded, %d in sample.csv", len(g), len(w))
	}
	for i := range g {
		if g[i] != w[i] {
			t.Errorf("line %d:\ngraded %s\nsample %s", i+1, g[i], w[i])
		}
	}
}

// A raw ledger exported to Parquet puts its calls and effects beside the
// episodes, and validate checks all three.
func TestRawExportSiblings(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "raw.parquet")
	if code, _, stderr := runCmd(t, "export", "--in", "../../testdata/ledger/sample.jsonl", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	for _, p := range []string{"raw.parquet", "raw.calls.parquet", "raw.effects.parquet"} {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			t.Error(err)
		}
	}
	if code, stdout, stderr := runCmd(t, "validate", "--strict", out); code != 0 {
		t.Errorf("validate: %s%s", stdout, stderr)
	}
	// The calls table is not an episode table, and says so.
	code, stdout, _ := runCmd(t, "validate", filepath.Join(dir, "raw.calls.parquet"))
	if code != 1 || !strings.Contains(stdout, "raw.calls.parquet: experiment: missing required column") || !strings.Contains(stdout, "this file is a LIMBO calls table, not episodes") {
		t.Errorf("calls table as episodes: %q", stdout)
	}
}

// A Parquet file with another schema (here a calls table) is one clear
// line, exit 1, and export writes nothing.
func TestParquetOtherSchemaCLI(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "other.parquet")
	w, err := ledger.CreateCalls(in)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(&ledger.Call{EpisodeID: "e1", Tool: "mail_send", Outcome: ledger.OutcomeOK})
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := in + ": experiment: missing required column (also missing: model, harness, contract, condition, cue, service, template, instance, task, focal_write, focal_index, platform, pair_key, write_class, read_path, reversible, fault_mode, fault_fired, delay_s, weight, seed, expected_commits, focal_commits, duplicated, task_success, eos, tool_calls, agent_time_s, reported_success, uncertainty_listed, overclaim, recovery); this file is a LIMBO calls table, not episodes\n"
	code, stdout, _ := runCmd(t, "validate", in)
	if code != 1 || stdout != want {
		t.Errorf("validate: exit %d\n%s\nwant\n%s", code, stdout, want)
	}
	code, _, stderr := runCmd(t, "export", "--in", in, "--out", filepath.Join(dir, "out.csv"))
	if code != 1 || stderr != "limbo-analyze: "+want {
		t.Errorf("export: exit %d %s", code, stderr)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("export left %v", ents)
	}
}
