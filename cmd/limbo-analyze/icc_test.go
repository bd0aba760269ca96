package main

import (
	"encoding/csv"
	"strings"
	"testing"
)

// `--icc per-column` changes Table 3's intervals (one ICC per column) and
// nothing else; the default is pooled (one ICC across its columns, the
// paper's); an unknown convention is a usage error (exit 2) on tables and
// report.
func TestTablesICCFlag(t *testing.T) {
	in := analysisSample(t)
	table3 := func(args ...string) [][]string {
		t.Helper()
		code, out, errs := runCmd(t, append([]string{"tables", "--in", in, "--table", "3", "--format", "csv"}, args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
		recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return recs
	}
	def, per, pooled := table3(), table3("--icc", "per-column"), table3("--icc", "pooled")
	if !equalRecords(def, pooled) {
		t.Error("the default is not --icc pooled")
	}
	if equalRecords(per, pooled) || len(per) != len(pooled) {
		t.Error("--icc pooled left Table 3 unchanged")
	}
	for _, args := range [][]string{
		{"tables", "--in", in, "--icc", "mean"},
		{"report", "--in", in, "--out", t.TempDir() + "/r", "--icc", "mean"},
	} {
		if code, _, errs := runCmd(t, args...); code != 2 || !strings.Contains(errs, "--icc") {
			t.Errorf("%v: exit %d (%s), want a usage error naming --icc", args, code, errs)
		}
	}
}

func equalRecords(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}
