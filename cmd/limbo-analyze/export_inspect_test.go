package main

import (
	"archive/zip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// export --to inspect-log writes an Inspect .eval log (a zip with a
// sample per episode); a wrong --to or output name is a usage error.
func TestExportInspectLog(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sample.eval")
	if code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", out, "--to", "inspect-log"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	z, err := zip.OpenReader(out)
	if err != nil {
		t.Fatal(err)
	}
	defer z.Close()
	samples := 0
	for _, f := range z.File {
		if strings.HasPrefix(f.Name, "samples/") {
			samples++
		}
	}
	if want := len(readSample(t)) - 1; samples != want {
		t.Errorf("%d samples, want one per episode (%d)", samples, want)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--to", "nope", "--out", filepath.Join(dir, "x.eval")}, `--to "nope"`},
		{[]string{"--to", "inspect-log", "--out", filepath.Join(dir, "x.jsonl")}, "name --out X.eval"},
		{[]string{"--to", "inspect-log", "--out", filepath.Join(dir, "x.eval"), "--format", "csv"}, "neither --format"},
	} {
		code, _, stderr := runCmd(t, append([]string{"export", "--in", samplePath}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 and %q", c.args, code, stderr, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "x.eval")); err == nil {
		t.Error("a refused export left a file")
	}
}

// export --to hf-dataset writes a dataset folder (the Parquet table and a
// card naming every column) and refuses a folder that holds anything.
func TestExportHFDataset(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "hf")
	if code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", dir, "--to", "hf-dataset"); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	card, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"config_name: episodes\n  data_files: data/episodes.parquet", "| `fault_mode` | categorical: ", "  - name: eos\n    dtype: bool"} {
		if !strings.Contains(string(card), want) {
			t.Errorf("card lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "episodes.parquet")); err != nil {
		t.Error(err)
	}
	code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", dir, "--to", "hf-dataset")
	if code != exitUsage || !strings.Contains(stderr, "not empty") {
		t.Errorf("into a folder that holds files: exit %d, %q; want a usage error", code, stderr)
	}
}
