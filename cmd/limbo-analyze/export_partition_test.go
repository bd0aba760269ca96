package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/parquet/file"

	"github.com/limbo-toolkit/limbo/ledger"
)

// export --partition-by writes every row of the sample exactly once, each
// in the directory its experiment and model name, with all its columns.
func TestExportPartitioned(t *testing.T) {
	out := filepath.Join(t.TempDir(), "ds")
	code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", out, "--partition-by", "experiment,model")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var want []ledger.Episode
	if err := ledger.ReadEpisodes(samplePath, ledger.ReadOptions{}, func(e *ledger.Episode) error {
		want = append(want, *e)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	files, err := filepath.Glob(filepath.Join(out, "experiment=*", "model=*", "part-*.parquet"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no part files under %s: %v", out, err)
	}
	for _, f := range files {
		if filepath.Base(f) != "part-0.parquet" {
			t.Errorf("%s: every partition should be one file", f)
		}
	}
	var got []ledger.Episode
	for _, f := range files {
		dir, _ := filepath.Rel(out, filepath.Dir(f))
		if err := ledger.ReadEpisodes(f, ledger.ReadOptions{}, func(e *ledger.Episode) error {
			if p, _ := ledger.PartitionPath(e, []string{"experiment", "model"}); p != filepath.ToSlash(dir) {
				t.Errorf("%s: episode %s belongs in %s", f, e.EpisodeID, p)
			}
			got = append(got, *e)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	byID := func(a, b ledger.Episode) int { return strings.Compare(a.EpisodeID, b.EpisodeID) }
	slices.SortFunc(want, byID)
	slices.SortFunc(got, byID)
	if len(got) != len(want) {
		t.Fatalf("%d rows in the dataset, %d in the sample", len(got), len(want))
	}
	for i := range want {
		for _, c := range ledger.EpisodeColumns {
			a, _ := want[i].Get(c.Name)
			b, _ := got[i].Get(c.Name)
			if a != b {
				t.Errorf("%s: %s = %v in the dataset, %v in the sample", want[i].EpisodeID, c.Name, b, a)
			}
		}
	}
	if !strings.Contains(stderr, "partitions") {
		t.Errorf("stderr %q does not report the partitions", stderr)
	}
}

func TestExportPartitionedRefuses(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--partition-by", "nope"}, exitFailure, "nope: partition column is not a ledger column"},
		{[]string{"--partition-by", "fault_fired"}, exitFailure, "cannot partition by a boolean column"},
		// The sample's platform is empty for non-social writes.
		{[]string{"--partition-by", "platform"}, exitFailure, "platform: empty value"},
		{[]string{"--partition-by", "episode_id", "--max-partitions", "10"}, exitFailure, "sample.csv:12: episode_id: more than 10 partitions"},
		{[]string{"--partition-by", "episode_id", "--max-partitions", "10"}, exitFailure, "or raise the limit (--max-partitions)"},
		{[]string{"--partition-by", "model", "--max-partitions", "0"}, exitUsage, "--max-partitions must be at least 1"},
	} {
		dir := t.TempDir()
		args := append([]string{"export", "--in", samplePath, "--out", filepath.Join(dir, "ds")}, c.args...)
		code, _, stderr := runCmd(t, args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Errorf("%v: left %d entries behind", c.args, len(ents))
		}
	}
}

// A partitioned export of a raw ledger loses nothing: the calls and
// effects go to OUT.calls and OUT.effects, and every command reads the
// dataset (--in OUT) as it reads the source.
func TestExportPartitionedRaw(t *testing.T) {
	const raw = "../../testdata/ledger/sample.jsonl"
	dir := t.TempDir()
	out := filepath.Join(dir, "ds")
	code, _, stderr := runCmd(t, "export", "--in", raw, "--out", out, "--partition-by", "experiment,model")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	flat := filepath.Join(dir, "flat.parquet")
	if code, _, stderr := runCmd(t, "export", "--in", raw, "--out", flat); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// Every partition has its calls and effects, with as many rows in all
	// as the unpartitioned export.
	for _, f := range mustGlob(t, filepath.Join(out, "*", "*", "*.parquet")) {
		rel, _ := filepath.Rel(out, f)
		for _, sib := range []string{out + ".calls", out + ".effects"} {
			if _, err := os.Stat(filepath.Join(sib, rel)); err != nil {
				t.Errorf("%s has no %s beside it: %v", f, filepath.Base(sib), err)
			}
		}
	}
	cflat, eflat := ledger.SiblingPaths(flat)
	// Every table written, flat or partitioned, records this binary's
	// version.
	files := append([]string{flat, cflat, eflat}, mustGlob(t, filepath.Join(out+"*", "*", "*", "*.parquet"))...)
	if len(files) < 6 {
		t.Fatalf("%d Parquet files", len(files))
	}
	for _, f := range files {
		if v, _, err := ledger.ParquetKeyValue(f, ledger.MetaToolkitVersion); err != nil || v != version {
			t.Errorf("%s: %s = %q (%v), want %q", f, ledger.MetaToolkitVersion, v, err, version)
		}
	}
	for _, c := range []struct{ flat, ds string }{{cflat, out + ".calls"}, {eflat, out + ".effects"}} {
		want := parquetRows(t, []string{c.flat})
		got := parquetRows(t, mustGlob(t, filepath.Join(c.ds, "*", "*", "*.parquet")))
		if got != want || want == 0 {
			t.Errorf("%s: %d rows, the unpartitioned export has %d", c.ds, got, want)
		}
	}
	for _, args := range [][]string{
		{"rates", "--outcome", "duplicated", "--by", "condition,fault_mode", "--format", "json"},
		{"tables", "--table", "3", "--format", "csv"},
	} {
		_, a, errA := runCmd(t, append(args, "--in", raw)...)
		code, b, errB := runCmd(t, append(args, "--in", out)...)
		if code != 0 || a != b || a == "" {
			t.Errorf("%v: --in the dataset (exit %d, %s) differs from --in the source (%s):\n%s\nvs\n%s", args, code, errB, errA, b, a)
		}
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil || len(m) == 0 {
		t.Fatalf("no file matches %s: %v", pattern, err)
	}
	return m
}

// parquetRows counts the rows of Parquet files.
func parquetRows(t *testing.T, files []string) int {
	t.Helper()
	n := 0
	for _, f := range files {
		r, err := file.OpenParquetFile(f, false)
		if err != nil {
			t.Fatal(err)
		}
		n += int(r.NumRows())
		r.Close()
	}
	return n
}

// Issue 28, item 11: a column given twice is a usage error; a value too
// long for a directory name fails naming the row and the value (cut for
// display), not as "mkdir: file name too long".
func TestExportPartitionByMistakes(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", filepath.Join(dir, "ds"), "--partition-by", "model,model")
	if code != exitUsage || !strings.Contains(stderr, "column model given twice") {
		t.Errorf("--partition-by model,model: exit %d, %q; want 2 and the column named", code, stderr)
	}
	lines := readSample(t)
	long := strings.Repeat("m", 300)
	lines[1] = strings.Replace(lines[1], ",gpt-4.1,", ","+long+",", 1)
	if !strings.Contains(lines[1], long) {
		t.Fatalf("no model to replace in %q", lines[1])
	}
	in := filepath.Join(dir, "long.csv")
	os.WriteFile(in, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	code, _, stderr = runCmd(t, "export", "--in", in, "--out", filepath.Join(dir, "ds"), "--partition-by", "model")
	want := "long.csv:2: model: value \"" + strings.Repeat("m", 40) + "…\" (300 bytes) is too long for a partition directory"
	if code != exitFailure || !strings.Contains(stderr, want) || strings.Contains(stderr, long) {
		t.Errorf("300-byte value: exit %d, %q; want 1 and %q", code, stderr, want)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d entries left, want only the input", len(ents))
	}
}

// Issue 28, item 9: a Parquet episode table re-exported to Parquet carries
// its calls and effects siblings; where they cannot go (CSV, a dataset's
// siblings into one file) a note on stderr says so.
func TestReexportCarriesCallsAndEffects(t *testing.T) {
	const raw = "../../testdata/ledger/sample.jsonl"
	dir := t.TempDir()
	x := filepath.Join(dir, "x.parquet")
	if code, _, stderr := runCmd(t, "export", "--in", raw, "--out", x); code != 0 {
		t.Fatalf("export: %s", stderr)
	}
	y := filepath.Join(dir, "y.parquet")
	code, _, stderr := runCmd(t, "export", "--in", x, "--out", y)
	if code != 0 || strings.Contains(stderr, "not carried") {
		t.Fatalf("re-export: exit %d: %s", code, stderr)
	}
	xc, xe := ledger.SiblingPaths(x)
	yc, ye := ledger.SiblingPaths(y)
	for _, p := range [][2]string{{xc, yc}, {xe, ye}} {
		if _, err := os.Stat(p[1]); err != nil {
			t.Fatalf("%s not written: %v", p[1], err)
		}
		if a, b := parquetRows(t, []string{p[0]}), parquetRows(t, []string{p[1]}); a != b || a == 0 {
			t.Errorf("%s has %d rows, %s %d", p[1], b, p[0], a)
		}
	}
	if code, _, stderr := runCmd(t, "validate", y); code != 0 {
		t.Errorf("validate the re-export: exit %d: %s", code, stderr)
	}
	ds := filepath.Join(dir, "ds")
	if code, _, stderr := runCmd(t, "export", "--in", raw, "--out", ds, "--partition-by", "model"); code != 0 {
		t.Fatalf("partitioned export: %s", stderr)
	}
	for _, args := range [][]string{
		{"export", "--in", x, "--out", filepath.Join(dir, "x.csv")},
		{"export", "--in", ds, "--out", filepath.Join(dir, "flat.parquet")},
		{"export", "--in", x, "--out", filepath.Join(dir, "ds2"), "--partition-by", "model"},
	} {
		code, _, stderr := runCmd(t, args...)
		if code != 0 || !strings.Contains(stderr, "were not carried over") {
			t.Errorf("%v: exit %d, %q; want 0 and a note", args, code, stderr)
		}
	}
}
