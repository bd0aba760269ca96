package main

import (
	"os"
	"path/filepath"
	"testing"
)

func TestParseAndPlot(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "t.md")
	table := `| command | ledger | wall s | CPU s | peak RSS MiB | load |
|---|---|---:|---:|---:|---:|
| rates | 26k.parquet | 0.18 | 0.08 | 46 | 5.83 |
| rates | 1m.parquet | 2.77 | 1.40 | 126 | 6.00 |
| paired | 1m.parquet | 27.10 | 9.10 | 577 | 6.00 |
| shapley (3 factors) | 1mx.parquet | 2.0 | 1.1 | 118 | 8.65 |
`
	if err := os.WriteFile(in, []byte(table), 0o644); err != nil {
		t.Fatal(err)
	}
	s, order, err := parse(in)
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 2 || order[0] != "rates" || len(s["rates"]) != 2 || s["rates"][1] != (point{1e6, 1.40, 126}) {
		t.Errorf("parse: %v %v", order, s)
	}
	out := filepath.Join(dir, "s.png")
	if err := run(in, out); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() < 1000 {
		t.Errorf("no PNG written: %v", err)
	}
}
