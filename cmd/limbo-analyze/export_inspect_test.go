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
