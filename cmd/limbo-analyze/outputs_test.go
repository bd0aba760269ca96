package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const rawSamplePath = "../../testdata/ledger/sample.jsonl"

// copyTo copies src to a new file dst and returns dst.
func copyTo(t *testing.T, src, dst string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// hidden lists the hidden entries of dir (temporary files of any naming).
func hidden(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			out = append(out, e.Name())
		}
	}
	return out
}

func mustNotExist(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s exists after a failed run (%v)", p, err)
		}
	}
}

// Issue 17, items 1–4: a command never writes over one of its inputs,
// however the output is spelled (another path, a symlink, a hard link).
// It exits 2, writes nothing and leaves the input byte-identical.
func TestOutputIsInput(t *testing.T) {
	dir := t.TempDir()
	raw := copyTo(t, rawSamplePath, filepath.Join(dir, "s.jsonl"))
	want, _ := os.ReadFile(raw)
	abs, _ := filepath.Abs(raw)
	sym := filepath.Join(dir, "sym.jsonl")
	hard := filepath.Join(dir, "hard.jsonl")
	if err := os.Symlink(raw, sym); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(raw, hard); err != nil {
		t.Fatal(err)
	}
	design := filepath.Join(dir, "d.meta.json")
	os.WriteFile(design, []byte("{}"), 0o644)
	cases := []struct {
		name string
		args []string
	}{
		{"export absolute path", []string{"export", "--in", raw, "--out", abs}},
		{"export dotted path", []string{"export", "--in", raw, "--out", dir + "/./s.jsonl"}},
		{"export symlink", []string{"export", "--in", raw, "--out", sym}},
		{"export hard link", []string{"export", "--in", raw, "--out", hard}},
		{"export symlinked input", []string{"export", "--in", sym, "--out", raw}},
		{"grade", []string{"grade", raw, "--out", raw}},
		{"grade hard link", []string{"grade", raw, "--out", hard}},
		{"simulate out is episodes", []string{"simulate", "--shard", "1/5000", "--out", filepath.Join(dir, "x.jsonl"), "--episodes", filepath.Join(dir, "x.jsonl")}},
		{"simulate episodes is out through a link", []string{"simulate", "--shard", "1/5000", "--out", raw, "--episodes", sym}},
		{"simulate sidecar is the design", []string{"simulate", "--design", design, "--out", filepath.Join(dir, "d.jsonl")}},
		{"merge out is a shard through a hard link", []string{"merge", "--out", hard, raw}},
		{"merge out is a shard through a symlink", []string{"merge", "--out", sym, raw}},
		{"report in its own output dir", []string{"report", "--in", dir, "--out", dir}},
		{"figures in its own output dir", []string{"figures", "--in", dir, "--out", dir}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := os.ReadDir(dir)
			code, _, stderr := runCmd(t, tc.args...)
			if code != exitUsage {
				t.Errorf("exit %d, want %d; stderr %s", code, exitUsage, stderr)
			}
			if !strings.Contains(stderr, "same file") && !strings.Contains(stderr, "is the input") && !strings.Contains(stderr, "is one of the shards") {
				t.Errorf("stderr %q does not say the output is an input", stderr)
			}
			if got, _ := os.ReadFile(raw); !bytes.Equal(got, want) {
				t.Fatalf("input changed (%d bytes, was %d)", len(got), len(want))
			}
			if after, _ := os.ReadDir(dir); len(after) != len(before) {
				t.Errorf("%d entries in the directory after, %d before", len(after), len(before))
			}
		})
	}
}

// Items 5 and 6: a failure on one output of simulate leaves none of them.
func TestSimulateAllOrNothing(t *testing.T) {
	cases := []struct {
		name    string
		blocker string // made a directory so that this output cannot be written
		args    []string
		outputs []string
	}{
		{"sidecar blocked", "r.meta.json", []string{"--out", "r.jsonl"}, []string{"r.jsonl"}},
		{"raw ledger blocked", "q.jsonl", []string{"--out", "q.jsonl", "--episodes", "q.parquet"}, []string{"q.parquet", "q.meta.json"}},
		{"episodes blocked", "p.parquet", []string{"--out", "p.jsonl", "--episodes", "p.parquet"}, []string{"p.jsonl", "p.meta.json"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Mkdir(filepath.Join(dir, tc.blocker), 0o755); err != nil {
				t.Fatal(err)
			}
			args := []string{"simulate", "--shard", "1/2000"}
			for _, a := range tc.args {
				if strings.Contains(a, ".") {
					a = filepath.Join(dir, a)
				}
				args = append(args, a)
			}
			code, _, stderr := runCmd(t, args...)
			if code != exitFailure || !strings.Contains(stderr, tc.blocker) {
				t.Errorf("exit %d, stderr %q; want 1 and a message naming %s", code, stderr, tc.blocker)
			}
			for _, o := range tc.outputs {
				mustNotExist(t, filepath.Join(dir, o))
			}
			if h := hidden(t, dir); len(h) > 0 {
				t.Errorf("temporary files left: %v", h)
			}
		})
	}
}

// Item 9: an episode table exported over a former raw export replaces the
// whole unit: the old calls and effects go, and the result validates.
func TestExportReplacesStaleSiblings(t *testing.T) {
	dir := t.TempDir()
	e := filepath.Join(dir, "e.parquet")
	if code, _, stderr := runCmd(t, "export", "--in", rawSamplePath, "--out", e); code != 0 {
		t.Fatalf("raw export: %s", stderr)
	}
	calls, effects := filepath.Join(dir, "e.calls.parquet"), filepath.Join(dir, "e.effects.parquet")
	for _, p := range []string{calls, effects} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("raw export wrote no %s: %v", p, err)
		}
	}
	if code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", e); code != 0 {
		t.Fatalf("episode export: %s", stderr)
	}
	mustNotExist(t, calls, effects)
	if code, _, stderr := runCmd(t, "validate", e); code != 0 {
		t.Errorf("validate after re-export: exit %d\n%s", code, stderr)
	}
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
	// packageDir is this package's directory, where the test binary starts.
	packageDir, _ = os.Getwd()
)

// builtBinary builds limbo-analyze once per test run, for tests about
// processes (resource limits, SIGKILL).
func builtBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and runs it as a process")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "limbo-outputs-test")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "limbo-analyze")
		build := exec.Command("go", "build", "-o", binPath, ".")
		build.Dir = packageDir // tests may have changed directory (t.Chdir)
		if out, err := build.CombinedOutput(); err != nil {
			binErr = errors.New(string(out))
		}
	})
	if binErr != nil {
		t.Fatalf("go build: %v", binErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// shellLimited runs the binary in dir under sh with `ulimit -f blocks`
// (512-byte blocks in POSIX sh) and returns its exit code and stderr.
func shellLimited(t *testing.T, dir string, blocks int, args ...string) (int, string) {
	t.Helper()
	bin := builtBinary(t)
	sh := append([]string{"-c", `ulimit -f "$1"; shift; exec "$@"`, "sh", strconv.Itoa(blocks), bin}, args...)
	cmd := exec.Command("sh", sh...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// Items 7 and 8: a file-size limit hit half-way leaves no output at all
// (no report directory; no episode table without its calls), and the
// message names the output once: no "write: write:", no temporary file.
func TestFileSizeLimit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	raw := filepath.Join(dir, "r.jsonl")
	if code, _, stderr := runCmd(t, "simulate", "--shard", "1/100", "--out", raw); code != 0 {
		t.Fatalf("simulate: %s", stderr)
	}
	cases := []struct {
		name    string
		blocks  int
		args    []string
		outputs []string
	}{
		// 20 KB: the report's tables fit, its figures and report.html do not.
		{"report", 40, []string{"report", "--in", raw, "--out", "rep"}, []string{"rep"}},
		// 20 KB: e.parquet (13 KB) fits, e.calls.parquet (34 KB) does not.
		{"export", 40, []string{"export", "--in", raw, "--out", "e.parquet"}, []string{"e.parquet", "e.calls.parquet", "e.effects.parquet"}},
	}
	// An earlier report in old/ stays as it was. (A file of the user's
	// there is refused beforehand: TestReportReplacesEarlierReport.)
	old := filepath.Join(dir, "old")
	os.MkdirAll(old, 0o755)
	for _, f := range []string{"report.md"} {
		os.WriteFile(filepath.Join(old, f), []byte("earlier "+f), 0o644)
	}
	cases = append(cases, struct {
		name    string
		blocks  int
		args    []string
		outputs []string
	}{"report over an earlier one", 40, []string{"report", "--in", raw, "--out", "old"}, []string{"old/report.html", "old/tables", "old/figures"}})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, stderr := shellLimited(t, dir, tc.blocks, tc.args...)
			if code != exitFailure {
				t.Errorf("exit %d, want 1; stderr %s", code, stderr)
			}
			if strings.Contains(stderr, "write: write") || strings.Contains(stderr, ".tmp") || strings.Contains(stderr, "limbo-tmp") || !strings.Contains(stderr, "file too large") {
				t.Errorf("message %q: want one naming the output and the cause", stderr)
			}
			for _, o := range tc.outputs {
				mustNotExist(t, filepath.Join(dir, o))
			}
			if h := hidden(t, dir); len(h) > 0 {
				t.Errorf("temporary files left: %v", h)
			}
		})
	}
	for _, f := range []string{"report.md"} {
		if b, err := os.ReadFile(filepath.Join(old, f)); string(b) != "earlier "+f {
			t.Errorf("old/%s = %q (%v), want it untouched", f, b, err)
		}
	}
	if h := hidden(t, old); len(h) > 0 {
		t.Errorf("temporary files left in old/: %v", h)
	}
}

// Item 12: the temporary file of a run killed with SIGKILL is removed by
// the next run that writes in that directory.
func TestKilledRunTemporariesCleaned(t *testing.T) {
	bin := builtBinary(t)
	dir := t.TempDir()
	for range 2 {
		cmd := exec.Command(bin, "simulate", "--out", filepath.Join(dir, "big.jsonl"), "--episodes", filepath.Join(dir, "big.parquet"), "--jobs", "1")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill it once its temporary files exist (long before it ends:
		// the paper's design takes tens of seconds).
		deadline := time.Now().Add(30 * time.Second)
		for len(hidden(t, dir)) < 2 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		cmd.Process.Signal(syscall.SIGKILL)
		cmd.Wait()
	}
	if h := hidden(t, dir); len(h) < 2 {
		t.Fatalf("the killed runs left %v; the test needs their temporaries", h)
	}
	if code, _, stderr := runCmd(t, "simulate", "--shard", "1/5000", "--out", filepath.Join(dir, "small.jsonl")); code != 0 {
		t.Fatalf("simulate: %s", stderr)
	}
	if h := hidden(t, dir); len(h) > 0 {
		t.Errorf("temporaries of the killed runs left after a new run: %v", h)
	}
	mustNotExist(t, filepath.Join(dir, "big.jsonl"), filepath.Join(dir, "big.parquet"))
}

// Issue 17, exit codes: a bad flag value is a usage error (exit 2) whatever
// the command, and nothing is created.
func TestUsageExitCodes(t *testing.T) {
	dir := t.TempDir()
	l := filepath.Join(dir, "l.jsonl")
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"rates", "--in", samplePath, "--in-format", "xml", "--outcome", "duplicated"}, `--in-format "xml"`},
		{[]string{"tables", "--in", samplePath, "--in-format", "xml"}, `--in-format "xml"`},
		{[]string{"serve", "--template", "T99", "--ledger", l}, `"T99"`},
		{[]string{"serve", "--template", "T03", "--fault", "nosuch", "--ledger", l}, `"nosuch"`},
	}
	for _, tc := range cases {
		t.Run(strings.Join(tc.args[:1], " ")+" "+tc.want, func(t *testing.T) {
			code, _, stderr := runCmd(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want 2 and a message naming %s", code, stderr, tc.want)
			}
			mustNotExist(t, l)
		})
	}
}

// Issue 17: a number too large for a float64 in a CSV cell gives the one
// real error, not a plausibility warning about the infinity on top.
func TestCSVOverflowOneError(t *testing.T) {
	lines := readSample(t)
	hdr := strings.Split(lines[0], ",")
	col := -1
	for i, h := range hdr {
		if h == "delay_s" {
			col = i
		}
	}
	if col < 0 {
		t.Fatal("sample has no delay_s column")
	}
	row := strings.Split(lines[1], ",") // a fault_mode none row: no quoted commas before delay_s
	if len(row) != len(hdr) {
		t.Fatalf("row 1 has quoted commas; pick another row")
	}
	row[col] = "1e400"
	p := filepath.Join(t.TempDir(), "big.csv")
	os.WriteFile(p, []byte(lines[0]+"\n"+strings.Join(row, ",")+"\n"), 0o644)
	code, stdout, stderr := runCmd(t, "validate", p)
	if code != exitFailure {
		t.Errorf("exit %d, want 1", code)
	}
	if all := stdout + stderr; !strings.Contains(all, "delay_s: infinite") || strings.Contains(all, "warning") {
		t.Errorf("output %q: want the one error, no warning", all)
	}
}

// Issue 28, item 4: an output inside the input dataset, or an input inside
// the output directory, is refused like an output that is the input (exit
// 2, nothing written), since every later read of the dataset would read
// the output too, or the output would replace the input.
func TestOutputInsideInput(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	if code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", ds, "--partition-by", "experiment"); code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	rows := func() int { return parquetRows(t, mustGlob(t, filepath.Join(ds, "*", "*.parquet"))) }
	want := rows()
	link := filepath.Join(dir, "link")
	if err := os.Symlink(ds, link); err != nil {
		t.Fatal(err)
	}
	raw := copyTo(t, rawSamplePath, filepath.Join(dir, "s.jsonl"))
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"export into a partition", []string{"export", "--in", ds, "--out", filepath.Join(ds, "x=c", "extra.parquet")}, "inside the input"},
		{"export into the dataset through a link", []string{"export", "--in", ds, "--out", filepath.Join(link, "extra.parquet")}, "inside the input"},
		{"export partitioned into the dataset", []string{"export", "--in", ds, "--out", filepath.Join(ds, "sub"), "--partition-by", "model"}, "inside the input"},
		{"report inside the dataset", []string{"report", "--in", ds, "--out", filepath.Join(ds, "rep")}, "inside the input"},
		{"report over the dataset's parent", []string{"report", "--in", ds, "--out", dir}, "inside the output"},
		{"export partitioned over the input's directory", []string{"export", "--in", raw, "--out", dir, "--partition-by", "model"}, "inside the output"},
		{"export matching the input glob", []string{"export", "--in", filepath.Join(ds, "*", "*.parquet"), "--out", filepath.Join(ds, "experiment=x", "y.parquet")}, "matches the input pattern"},
		{"view inside the dataset", []string{"view", ds, "--out", filepath.Join(ds, "site")}, "inside the input"},
		{"figures inside the dataset", []string{"figures", "--in", ds, "--out", filepath.Join(ds, "figs")}, "inside the input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, tc.args...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want %d and %q", code, stderr, exitUsage, tc.want)
			}
			if got := rows(); got != want {
				t.Errorf("the dataset has %d rows after, %d before", got, want)
			}
			if _, err := os.Stat(filepath.Join(ds, "x=c")); err == nil {
				t.Error("x=c was created inside the dataset")
			}
		})
	}
	// A sibling of the dataset is not inside it.
	if code, _, stderr := runCmd(t, "export", "--in", ds, "--out", filepath.Join(dir, "flat.parquet")); code != 0 {
		t.Errorf("export beside the dataset: exit %d: %s", code, stderr)
	}
}
