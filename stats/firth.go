package stats

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// firth maximises Firth's (1993, Biometrika 80:27–38) penalised
// log-likelihood
//
//	ℓ*(β) = ℓ(β) + ½ log det(XᵀWX)
//
// by the modified scoring iteration of Heinze & Schemper (2002) as in R
// logistf (logistf.fit): with hᵢ the diagonal of W^{½}X(XᵀWX)⁻¹XᵀW^{½},
//
//	U* = Xᵀ[ω(y − μ) + h(½ − μ)],  δ = (XᵀWX)⁻¹U*,
//
// steps capped at max|δ| ≤ 5 and halved until ℓ* increases. It converges
// when max|δ| ≤ opt.Tol and max|U*| ≤ opt.Tol·max(1, Σω). Cov = (XᵀWX)⁻¹ at β̂.
// The estimates are always finite, also under separation.
func (f *logitFit) firth(opt LogisticOptions, res *LogisticResult) error {
	f.alloc()
	p := f.p
	beta := make([]float64, p)
	ll := f.update(beta)
	pll, inv, ok := f.penalised(ll)
	if err := f.aliasErr(); err != nil {
		return err
	}
	if !ok {
		return errors.New("information matrix is not positive definite")
	}
	u := make([]float64, p)
	delta := make([]float64, p)
	trial := make([]float64, p)
	row := make([]float64, p)
	for res.Iter = 1; res.Iter <= opt.MaxIter; res.Iter++ {
		// Score of the penalised likelihood at β.
		for j := range u {
			u[j] = 0
		}
		for i := range f.n {
			if f.w[i] == 0 {
				continue
			}
			for j := range row {
				row[j] = 0
			}
			idx, val := f.d.row(i)
			for a, v := range val {
				row[idx[a]] = v
			}
			m := f.mu[i]
			wi := f.w[i] * m * (1 - m)
			h := wi * quadForm(inv, row)
			r := f.w[i]*(f.y[i]-m) + h*(0.5-m)
			for j, v := range row {
				u[j] += r * v
			}
		}
		var d mat.VecDense
		d.MulVec(inv, mat.NewVecDense(p, u))
		maxD, maxU := 0.0, 0.0
		for j := range p {
			delta[j] = d.AtVec(j)
			maxD = math.Max(maxD, math.Abs(delta[j]))
			maxU = math.Max(maxU, math.Abs(u[j]))
		}
		// The score is a sum over rows: scale its tolerance by Σω so large
		// data sets are not held to a bound below rounding error.
		if maxD <= opt.Tol && maxU <= opt.Tol*math.Max(1, res.SumW) {
			res.Converged = true
			break
		}
		if maxD > 5 {
			for j := range delta {
				delta[j] *= 5 / maxD
			}
		}
		var newPll float64
		var newInv *mat.SymDense
		accepted := false
		for h := 0; h < 40; h++ {
			for j := range p {
				trial[j] = beta[j] + delta[j]
			}
			newLL := f.update(trial)
			var ok bool
			newPll, newInv, ok = f.penalised(newLL)
			if ok && newPll >= pll-1e-12*math.Abs(pll) {
				ll = newLL
				accepted = true
				break
			}
			for j := range delta {
				delta[j] /= 2
			}
		}
		if !accepted {
			f.update(beta)
			break
		}
		copy(beta, trial)
		pll, inv = newPll, newInv
	}
	if res.Iter > opt.MaxIter {
		res.Iter = opt.MaxIter
	}
	res.Coef = beta
	res.LogLik = f.update(beta)
	res.Warnings = append(res.Warnings, Warning{WarnApproximate, "Firth penalised likelihood: standard errors from (XᵀWX)⁻¹; Wald tests are approximate"})
	return f.covariance(res)
}

// penalised returns ℓ + ½ log det(XᵀWX) and the inverse information at the
// current μ.
func (f *logitFit) penalised(ll float64) (float64, *mat.SymDense, bool) {
	for i := range f.n {
		f.wt[i] = f.w[i] * f.mu[i] * (1 - f.mu[i])
	}
	f.d.gram(0, f.n, f.wt, nil, f.g, nil)
	inv, ch, ok := symInverse(f.g)
	if !ok {
		return math.NaN(), nil, false
	}
	return ll + 0.5*ch.LogDet(), inv, true
}

// quadForm returns xᵀAx for symmetric A (upper triangle stored).
func quadForm(a *mat.SymDense, x []float64) float64 {
	raw := a.RawSymmetric()
	p := len(x)
	var s float64
	for i := range p {
		row := raw.Data[i*raw.Stride : i*raw.Stride+p]
		// Upper triangle holds the data.
		t := row[i] * x[i]
		for j := i + 1; j < p; j++ {
			t += 2 * row[j] * x[j]
		}
		s += t * x[i]
	}
	return s
}
