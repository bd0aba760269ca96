package shapley_test

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/shapley"
	"github.com/limbo-toolkit/limbo/stats"
)

// Dataset A of docs/methods.md, Reference values (testdata/stats/datasetA.csv, gen_data.py):
// groups c (2 levels), f (3), m (3), h (2), treatment coding.
type datasetA struct {
	y       []float64
	levels  [][]float64 // per group, the level of each row
	nlevels []int
}

func loadA(t testing.TB) *datasetA {
	f, err := os.Open("../testdata/stats/datasetA.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	d := &datasetA{levels: make([][]float64, 4), nlevels: []int{2, 3, 3, 2}}
	for _, r := range recs[1:] {
		for g := range 4 {
			v, _ := strconv.ParseFloat(r[g], 64)
			d.levels[g] = append(d.levels[g], v)
		}
		v, _ := strconv.ParseFloat(r[4], 64)
		d.y = append(d.y, v)
	}
	return d
}

// design returns the intercept plus the dummies of the groups in subset.
func (d *datasetA) design(subset []int) *mat.Dense {
	n := len(d.y)
	p := 1
	for _, g := range subset {
		p += d.nlevels[g] - 1
	}
	x := mat.NewDense(n, p, nil)
	for i := range n {
		x.Set(i, 0, 1)
		c := 1
		for _, g := range subset {
			for l := 1; l < d.nlevels[g]; l++ {
				if d.levels[g][i] == float64(l) {
					x.Set(i, c, 1)
				}
				c++
			}
		}
	}
	return x
}

// value fits the logistic model of subset on collapsed covariate patterns
// and returns the requested pseudo-R².
func (d *datasetA) value(kind string) shapley.ValueFunc {
	return func(subset []int) (float64, error) {
		if len(subset) == 0 {
			return 0, nil
		}
		xc, yc, wc, _ := stats.CollapsePatterns(d.design(subset), d.y, nil)
		r, err := stats.Logistic(xc, yc, wc, stats.LogisticOptions{})
		if err != nil {
			return 0, err
		}
		switch kind {
		case "mcfadden":
			return stats.McFadden(r.LogLik, r.NullLogLik), nil
		case "nagelkerke":
			return stats.Nagelkerke(r.LogLik, r.NullLogLik, r.N), nil
		case "tjur":
			return stats.TjurWeighted(yc, r.Mu, wc), nil
		}
		return 0, errors.New("unknown kind")
	}
}

func TestExactDatasetA(t *testing.T) {
	var gold struct {
		SubsetsA map[string]float64 `json:"subsetsA_mcfadden"`
		ShapleyA struct {
			Order                      []string
			McFadden, Nagelkerke, Tjur []float64
			Total                      map[string]float64
		}
	}
	b, err := os.ReadFile("../testdata/stats/methods_goldens.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &gold); err != nil {
		t.Fatal(err)
	}
	d := loadA(t)
	// Groups in the order c, f, m, h as the golden table.
	perm := []int{0, 1, 2, 3}
	names := "cfmh"
	const tol = 1e-6 // IRLS
	for kind, want := range map[string][]float64{
		"mcfadden": gold.ShapleyA.McFadden, "nagelkerke": gold.ShapleyA.Nagelkerke, "tjur": gold.ShapleyA.Tjur,
	} {
		res, err := shapley.Exact(4, d.value(kind))
		if err != nil {
			t.Fatal(err)
		}
		if len(want) != 4 {
			t.Fatalf("%s: golden values missing", kind)
		}
		for j := range 4 {
			if math.Abs(res.Values[perm[j]]-want[j]) > tol {
				t.Errorf("%s φ_%c = %.12g, want %.12g", kind, names[j], res.Values[perm[j]], want[j])
			}
		}
		if math.Abs(res.Total-gold.ShapleyA.Total[kind]) > tol {
			t.Errorf("%s total %.12g, want %.12g", kind, res.Total, gold.ShapleyA.Total[kind])
		}
		var share float64
		for j := range 4 {
			share += res.Shares[j]
			// General dominance is the mean of the conditional dominance row.
			var m float64
			for _, v := range res.Dominance[j] {
				m += v
			}
			if math.Abs(m/4-res.Values[j]) > 1e-12 {
				t.Errorf("%s dominance row %d mean %v ≠ φ %v", kind, j, m/4, res.Values[j])
			}
		}
		if math.Abs(share-100) > 1e-9 {
			t.Errorf("%s shares sum to %v", kind, share)
		}
		if kind != "mcfadden" {
			continue
		}
		// Subset values (docs/methods.md, Reference values: dataset A), keyed by group letters.
		if len(gold.SubsetsA) != 15 {
			t.Fatalf("subset table has %d entries", len(gold.SubsetsA))
		}
		for key, v := range gold.SubsetsA {
			mask := 0
			for _, c := range key {
				switch c {
				case 'c':
					mask |= 1
				case 'f':
					mask |= 2
				case 'm':
					mask |= 4
				case 'h':
					mask |= 8
				}
			}
			if math.Abs(res.Subsets[mask]-v) > tol {
				t.Errorf("v(%s) = %.12g, want %.12g", key, res.Subsets[mask], v)
			}
		}
		// Conditional dominance at size 0 is the single-group value.
		if math.Abs(res.Dominance[0][0]-gold.SubsetsA["c"]) > tol {
			t.Errorf("dominance c|0 = %v", res.Dominance[0][0])
		}
	}
}

func TestExactClosedForm(t *testing.T) {
	// Additive game: φ_j = a_j exactly; with an interaction term shared equally.
	a := []float64{0.5, 1, 2}
	v := func(s []int) (float64, error) {
		var x float64
		has := map[int]bool{}
		for _, j := range s {
			x += a[j]
			has[j] = true
		}
		if has[0] && has[1] {
			x += 0.3
		}
		return x, nil
	}
	res, err := shapley.Exact(3, v)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{0.65, 1.15, 2}
	for j := range want {
		if math.Abs(res.Values[j]-want[j]) > 1e-12 {
			t.Errorf("φ_%d = %v, want %v", j, res.Values[j], want[j])
		}
	}
	if _, err := shapley.Exact(2, func([]int) (float64, error) { return math.NaN(), nil }); err == nil {
		t.Error("NaN value: no error")
	}
	calls := 0
	shapley.Exact(5, func([]int) (float64, error) { calls++; return 0, nil })
	if calls != 32 {
		t.Errorf("%d evaluations, want 32", calls)
	}
	res, _ = shapley.Exact(2, func([]int) (float64, error) { return 0, nil })
	if !math.IsNaN(res.Shares[0]) {
		t.Errorf("zero total: share %v, want NaN", res.Shares[0])
	}
}

func ExampleExact() {
	// A game where group 0 adds 0.1, group 1 adds 0.3, and together 0.5.
	v := func(s []int) (float64, error) {
		switch len(s) {
		case 0:
			return 0, nil
		case 2:
			return 0.5, nil
		}
		return []float64{0.1, 0.3}[s[0]], nil
	}
	res, _ := shapley.Exact(2, v)
	fmt.Printf("total %.2f, values %.2f, shares %.0f%%\n", res.Total, res.Values, res.Shares)
	// Output: total 0.50, values [0.15 0.35], shares [30 70]%
}
