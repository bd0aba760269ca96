package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSeparationDetection covers quasi-complete separation at a reference
// level, near-separation that still has a finite MLE, large-scale numeric
// columns and collapsed frequency-weighted data.
func TestSeparationDetection(t *testing.T) {
	// Factor with 3 levels, reference level 0 all failures: the intercept
	// and both dummies diverge.
	var rows []float64
	var y []float64
	for i := range 90 {
		g := i % 3
		rows = append(rows, 1, b2f(g == 1), b2f(g == 2))
		switch g {
		case 0:
			y = append(y, 0)
		case 1:
			y = append(y, b2f(i%4 == 1))
		default:
			y = append(y, b2f(i%5 < 3))
		}
	}
	X := mat.NewDense(90, 3, rows)
	r, err := Logistic(X, y, nil, LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Separation || len(r.SeparatedTerms) != 3 {
		t.Errorf("reference-level separation: %v %v", r.SeparatedTerms, r.Warnings)
	}
	// Collapsed data give the same flag and the same supremum of ℓ.
	xc, yc, wc, _ := CollapsePatterns(X, y, nil)
	rc, err := Logistic(xc, yc, wc, LogisticOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !rc.Separation || len(rc.SeparatedTerms) != 3 {
		t.Errorf("collapsed separation: %v", rc.SeparatedTerms)
	}
	check(t, "collapsed separated ll", rc.LogLik, r.LogLik, 1e-7)
	// Firth on rows and on patterns agree (the penalty is the same).
	f1, err := Logistic(X, y, nil, LogisticOptions{Firth: true})
	if err != nil {
		t.Fatal(err)
	}
	f2, err := Logistic(xc, yc, wc, LogisticOptions{Firth: true})
	if err != nil {
		t.Fatal(err)
	}
	checkVec(t, "Firth rows vs patterns", f2.Coef, f1.Coef, 1e-8)
	checkVec(t, "Firth rows vs patterns SE", f2.SE, f1.SE, 1e-8)
	for _, b := range f1.Coef {
		if math.Abs(b) > 10 {
			t.Errorf("Firth coefficient %v not finite-looking", b)
		}
	}

	// Near-separation: one overlap point keeps the MLE finite (β ≈ 3–10).
	xs := []float64{-3, -2.5, -2, -1.5, -1, -0.5, 0.5, 1, 1.5, 2, 2.5, 3}
	ys := []float64{0, 0, 0, 0, 1, 0, 1, 0, 1, 1, 1, 1}
	for _, scale := range []float64{1, 1000, 1e-3} {
		data := make([]float64, 0, 24)
		for _, x := range xs {
			data = append(data, 1, x*scale)
		}
		r, err := Logistic(mat.NewDense(12, 2, data), ys, nil, LogisticOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if r.Separation || !r.Converged || len(r.Warnings) > 0 {
			t.Errorf("scale %g: finite MLE flagged: sep %v conv %v %v coef %v", scale, r.Separation, r.Converged, r.Warnings, r.Coef)
		}
	}
}

func TestGEESeparationAndOR(t *testing.T) {
	X := mat.NewDense(8, 2, []float64{1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1})
	y := []float64{0, 1, 0, 1, 1, 1, 1, 1}
	_, err := GEE(X, y, []int{1, 1, 2, 2, 3, 3, 4, 4}, GEEOptions{Names: []string{"(Intercept)", "arm[b]"}})
	if err == nil {
		t.Fatal("GEE under separation: no error")
	}
	or, lo, hi := OddsRatioCI(math.Log(2), 0.5, 0.95)
	checkRel(t, "OR", or, 2, closedTol)
	checkRel(t, "OR lo", lo, 2*math.Exp(-0.5*ZLevel(0.95)), closedTol)
	checkRel(t, "OR hi", hi, 2*math.Exp(0.5*ZLevel(0.95)), closedTol)
}

func TestGEENoPairs(t *testing.T) {
	// Every cluster has one row: the exchangeable α is undefined.
	X := mat.NewDense(6, 1, []float64{1, 1, 1, 1, 1, 1})
	y := []float64{0, 1, 0, 1, 1, 0}
	for _, conv := range []string{"statsmodels", "geepack"} {
		if _, err := GEE(X, y, []int{1, 2, 3, 4, 5, 6}, GEEOptions{Convention: Convention(conv)}); err == nil {
			t.Errorf("%s: no error without within-cluster pairs", conv)
		}
		r, err := GEE(X, y, []int{1, 2, 3, 4, 5, 6}, GEEOptions{Convention: Convention(conv), Corr: "independence"})
		if err != nil {
			t.Fatal(err)
		}
		check(t, conv+" independence intercept", r.Coef[0], 0, 1e-12)
	}
}
