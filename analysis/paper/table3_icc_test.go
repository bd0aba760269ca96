package paper

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/testfile"
)

// Table 3 with one ICC pooled across its columns, on the committed sample
// ledger, against base R (testdata/analysis/table3_pooled_icc.R: ICCs from
// anova(lm()), Wilson on the clustered n_eff). Rates and n are the
// per-column table's; only n_eff and the intervals differ, and every cell
// shares one n_eff scale.
func TestTable3PooledICC(t *testing.T) {
	d := loadSample(t)
	recs := testfile.ReadCSV(t, filepath.Join("..", "..", "testdata", "analysis", "table3_pooled_icc.csv"))
	pooled, err := Table3With(d, ICCPooled)
	if err != nil {
		t.Fatal(err)
	}
	per, err := Table3With(d, ICCPerColumn)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) < 10 {
		t.Fatalf("reference has %d rows", len(recs))
	}
	widerSomewhere := false
	for _, r := range recs[1:] {
		model, col := r[0], r[1]
		num := func(i int) float64 {
			v, err := strconv.ParseFloat(r[i], 64)
			if err != nil {
				t.Fatalf("reference %v: %v", r, err)
			}
			return v
		}
		c, ok := pooled.Cell(model, col)
		if !ok {
			t.Fatalf("no cell %s/%s", model, col)
		}
		if c.N != int(num(2)) || !near(c.Value, num(3), 1e-9) || !near(c.NEff, num(6), 1e-7) ||
			!near(c.Lo, num(4), 1e-7) || !near(c.Hi, num(5), 1e-7) {
			t.Errorf("%s/%s: %.6f [%.6f, %.6f] n %d n_eff %.6f; R: %s [%s, %s] n %s n_eff %s",
				model, col, c.Value, c.Lo, c.Hi, c.N, c.NEff, r[3], r[4], r[5], r[2], r[6])
		}
		p, _ := per.Cell(model, col)
		if p.Value != c.Value || p.N != c.N {
			t.Errorf("%s/%s: pooled ICC changed the rate: %v (n %d) vs %v (n %d)", model, col, c.Value, c.N, p.Value, p.N)
		}
		if c.Hi-c.Lo > p.Hi-p.Lo+1e-9 {
			widerSomewhere = true
		}
	}
	if !widerSomewhere {
		t.Error("pooling the ICC widened no interval; the sample should have a column below the pooled ICC")
	}
	if _, err := Table3With(d, "bogus"); err == nil {
		t.Error("an unknown ICC convention must be an error")
	}
	// The default is the pooled convention, and each caption says which.
	def, err := Table3(d)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range pooled.Rows {
		for j, c := range r.Cells {
			if !cellsEqual(def.Rows[i].Cells[j], c) {
				t.Fatalf("default Table 3 %s/%s differs from the pooled one", r.Key, pooled.Columns[j].Key)
			}
		}
	}
	if !strings.Contains(def.Caption, "one ICC over task templates pooled across the columns") ||
		!strings.Contains(per.Caption, "ICC over task templates pooled per column") {
		t.Errorf("captions do not name the convention:\n%s\n%s", def.Caption, per.Caption)
	}
	var icc ICC
	if err := icc.UnmarshalText([]byte("mean")); err == nil || !strings.Contains(err.Error(), "per-column or pooled") {
		t.Errorf("UnmarshalText(mean) = %v, want an error naming the conventions", err)
	}
	if err := icc.UnmarshalText([]byte("per-column")); err != nil || icc != ICCPerColumn {
		t.Errorf("UnmarshalText(per-column) = %v, %q", err, icc)
	}
}
