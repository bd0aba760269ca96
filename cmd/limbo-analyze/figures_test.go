package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/testfile"
)

// plotsLedger unpacks the small committed ledger of the figure tests.
func plotsLedger(t *testing.T) string {
	t.Helper()
	return testfile.GunzipTemp(t, filepath.Join("..", "..", "testdata", "plots", "ledger.csv.gz"), "ledger.csv")
}

func TestFiguresCommand(t *testing.T) {
	in := plotsLedger(t)
	out := filepath.Join(t.TempDir(), "figs") // created by the command
	var stdout, stderr bytes.Buffer
	code := run([]string{"figures", "--in", in, "--out", out, "--format", "svg,pdf"}, nil, &stdout, &stderr)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	lines := strings.Fields(stdout.String())
	if len(lines) != 12 {
		t.Fatalf("printed %d paths, want 12 (6 figures × 2 formats): %q", len(lines), lines)
	}
	for _, l := range lines {
		st, err := os.Stat(l)
		if err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", l, err)
		}
	}
	if strings.Contains(stderr.String(), "warning: Figure") {
		t.Errorf("a figure was skipped: %s", stderr.String())
	}
}

func TestFiguresCommandUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"figures", "--out", "x"}, exitUsage, "--in is required"},
		{[]string{"figures", "--in", "x.csv"}, exitUsage, "--out is required"},
		{[]string{"figures", "--in", "x.csv", "--out", "d", "--format", "gif"}, exitUsage, `--format "gif"`},
		{[]string{"figures", "--in", "x.csv", "--out", "d", "--format", ","}, exitUsage, "--format is empty"},
		{[]string{"figures", "--in", filepath.Join(t.TempDir(), "missing.csv"), "--out", t.TempDir()}, exitFailure, "missing.csv"},
	} {
		var stdout, stderr bytes.Buffer
		code := run(tc.args, nil, &stdout, &stderr)
		if code != tc.code || !strings.Contains(stderr.String(), tc.msg) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d mentioning %q", tc.args, code, stderr.String(), tc.code, tc.msg)
		}
	}
}
