package stats

import (
	"encoding/json"
	"os"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// loadH3Seed5 reads stats/testdata/gee_h3_seed5.csv, H3's seed-5 subset
// collapsed to (template, eventual) cells, as a cell design for
// GEECollapsed and as expanded rows for GEE.
func loadH3Seed5(t *testing.T) (xc *mat.Dense, n, s []float64, cc []int, xr *mat.Dense, y []float64, cr []int) {
	t.Helper()
	recs := readRecords(t, "testdata/gee_h3_seed5.csv")
	ids := map[string]int{}
	var cells, rows []float64
	for i, r := range recs[1:] {
		id, ok := ids[r[0]]
		if !ok {
			id = len(ids)
			ids[r[0]] = id
		}
		var v [3]float64
		for j := range v {
			x, err := strconv.ParseFloat(r[j+1], 64)
			if err != nil {
				t.Fatalf("gee_h3_seed5.csv:%d: %v", i+2, err)
			}
			v[j] = x
		}
		cells = append(cells, 1, v[0])
		n = append(n, v[1])
		s = append(s, v[2])
		cc = append(cc, id)
		for k := 0; k < int(v[1]); k++ {
			rows = append(rows, 1, v[0])
			y = append(y, b2f(k < int(v[2])))
			cr = append(cr, id)
		}
	}
	return mat.NewDense(len(n), 2, cells), n, s, cc, mat.NewDense(len(y), 2, rows), y, cr
}

// TestGEERareNotSeparated is the regression test for H3 being "not
// computable" at seed 5: the strong class has 1 duplicate in 548 episodes,
// a rare outcome but no separation, and statsmodels fits it (eventual
// coefficient 4.67, p = 4e-5). The reference is gee_h3_seed5.json, made by
// gee_h3_seed5.py beside the data.
func TestGEERareNotSeparated(t *testing.T) {
	var ref struct {
		N     int
		Exch  struct{ Coef, SE, P []float64 } `json:"exchangeable"`
		Indep struct{ Coef, SE, P []float64 } `json:"independence"`
	}
	b, err := os.ReadFile("testdata/gee_h3_seed5.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	xc, n, s, cc, xr, y, cr := loadH3Seed5(t)
	if len(y) != ref.N {
		t.Fatalf("expanded %d rows, statsmodels saw %d", len(y), ref.N)
	}
	for _, tc := range []struct {
		corr string
		want struct{ Coef, SE, P []float64 }
	}{
		{"exchangeable", ref.Exch},
		{"independence", ref.Indep},
	} {
		opt := GEEOptions{Corr: Corr(tc.corr), Cov: "robust"}
		rows, err := GEE(xr, y, cr, opt)
		if err != nil {
			t.Fatalf("%s GEE on rows: %v", tc.corr, err)
		}
		cellsFit, err := GEECollapsed(xc, n, s, cc, opt)
		if err != nil {
			t.Fatalf("%s GEECollapsed: %v", tc.corr, err)
		}
		for _, r := range []struct {
			what string
			res  *GEEResult
		}{{"rows", rows}, {"cells", cellsFit}} {
			name := tc.corr + " " + r.what
			if !r.res.Converged || len(r.res.Warnings) > 0 {
				t.Errorf("%s: converged %v, warnings %v", name, r.res.Converged, r.res.Warnings)
			}
			checkVec(t, name+" coef", r.res.Coef, tc.want.Coef, 1e-6)
			checkVec(t, name+" SE", r.res.SE, tc.want.SE, 1e-6)
			for j := range tc.want.P {
				checkRel(t, name+" p", r.res.P[j], tc.want.P[j], 1e-5)
			}
		}
	}
}

// TestGEERealSeparation keeps the check firing where the estimates truly do
// not exist: the same data with the strong class's one duplicate removed is
// quasi-completely separated (no strong episode duplicates), and so is a
// class that always duplicates.
func TestGEERealSeparation(t *testing.T) {
	xc, n, s, cc, _, _, _ := loadH3Seed5(t)
	zero := append([]float64(nil), s...)
	all := append([]float64(nil), s...)
	for k := range s {
		if xc.At(k, 1) == 0 {
			zero[k] = 0
		} else {
			all[k] = n[k]
		}
	}
	for _, tc := range []struct {
		what string
		s    []float64
	}{{"no strong duplicate", zero}, {"every eventual duplicates", all}} {
		for _, corr := range []string{"exchangeable", "independence"} {
			if _, err := GEECollapsed(xc, n, tc.s, cc, GEEOptions{Corr: Corr(corr)}); err == nil {
				t.Errorf("%s, %s: GEE fitted separated data without an error", tc.what, corr)
			}
		}
	}
}
