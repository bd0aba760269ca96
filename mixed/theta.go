package mixed

import (
	"math"
)

// minimizeTheta minimises f over θ from th: Nelder–Mead, then Newton
// steps on the central-difference Hessian to polish, then lme4's boundary
// check (a diagonal θ within boundaryTol of 0 is set to 0 when that does
// not raise f). f is smooth and depends on θ only through ΛΛᵀ, so no
// bounds are needed.
func minimizeTheta(f func([]float64) float64, th []float64, L *layout, maxIter int) ([]float64, float64, bool) {
	r := nelderMead(f, th, 0.2, 1e-12, maxIter)
	x, fx := r.X, r.F
	ok := polish(f, &x, &fx, 30)
	for _, t := range L.terms {
		for k := 0; k < t.ntheta; k++ {
			i := t.thOff + k
			if !t.isDiagTheta(k) || x[i] == 0 || math.Abs(x[i]) >= boundaryTol {
				continue
			}
			xb := append([]float64(nil), x...)
			xb[i] = 0
			if fb := f(xb); fb <= fx+1e-10*(1+math.Abs(fx)) {
				x, fx = xb, fb
			}
		}
	}
	return x, fx, ok || r.Converged
}

// polish takes Newton steps with a halving line search on the
// central-difference gradient and Hessian of f (step 1e-5) until the step
// is below 1e-9 or no step lowers f. It reports whether it stopped there.
func polish(f func([]float64) float64, x *[]float64, fx *float64, maxIt int) bool {
	n := len(*x)
	xn := make([]float64, n)
	const h = 1e-5
	for it := 0; it < maxIt; it++ {
		g, H := deriv12(f, *x, *fx, h)
		s := newtonStep(H, g)
		if s == nil {
			return false
		}
		var smax float64
		for _, v := range s {
			smax = math.Max(smax, math.Abs(v))
		}
		if smax < 1e-9 {
			return true
		}
		lowered := false
		for t := 1.0; t > 1e-8; t /= 2 {
			for i := range xn {
				xn[i] = (*x)[i] - t*s[i]
			}
			if fn := f(xn); fn < *fx {
				copy(*x, xn)
				*fx = fn
				lowered = true
				break
			}
		}
		if !lowered {
			return smax < 1e-4
		}
	}
	return false
}
