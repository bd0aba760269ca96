package mixed

import (
	"math"
	"testing"
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
			md, _ := newModel(c.spec.X, c.spec.Y, groups)
			md.maxit, md.stepTol, md.tol = 100, 1e-6, 1e-12
			ft := &fitter{md: md, nagq: 1, k: len(groups), p: md.p}
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
