package stats

import (
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

func TestEnumsText(t *testing.T) {
	var f Family
	var l Link
	var c Corr
	var v GEECov
	var cv Convention
	for _, tc := range []struct {
		u    interface{ UnmarshalText([]byte) error }
		good string
		bad  string
	}{{&f, "poisson", "negbin"}, {&l, "cloglog", "loglog"}, {&c, "ar1", "ar2"}, {&v, "kc", "hc3"}, {&cv, "geepack", "sas"}} {
		if err := tc.u.UnmarshalText([]byte(tc.good)); err != nil {
			t.Errorf("%T %q: %v", tc.u, tc.good, err)
		}
		if err := tc.u.UnmarshalText([]byte(tc.bad)); err == nil {
			t.Errorf("%T %q: no error", tc.u, tc.bad)
		}
	}
	if f != Poisson || l != LinkCloglog || c != AR1 || v != KC || cv != Geepack {
		t.Errorf("parsed %v %v %v %v %v", f, l, c, v, cv)
	}
	if !LinkProbit.Allowed(Binomial) || LinkProbit.Allowed(Poisson) || !LinkLog.Allowed(Gaussian) {
		t.Error("Allowed")
	}
}

// TestGLMGaussianIsOLS checks the Gaussian identity GLM against the
// closed-form least squares fit of y = a + b x on four points.
func TestGLMGaussianIsOLS(t *testing.T) {
	X := mat.NewDense(4, 2, []float64{1, 0, 1, 1, 1, 2, 1, 3})
	y := []float64{1, 3, 2, 5}
	r, err := GLM(X, y, GLMOptions{Family: Gaussian})
	if err != nil {
		t.Fatal(err)
	}
	// b = Sxy/Sxx = 5.5/5, a = ȳ − b x̄; σ² = RSS/(n−2).
	b := 1.1
	a := 2.75 - b*1.5
	rss := 0.0
	for i, yi := range y {
		e := yi - a - b*float64(i)
		rss += e * e
	}
	checkRel(t, "a", r.Coef[0], a, 1e-12)
	checkRel(t, "b", r.Coef[1], b, 1e-12)
	checkRel(t, "dispersion", r.Dispersion, rss/2, 1e-12)
	checkRel(t, "se(b)", r.SE[1], math.Sqrt(rss/2/5), 1e-12)
	checkRel(t, "loglik", r.LogLik, -2*(math.Log(2*math.Pi*rss/4)+1), 1e-12)
}

func TestGLMErrors(t *testing.T) {
	X := mat.NewDense(3, 2, []float64{1, 2, 1, 2, 1, 2})
	_, err := GLM(X, []float64{1, 2, 3}, GLMOptions{Family: Poisson})
	var se *SingularError
	if !errors.As(err, &se) {
		t.Errorf("aliased design: %v", err)
	}
	ok := mat.NewDense(3, 1, []float64{1, 1, 1})
	mustPanic(t, "negative count", func() { GLM(ok, []float64{1, -1, 0}, GLMOptions{Family: Poisson}) })
	mustPanic(t, "binomial y > 1", func() { GLM(ok, []float64{1, 2, 0}, GLMOptions{Family: Binomial}) })
	mustPanic(t, "link", func() { GLM(ok, []float64{1, 2, 0}, GLMOptions{Family: Poisson, Link: LinkLogit}) })
	mustPanic(t, "family", func() { GLM(ok, []float64{1, 2, 0}, GLMOptions{Family: "negbin"}) })
	// Separation is a warning on the result: the probit fit diverges
	// without reaching fitted probabilities of exactly 0 or 1 in 30
	// iterations, so the warning is the non-convergence.
	sep := mat.NewDense(4, 2, []float64{1, 0, 1, 0, 1, 1, 1, 1})
	r, err := GLM(sep, []float64{0, 0, 1, 1}, GLMOptions{Family: Binomial, Link: LinkProbit, MaxIter: 30})
	if err != nil {
		t.Fatal(err)
	}
	if !hasWarning(r.Warnings, WarnNotConverged) {
		t.Errorf("separation: warnings %v", r.Warnings)
	}
}
