package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/testfile"
)

// The -update flag (declared once for the package, in
// common_analysis_test.go) also rewrites these goldens.

// golden compares got with the named file under testdata/ledger, or
// rewrites it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testfile.CheckGolden(t, filepath.Join("../../testdata/ledger", name), got, *update)
}

func TestGoldenExportJSONL(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s.jsonl")
	if code, _, stderr := runCmd(t, "export", "--in", samplePath, "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "sample.graded.jsonl", b)
}

func TestGoldenSummary(t *testing.T) {
	code, stdout, stderr := runCmd(t, "validate", "--summary", samplePath)
	if code != 0 {
		t.Fatal(stderr)
	}
	golden(t, "sample.summary.txt", []byte(stdout))
}
