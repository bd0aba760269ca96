package analysis

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// TestNoMatchNamesMissingLevel checks that a --where that keeps nothing
// because it compares a column with a level the column lacks says so,
// naming the column and some of its values, and how to compare a column
// of numbers (an extra CSV column, text that looks numeric) as numbers;
// by the row path (CSV), the column scan (Parquet) and on episodes in
// memory (the preregistration's populations). It used to say only that
// nothing matched, which a preregistration reports as n=0.
func TestNoMatchNamesMissingLevel(t *testing.T) {
	pq := filepath.Join(t.TempDir(), "x.parquet")
	if _, err := ledger.Export(cliLedger, pq, ledger.ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	d, err := table.Read(cliLedger, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sources := map[string]Query{"csv": {Source: &table.Files{Paths: []string{cliLedger}}}, "parquet": {Source: &table.Files{Paths: []string{pq}}}, "memory": {Source: table.Held(d, nil)}}
	for _, tc := range []struct {
		where, want string
	}{
		{`difficulty == "03"`, `(423 read): column difficulty has no value "03" (values, all numbers: 1, 2, 3; to compare as numbers, write difficulty == 3 without quotes)`},
		{`team == "07"`, `(423 read): column team has no value "07" (values: blue, red)`},
		{`fault_fired && team in ("green", "07")`, `column team has none of the values "green", "07" (values: blue, red)`},
		{`difficulty in ("x", "03")`, `column difficulty has none of the values "x", "03" (values, all numbers: 1, 2, 3; to compare as numbers, write difficulty == 3 without quotes)`},
		// A column with one of its levels there is not the reason.
		{`team in ("red", "green") && model == "m1" && model == "m2"`, `(423 read)`},
		{`team in ("red", "green") && difficulty == "4"`, `column difficulty has no value "4" (values, all numbers: 1, 2, 3)`},
		{`model == "zzz" && difficulty == "1"`, `column model has no value "zzz" (values: m1, m2, m3)`},
		// Every level exists: nothing to add.
		{`team == "red" && team == "blue"`, `(423 read)`},
	} {
		for name, q := range sources {
			q.Where = tc.where
			_, err := Rates(q, RatesSpec{Outcome: "duplicated"})
			if err == nil || !strings.HasSuffix(err.Error(), tc.want) || !strings.Contains(err.Error(), "no episode matches Where") {
				t.Errorf("%s, --where %s: %v\nwant …%s", name, tc.where, err, tc.want)
			}
		}
	}
}
