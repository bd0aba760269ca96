package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// LogChoose against R's lchoose (lchoose.json, from lchoose.R), for n from
// 0 to 2^53; relative 1e-13 (the lgamma difference the GLM used before is
// off by about 1e-3 absolute at n = 1e12, 0.3 at 1e15).
func TestLogChoose(t *testing.T) {
	var ref struct {
		Cases []struct{ N, K, Lchoose float64 }
	}
	loadJSON(t, ownRef+"lchoose.json", &ref)
	if len(ref.Cases) < 150 {
		t.Fatalf("%d reference cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		got := LogChoose(c.N, c.K)
		if math.Abs(got-c.Lchoose) > 1e-13*math.Max(1, math.Abs(c.Lchoose)) {
			t.Errorf("LogChoose(%.17g, %.17g) = %.17g, want R %.17g", c.N, c.K, got, c.Lchoose)
		}
	}
	if !math.IsInf(LogChoose(3, 4), -1) || !math.IsInf(LogChoose(3, -1), -1) {
		t.Error("k outside [0, n] is not −Inf")
	}
}

// The binomial GLM's log-likelihood with trials near 10^12 against R's glm
// (glm_bigcounts.json, from glm_bigcounts.R on glm_bigcounts.csv): the
// log-likelihood to 1e-6 and the AIC with it (issue 37, case 11: it was
// off in the second decimal).
func TestGLMBigCounts(t *testing.T) {
	var ref struct {
		Intercept, X, Loglik, AIC float64
	}
	loadJSON(t, ownRef+"glm_bigcounts.json", &ref)
	d := loadCSV(t, ownRef+"glm_bigcounts.csv")
	n := len(d["k"])
	X := mat.NewDense(n, 2, nil)
	y := make([]float64, n)
	for i := range n {
		X.Set(i, 0, 1)
		X.Set(i, 1, d["x"][i])
		y[i] = d["k"][i] / d["n"][i]
	}
	r, err := GLM(X, y, GLMOptions{Family: Binomial, Weights: d["n"], Trials: d["n"]})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Coef[0]-ref.Intercept) > 1e-6 || math.Abs(r.Coef[1]-ref.X) > 1e-6 {
		t.Errorf("coefficients %v, want R %v, %v", r.Coef, ref.Intercept, ref.X)
	}
	if math.Abs(r.LogLik-ref.Loglik) > 1e-6 || math.Abs(r.AIC-ref.AIC) > 2e-6 {
		t.Errorf("loglik %.10f AIC %.10f, want R %.10f %.10f", r.LogLik, r.AIC, ref.Loglik, ref.AIC)
	}
}

// BinomialLogPMF against R's dbinom(log = TRUE) (dbinom.json, from
// dbinom.R), n up to 1e15 and p to within 1e-12 of 0 and 1; relative
// 1e-12 (absolute 1e-12 near 0).
func TestBinomialLogPMF(t *testing.T) {
	var ref struct {
		Cases []struct{ N, K, P, Log float64 }
	}
	loadJSON(t, ownRef+"dbinom.json", &ref)
	if len(ref.Cases) < 800 {
		t.Fatalf("%d reference cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		got := BinomialLogPMF(c.K, c.N, c.P)
		if math.IsInf(c.Log, -1) && math.IsInf(got, -1) {
			continue
		}
		if math.Abs(got-c.Log) > 1e-12*math.Max(1, math.Abs(c.Log)) {
			t.Errorf("BinomialLogPMF(%.17g, %.17g, %.17g) = %.17g, want R %.17g", c.K, c.N, c.P, got, c.Log)
		}
	}
}
