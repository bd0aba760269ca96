package mixed

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestLapGrad checks the analytic gradient of the Laplace deviance against
// central differences of the deviance (step 1e-4: truncation error about 1e-7, quadratic in the step) away from
// the optimum, for crossed (VerbAgg) and single intercepts.
func TestLapGrad(t *testing.T) {
	full := verbAggSpec(t, 1)
	one := full
	one.Terms = full.Terms[:1]
	for _, c := range []struct {
		name string
		spec Spec
		par  []float64
	}{
		{"crossed", full, []float64{1.2, -0.6, 0.1, 0.05, 0.3, -1, -2, -1}},
		{"single", one, []float64{0.9, 0.3, 0.06, 0.25, -0.9, -1.8, -0.9}},
	} {
		t.Run(c.name, func(t *testing.T) {
			groups := make([]Group, len(c.spec.Terms))
			for k, tm := range c.spec.Terms {
				groups[k] = Group{Name: tm.Name, Index: tm.Group, Levels: make([]string, tm.Levels)}
			}
			md, _ := newModel(c.spec.X, c.spec.Y, groups, true)
			md.maxit, md.stepTol, md.tol = 100, 1e-6, 1e-12
			ft := &fitter{md: md, nagq: 1, k: len(groups), p: md.p, fast: true}
			ft.dev(c.par)
			g := make([]float64, len(c.par))
			md.lapGrad(g)
			fd := gradient(ft.dev, c.par, 1e-4)
			var worst float64
			for j := range g {
				d := math.Abs(g[j]-fd[j]) / math.Max(1, math.Abs(fd[j]))
				worst = math.Max(worst, d)
				if d > 1e-6 {
					t.Errorf("∂d/∂par[%d] = %.8g, central difference %.8g", j, g[j], fd[j])
				}
			}
			t.Logf("max relative difference %.1e", worst)
		})
	}
}

// TestLapHessian checks the Hessian from central differences of the
// analytic gradient against the deriv12 stencil on the deviance, and
// hessian0 against it, on VerbAgg near its optimum. deriv12 has step 1e-3
// here: at lme4's 1e-4 its rounding error (deviance noise over δ², about
// 0.01) exceeds the tolerance.
func TestLapHessian(t *testing.T) {
	s := verbAggSpec(t, 1)
	groups := make([]Group, len(s.Terms))
	for k, tm := range s.Terms {
		groups[k] = Group{Name: tm.Name, Index: tm.Group, Levels: make([]string, tm.Levels)}
	}
	md, _ := newModel(s.X, s.Y, groups, true)
	md.maxit, md.stepTol, md.tol = 100, 1e-6, 1e-12
	ft := &fitter{md: md, nagq: 1, k: len(groups), p: md.p, fast: true}
	x := []float64{1.34, 0.495, 0.2, 0.057, 0.32, -1.06, -2.1, -1.06}
	fx := ft.dev(x)
	_, h := ft.hessian(x, fx)
	_, h0 := ft.hessian0(x, fx)
	_, hd := deriv12(ft.dev, x, fx, 1e-3)
	n := len(x)
	for i := range n {
		for j := 0; j <= i; j++ {
			scale := math.Sqrt(math.Abs(hd.At(i, i) * hd.At(j, j)))
			if d := math.Abs(h.At(i, j)-hd.At(i, j)) / scale; d > 1e-5 {
				t.Errorf("H[%d,%d] = %.8g, deriv12 %.8g", i, j, h.At(i, j), hd.At(i, j))
			}
			// The θ columns of hessian0 are those of hessian (not
			// symmetrised); its ββ block omits the second derivative of
			// log det H, 0.6% here.
			tol := 1e-6
			if i >= ft.k && j >= ft.k {
				tol = 0.01
			}
			if d := math.Abs(h0.At(i, j)-h.At(i, j)) / scale; d > tol {
				t.Errorf("H0[%d,%d] = %.8g, H %.8g", i, j, h0.At(i, j), h.At(i, j))
			}
		}
	}
}

// TestBFGSUpdate checks the secant condition H₊dx = gn − g and that a
// step without positive curvature leaves H alone.
func TestBFGSUpdate(t *testing.T) {
	h := mat.NewSymDense(3, []float64{4, 1, 0, 1, 3, 0.5, 0, 0.5, 2})
	dx := []float64{0.1, -0.2, 0.05}
	g := []float64{1, 2, 3}
	gn := []float64{1.5, 1.6, 3.2}
	bfgsUpdate(h, dx, g, gn)
	var hs mat.VecDense
	hs.MulVec(h, mat.NewVecDense(3, dx))
	for i := range dx {
		if d := math.Abs(hs.AtVec(i) - (gn[i] - g[i])); d > 1e-14 {
			t.Errorf("(H₊dx)[%d] = %.17g, want %.17g", i, hs.AtVec(i), gn[i]-g[i])
		}
	}
	before := mat.NewSymDense(3, nil)
	before.CopySym(h)
	bfgsUpdate(h, dx, gn, g) // curvature (g − gn)ᵀdx < 0
	if !mat.Equal(h, before) {
		t.Errorf("H changed by a step of negative curvature")
	}
}
