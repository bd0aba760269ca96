package stats

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// AverageResponse averages the inverse link over the rows with their
// weights; marginal over a normal random part it matches the closed
// forms E[exp(η + sZ)] = exp(η + s²/2) and E[Φ(η + sZ)] = Φ(η/√(1+s²))
// and their derivatives in η (40-node Gauss–Hermite: 1e-10).
func TestAverageResponse(t *testing.T) {
	X := mat.NewDense(3, 2, []float64{1, 0, 1, 1, 1, 2})
	beta := []float64{-0.5, 0.7}
	w := []float64{1, 2, 0}
	off := []float64{0.1, 0, 5}
	eta := []float64{-0.4, 0.2}
	for _, tc := range []struct {
		link Link
		sd   []float64
		mu   func(eta, s float64) float64
		dmu  func(eta, s float64) float64
	}{
		{LinkLogit, nil, func(e, _ float64) float64 { return 1 / (1 + math.Exp(-e)) },
			func(e, _ float64) float64 { p := 1 / (1 + math.Exp(-e)); return p * (1 - p) }},
		{LinkIdentity, nil, func(e, _ float64) float64 { return e }, func(float64, float64) float64 { return 1 }},
		{LinkLog, []float64{0.8, 1.3, 0}, func(e, s float64) float64 { return math.Exp(e + s*s/2) },
			func(e, s float64) float64 { return math.Exp(e + s*s/2) }},
		{LinkProbit, []float64{0.8, 1.3, 0}, func(e, s float64) float64 { return distuv.UnitNormal.CDF(e / math.Sqrt(1+s*s)) },
			func(e, s float64) float64 { return distuv.UnitNormal.Prob(e/math.Sqrt(1+s*s)) / math.Sqrt(1+s*s) }},
	} {
		t.Run(string(tc.link), func(t *testing.T) {
			a := AverageResponse(X, beta, MeanOptions{Link: tc.link, Offset: off, Weights: w, SD: tc.sd})
			var mean float64
			grad := make([]float64, 2)
			for i := range 2 { // row 2 has weight 0
				s := 0.0
				if tc.sd != nil {
					s = tc.sd[i]
				}
				mean += w[i] * tc.mu(eta[i], s)
				for j := range 2 {
					grad[j] += w[i] * tc.dmu(eta[i], s) * X.At(i, j)
				}
			}
			mean /= 3
			if !close(a.Mean, mean, 1e-10) || a.SumW != 3 {
				t.Errorf("mean %.15g (Σw %v), want %.15g (3)", a.Mean, a.SumW, mean)
			}
			for j := range grad {
				if !close(a.Grad[j], grad[j]/3, 1e-10) {
					t.Errorf("grad[%d] = %.15g, want %.15g", j, a.Grad[j], grad[j]/3)
				}
			}
		})
	}
}

// The contrasts' gradients are those of the estimates (central
// differences in β), and their SEs the delta method's.
func TestMeanContrastGradients(t *testing.T) {
	Xa := mat.NewDense(4, 3, []float64{1, 0, 0.5, 1, 0, -1, 1, 0, 2, 1, 0, 0})
	Xb := mat.NewDense(4, 3, []float64{1, 1, 0.5, 1, 1, -1, 1, 1, 2, 1, 1, 0})
	beta := []float64{-0.3, 0.9, 0.4}
	cov := mat.NewSymDense(3, []float64{0.04, -0.01, 0.002, -0.01, 0.05, 0.001, 0.002, 0.001, 0.03})
	avg := func(b []float64) (AveragePrediction, AveragePrediction) {
		o := MeanOptions{Link: LinkLogit}
		return AverageResponse(Xa, b, o), AverageResponse(Xb, b, o)
	}
	a, b := avg(beta)
	d := MeanDifference(a, b, cov, 0.95)
	r := MeanRatio(a, b, cov, 0.95)
	const h = 1e-6
	for j := range beta {
		up, dn := append([]float64(nil), beta...), append([]float64(nil), beta...)
		up[j] += h
		dn[j] -= h
		au, bu := avg(up)
		ad, bd := avg(dn)
		if g := ((bu.Mean - au.Mean) - (bd.Mean - ad.Mean)) / (2 * h); !close(d.Grad[j], g, 1e-8) {
			t.Errorf("difference gradient[%d] = %v, want %v", j, d.Grad[j], g)
		}
		if g := (bu.Mean/au.Mean - bd.Mean/ad.Mean) / (2 * h); !close(r.Grad[j], g, 1e-8) {
			t.Errorf("ratio gradient[%d] = %v, want %v", j, r.Grad[j], g)
		}
	}
	g := mat.NewVecDense(3, d.Grad)
	if se := math.Sqrt(mat.Inner(g, cov, g)); !close(d.SE, se, 1e-14) {
		t.Errorf("SE %v, want %v", d.SE, se)
	}
	z := ZLevel(0.95)
	if !close(d.Lo, d.Estimate-z*d.SE, 1e-14) || !close(r.Lo, r.Estimate*math.Exp(-z*r.SE/r.Estimate), 1e-14) {
		t.Errorf("intervals: difference [%v, %v], ratio [%v, %v]", d.Lo, d.Hi, r.Lo, r.Hi)
	}
	if !close(r.Z, math.Log(r.Estimate)/(r.SE/r.Estimate), 1e-14) || !close(d.P, 2*NormalUpper(math.Abs(d.Estimate/d.SE)), 1e-14) {
		t.Errorf("tests: ratio z %v, difference p %v", r.Z, d.P)
	}
}

func ExampleMeanDifference() {
	// Two rows, each predicted under the base level (x = 0) and the other
	// (x = 1) of a logistic model with β = (−1, 0.8) and covariance V.
	base := mat.NewDense(2, 2, []float64{1, 0, 1, 0})
	other := mat.NewDense(2, 2, []float64{1, 1, 1, 1})
	beta := []float64{-1, 0.8}
	v := mat.NewSymDense(2, []float64{0.04, -0.04, -0.04, 0.09})
	a := AverageResponse(base, beta, MeanOptions{Link: LinkLogit})
	b := AverageResponse(other, beta, MeanOptions{Link: LinkLogit})
	d := MeanDifference(a, b, v, 0.95)
	fmt.Printf("risk %.3f → %.3f: difference %.1f pp [%.1f, %.1f]\n", a.Mean, b.Mean, 100*d.Estimate, 100*d.Lo, 100*d.Hi)
	// Output: risk 0.269 → 0.450: difference 18.1 pp [4.8, 31.4]
}
