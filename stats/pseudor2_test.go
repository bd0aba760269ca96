package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// ownRef reaches stats/testdata, where the references of regression
// tests live beside their data, from refDir.
const ownRef = "../../stats/testdata/"

// TestPseudoR2NonIntegerWeights pins Cox–Snell and Nagelkerke R² with
// non-integer frequency weights to n = Σw: the reference
// (pseudor2_weighted.json, from pseudor2_weighted.py beside the data) uses
// statsmodels' llf, llnull and wnobs = Σw = 57.229. Dividing by round(Σw)
// instead is off by about 1e-3 here, far outside the tolerance.
func TestPseudoR2NonIntegerWeights(t *testing.T) {
	var ref struct {
		SumW       float64 `json:"sum_w"`
		Coef       []float64
		LLF        float64 `json:"llf"`
		LLNull     float64 `json:"llnull"`
		CoxSnell   float64 `json:"cox_snell"`
		Nagelkerke float64
	}
	loadJSON(t, ownRef+"pseudor2_weighted.json", &ref)
	c := loadCSV(t, ownRef+"pseudor2_weighted.csv")
	n := len(c["y"])
	X := mat.NewDense(n, 3, nil)
	for i := range n {
		X.Set(i, 0, 1)
		X.Set(i, 1, c["x"][i])
		X.Set(i, 2, c["g"][i])
	}
	r, err := Logistic(X, c["y"], c["w"], LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkRel(t, "Σw", r.SumW, ref.SumW, 1e-14)
	checkVec(t, "coef", r.Coef, ref.Coef, 1e-8)
	check(t, "ℓ₁", r.LogLik, ref.LLF, 1e-9)
	check(t, "ℓ₀", r.NullLogLik, ref.LLNull, 1e-9)
	for _, tc := range []struct {
		name      string
		got, want float64
		rounded   float64
	}{
		{"Cox–Snell", CoxSnell(r.LogLik, r.NullLogLik, r.SumW), ref.CoxSnell, CoxSnell(r.LogLik, r.NullLogLik, r.N)},
		{"Nagelkerke", Nagelkerke(r.LogLik, r.NullLogLik, r.SumW), ref.Nagelkerke, Nagelkerke(r.LogLik, r.NullLogLik, r.N)},
	} {
		checkRel(t, tc.name, tc.got, tc.want, 1e-9)
		// The data must be able to tell the two n apart, or the test
		// above would pass with the old rounding too.
		if math.Abs(tc.rounded-tc.want) < 1e-4 {
			t.Errorf("%s with round(Σw) = %d is %.10g, too close to %.10g to pin n = Σw", tc.name, r.N, tc.rounded, tc.want)
		}
	}
}

// TestPseudoR2IntegerN keeps the row-count form: an int n and the same n as
// float64 give identical bits.
func TestPseudoR2IntegerN(t *testing.T) {
	for _, n := range []int{1, 7, 25930} {
		if a, b := CoxSnell(-10.0, -12.5, n), CoxSnell(-10.0, -12.5, float64(n)); a != b {
			t.Errorf("CoxSnell n=%d: int %v, float %v", n, a, b)
		}
		if a, b := Nagelkerke(-10.0, -12.5, n), Nagelkerke(-10.0, -12.5, float64(n)); a != b {
			t.Errorf("Nagelkerke n=%d: int %v, float %v", n, a, b)
		}
	}
}
