package mixed

import (
	"math"
	"testing"
	"time"
)

func TestTmpHess(t *testing.T) {
	ref := readRef(t)
	for _, c := range glmmCases() {
		s := c.spec(t)
		t0 := time.Now()
		res, err := Fit(s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		el := time.Since(t0)
		sp, _ := check(&s)
		L, _ := newLayout(&s, sp.p)
		md := newGModel(&s, L, sp.link)
		ft := &gfitter{md: md, nth: L.nth, p: md.p, nagq: 1}
		x := append(append([]float64(nil), res.Theta...), res.Coef...)
		fx := ft.dev(x)
		worst := 0.0
		for j, v := range res.SE {
			worst = math.Max(worst, math.Abs(v/ref[c.name].SE[j]-1))
		}
		t.Logf("%s: fit %v, %d evals, SE %s vs lme4 %.2e", c.name, el, res.Iter, res.SEMethod, worst)
		for _, d := range []float64{1e-3, 1e-4, 1e-5} {
			_, h := deriv12(ft.dev, x, fx, d)
			cov := covHessian(h, L.nth, md.p)
			if cov == nil {
				t.Logf("   δ %g: not PD", d)
				continue
			}
			w := 0.0
			for j := 0; j < md.p; j++ {
				w = math.Max(w, math.Abs(math.Sqrt(cov.At(j, j))/ref[c.name].SE[j]-1))
			}
			t.Logf("   δ %g: vs lme4 %.2e", d, w)
		}
	}
}
