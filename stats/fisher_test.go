package stats

import (
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// fisherTables reads testdata/fisher/fisher.csv: each case's table, row
// by row.
func fisherTables(t *testing.T) map[string][][]int {
	t.Helper()
	f, err := os.Open(filepath.Join(refDir, ownRef, "fisher", "fisher.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][][]int{}
	for _, r := range recs[1:] {
		nr, _ := strconv.Atoi(r[1])
		nc, _ := strconv.Atoi(r[2])
		f := strings.Fields(r[3])
		if len(f) != nr*nc {
			t.Fatalf("case %s: %d counts for %d×%d", r[0], len(f), nr, nc)
		}
		tab := make([][]int, nr)
		for i := range tab {
			tab[i] = make([]int, nc)
			for j := range tab[i] {
				tab[i][j], _ = strconv.Atoi(f[i*nc+j])
			}
		}
		out[r[0]] = tab
	}
	return out
}

// TestFisherExactR checks FisherExact against R 4.2.2 fisher.test
// (testdata/fisher/fisher.json, from fisher.R on fisher.csv): 2×2 tables,
// r×c tables by FEXACT's network algorithm, ties, empty rows and columns,
// and a p-value of 10⁻⁵⁰. Tolerance: 1e-9 relative (the two sum the same
// probabilities in another order).
func TestFisherExactR(t *testing.T) {
	var ref struct {
		Cases []struct {
			Case string
			P    float64
		}
	}
	loadJSON(t, ownRef+"fisher/fisher.json", &ref)
	tables := fisherTables(t)
	if len(ref.Cases) != len(tables) || len(tables) < 10 {
		t.Fatalf("%d reference values for %d tables", len(ref.Cases), len(tables))
	}
	for _, tc := range ref.Cases {
		tab, ok := tables[tc.Case]
		if !ok {
			t.Fatalf("case %s: no table", tc.Case)
		}
		got, err := FisherExact(tab)
		if err != nil {
			t.Errorf("%s: %v", tc.Case, err)
			continue
		}
		if math.Abs(got-tc.P) > 1e-9*tc.P {
			t.Errorf("%s: p = %.15g, want R %.15g", tc.Case, got, tc.P)
		}
		// Transposing the table tests the same independence.
		tr := make([][]int, len(tab[0]))
		for j := range tr {
			tr[j] = make([]int, len(tab))
			for i := range tab {
				tr[j][i] = tab[i][j]
			}
		}
		if p, _ := FisherExact(tr); math.Abs(p-got) > 1e-12*got {
			t.Errorf("%s: transposed p = %.15g, p = %.15g", tc.Case, p, got)
		}
	}
}

// Degenerate tables have p = 1; a table with too many completions is
// refused with NaN, not approximated; caller mistakes panic.
func TestFisherExactEdges(t *testing.T) {
	for _, tab := range [][][]int{nil, {{0, 0}, {0, 0}}, {{3, 4, 5}}, {{1}, {2}}, {{7, 0}, {0, 0}}} {
		if p, err := FisherExact(tab); p != 1 || err != nil {
			t.Errorf("%v: p = %v, %v; want 1", tab, p, err)
		}
	}
	job := fisherTables(t)["job_satisfaction"]
	if p, err := fisherExact(job, 100); !errors.Is(err, ErrFisherTooLarge) || !math.IsNaN(p) {
		t.Errorf("4×4 table with 100 pasts a stage: p = %v, %v; want NaN, ErrFisherTooLarge", p, err)
	}
	for _, bad := range [][][]int{{{1, 2}, {3}}, {{1, -1}, {2, 2}}} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "stats: ") {
					t.Errorf("%v: panic %v, want a stats: panic", bad, r)
				}
			}()
			FisherExact(bad)
		}()
	}
}
