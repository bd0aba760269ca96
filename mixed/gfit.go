package mixed

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/stats"
)

// gfitter runs glmer's two optimisation stages on a gmodel.
type gfitter struct {
	md     *gmodel
	nth, p int
	nagq   int     // quadrature nodes of the stage-2 deviance (1: Laplace)
	gh     *ghRule // for nagq > 1
	rows   [][]int // rows per level of the single term, for nagq > 1
	pirlsTally
}

func (ft *gfitter) check(d float64, err error) float64 {
	d, _ = ft.tally(d, err, ft.md.u)
	return d
}

// dev0 is the stage-1 objective: the Laplace deviance at θ with β at the
// joint PIRLS mode.
func (ft *gfitter) dev0(theta []float64) float64 {
	ft.nEval++
	ft.md.setTheta(theta)
	d, err := ft.md.laplace(true)
	return ft.check(d, err)
}

// dev is the stage-2 objective, the Laplace or AGQ deviance at (θ, β).
func (ft *gfitter) dev(par []float64) float64 {
	ft.nEval++
	md := ft.md
	if !slices.Equal(md.theta, par[:ft.nth]) {
		md.setTheta(par[:ft.nth])
	}
	copy(md.beta, par[ft.nth:])
	var d float64
	var err error
	if ft.nagq > 1 {
		d, err = md.agq(ft.gh, ft.rows)
	} else {
		d, err = md.laplace(false)
	}
	return ft.check(d, err)
}

// newtonFD minimises f from x by Newton steps on the central-difference
// Hessian (lme4's deriv12 stencil, step δ), stopping at a predicted
// decrease below 1e-9 (see newtonMin). Before each central gradient f is
// evaluated at x again, to restore the modes there as the warm start.
func newtonFD(f func([]float64) float64, x *[]float64, fx *float64, evals func() int, limit int) (g []float64, h *mat.SymDense, stale, ok bool) {
	hess := func(x []float64, fx float64) ([]float64, *mat.SymDense) { return deriv12(f, x, fx, derivStep) }
	nm := newtonMin{f: f, hess0: hess, hess: hess, evals: evals, decStop: true,
		grad: func(x []float64) []float64 {
			f(x)
			return gradient(f, x, derivStep)
		}}
	return nm.run(x, fx, limit)
}

// startBeta sets β's intercept (a column of ones, if any) to the link of
// the mean response, so that η starts in the link's domain.
func startBeta(md *gmodel, link stats.Link) {
	var sy, sm float64
	for i := range md.y {
		sy += md.pw[i] * md.y[i]
		sm += md.pw[i] * md.m[i]
	}
	mu := (sy + 0.5) / (sm + 1)
	for j := 0; j < md.p; j++ {
		one := true
		for i := 0; i < md.n && one; i++ {
			one = md.x[i*md.p+j] == 1
		}
		if !one {
			continue
		}
		switch link {
		case stats.LinkLogit:
			md.beta[j] = math.Log(mu / (1 - mu))
		case stats.LinkProbit:
			md.beta[j] = -math.Sqrt2 * math.Erfcinv(2*mu)
		case stats.LinkCloglog:
			md.beta[j] = math.Log(-math.Log1p(-mu))
		case stats.LinkLog:
			md.beta[j] = math.Log(mu)
		}
		return
	}
}

// fitGLMM fits a binomial or Poisson GLMM by the Laplace approximation as
// glmer (nAGQ = 1) or, for a single scalar random-effects term, by adaptive
// Gauss–Hermite quadrature with opt.NAGQ > 1 nodes.
func fitGLMM(s *Spec, L *layout, link stats.Link, opt Options, res *Fitted) error {
	nagq := max(opt.NAGQ, 1)
	if nagq > 1 && (len(L.terms) != 1 || L.terms[0].nc != 1) {
		return fmt.Errorf("%w: adaptive quadrature (NAGQ > 1) with more than a single scalar random-effects term (lme4 has it for those only)", ErrNotImplemented)
	}
	if opt.NAGQ0 {
		return fmt.Errorf("%w: NAGQ0 for this model; FitLogit has it for logistic models with random intercepts", ErrNotImplemented)
	}
	md := newGModel(s, L, link)
	if opt.Tol > 0 {
		md.tol = opt.Tol
	}
	maxIter := opt.MaxIter
	if maxIter <= 0 {
		maxIter = 10000
	}
	startBeta(md, link)
	ft := &gfitter{md: md, nth: L.nth, p: md.p, nagq: nagq}
	if nagq > 1 {
		ft.gh = newGHRule(nagq)
		t := L.terms[0]
		ft.rows = make([][]int, t.nlev)
		for i, l := range t.lev {
			ft.rows[l] = append(ft.rows[l], i)
		}
	}
	evals := func() int { return ft.nEval }
	th := make([]float64, L.nth)
	for _, t := range L.terms {
		for k := 0; k < t.ntheta; k++ {
			if t.isDiagTheta(k) {
				th[t.thOff+k] = 1
			}
		}
	}
	// Stage 1: θ with β at the joint mode (lme4's nAGQ = 0 start).
	r1 := nelderMead(ft.dev0, th, 0.2, 1e-6, maxIter)
	if math.IsInf(ft.dev0(r1.X), 1) {
		for j, b := range md.beta {
			if math.Abs(b) > 10 {
				return fmt.Errorf("mixed: fixed effect %d diverges (|β| = %.3g): complete or quasi-complete separation", j, math.Abs(b))
			}
		}
		return errors.New("mixed: penalised IRLS failed at the stage-1 optimum")
	}
	x := append(slices.Clone(r1.X), md.beta...)
	nth, p := L.nth, md.p
	// Stage 2: (θ, β) on the Laplace deviance.
	limit := ft.nEval + maxIter
	fx := ft.dev(x)
	g, h, stale, ok := newtonFD(ft.dev, &x, &fx, evals, limit)
	if !ok && ft.nEval < limit {
		r2 := nelderMead(ft.dev, x, 0.1, 1e-10, limit-ft.nEval)
		x, fx = r2.X, r2.F
		g, h, stale, ok = newtonFD(ft.dev, &x, &fx, evals, limit)
	}
	if !ok {
		res.Converged = false
		res.Warnings = append(res.Warnings, Warning{Code: WarnNotConverged,
			Message: fmt.Sprintf("optimiser did not converge in %d deviance evaluations; rescale covariates or simplify the random terms", ft.nEval)})
	}
	moved := false
	for _, t := range L.terms {
		for k := 0; k < t.ntheta; k++ {
			i := t.thOff + k
			if !t.isDiagTheta(k) || x[i] == 0 || math.Abs(x[i]) >= boundaryTol {
				continue
			}
			xb := slices.Clone(x)
			xb[i] = 0
			if fb := ft.dev(xb); fb <= fx+1e-10*(1+math.Abs(fx)) {
				x, fx = xb, fb
				moved = true
			}
		}
	}
	normaliseTheta(x[:nth], L)
	n := md.n
	nobs := n
	if s.BernoulliRows {
		var sm float64
		for _, m := range md.m {
			sm += m
		}
		nobs = int(sm)
	}
	useHess := !opt.RXSE && (opt.HessianSE || (nobs < 1e4 && nth+p < 20))
	if moved || h == nil || (stale && useHess) {
		ft.dev(x)
		g, h = deriv12(ft.dev, x, fx, derivStep)
	}
	singular := false
	for _, t := range L.terms {
		for k := 0; k < t.ntheta; k++ {
			if t.isDiagTheta(k) && math.Abs(x[t.thOff+k]) < singularTol {
				singular = true
			}
		}
	}
	res.MaxGrad = maxScaledGrad(g, h)
	if !singular {
		switch {
		case math.IsNaN(res.MaxGrad):
			res.Converged = false
			res.Warnings = append(res.Warnings, Warning{Code: WarnGradient,
				Message: "unable to evaluate the scaled gradient: the Hessian of the deviance is not positive definite; simplify the random terms or rescale covariates"})
		case res.MaxGrad > gradTol:
			res.Converged = false
			res.Warnings = append(res.Warnings, Warning{Code: WarnGradient,
				Message: fmt.Sprintf("model failed to converge with max|grad| = %.3g (tol = %g); rescale covariates or simplify the random terms", res.MaxGrad, gradTol)})
		}
	}
	fx = ft.dev(x)
	if math.IsInf(fx, 1) {
		return errors.New("mixed: penalised IRLS failed at the optimum")
	}
	res.Coef = slices.Clone(x[nth:])
	ll := -fx / 2
	if !s.BernoulliRows {
		ll += md.llc
	}
	res.LogLik = ll
	res.Deviance = -2 * ll
	res.REMLCrit = math.NaN()
	res.NPar = p + nth
	res.N = nobs
	res.NAGQ = nagq
	res.AIC = res.Deviance + 2*float64(res.NPar)
	res.BIC = res.Deviance + math.Log(float64(nobs))*float64(res.NPar)
	fillTerms(res, s, L, x[:nth], md.u, 1)
	var cov *mat.SymDense
	res.SEMethod = "RX"
	if useHess {
		res.SEMethod = "Hessian"
		if cov = covHessian(h, nth, p); cov == nil {
			res.SEMethod = "RX"
			res.Warnings = append(res.Warnings, Warning{Code: WarnHessian,
				Message: "covariance from the finite-difference Hessian is not positive definite: standard errors from RX (conditional on θ)"})
		}
	}
	if cov == nil {
		md.build(true)
		if md.sys.factor() {
			cov = rxInverse(md.sys, L.r, p, 1)
		}
	}
	res.Cov = cov
	fillWald(res)
	if cov == nil {
		res.Warnings = append(res.Warnings, Warning{Code: WarnHessian,
			Message: "covariance of the fixed effects is not positive definite: standard errors are NaN; check for collinear covariates"})
	}
	if s.Family == stats.Binomial {
		for j, b := range res.Coef {
			if math.Abs(b) > 10 {
				res.Warnings = append(res.Warnings, Warning{Code: WarnSeparation,
					Message: fmt.Sprintf("fixed effect %d: |β| = %.3g on the link scale; possible (quasi-)complete separation, check that covariate's cross-table with the response", j, math.Abs(b))})
			}
		}
	}
	if ft.nFail > 0 {
		res.Warnings = append(res.Warnings, Warning{Code: WarnPIRLS,
			Message: fmt.Sprintf("penalised IRLS broke down in %d of %d deviance evaluations (taken as +Inf); check the fit, rescale covariates", ft.nFail, ft.nEval)})
	}
	if ft.nNoConv > 0 {
		res.Warnings = append(res.Warnings, Warning{Code: WarnPIRLS,
			Message: fmt.Sprintf("penalised IRLS reached %d iterations in %d of %d deviance evaluations; check the fit", md.maxit, ft.nNoConv, ft.nEval)})
	}
	res.Iter = ft.nEval
	return nil
}

// maxScaledGrad is lme4's checkConv statistic: max over elements of
// min(|R⁻ᵀg|, |g|) with H = RᵀR; NaN when H is not positive definite.
func maxScaledGrad(g []float64, h *mat.SymDense) float64 {
	var ch mat.Cholesky
	if h == nil || !ch.Factorize(h) {
		return math.NaN()
	}
	var u mat.TriDense
	ch.UTo(&u)
	sg := mat.NewVecDense(len(g), nil)
	if err := sg.SolveVec(&u, mat.NewVecDense(len(g), g)); err != nil {
		return math.NaN()
	}
	var m float64
	for i, v := range g {
		m = math.Max(m, math.Min(math.Abs(sg.AtVec(i)), math.Abs(v)))
	}
	return m
}
