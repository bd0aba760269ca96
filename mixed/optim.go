package mixed

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// fitter runs the outer optimisation over (θ, β) for a model.
type fitter struct {
	md   *model
	nagq int
	gh   *ghRule
	rows [][]int // rows per level of factor 0, for AGQ
	k, p int
	nobs int // Bernoulli rows

	// Linear warm start for finite-difference stencils around base:
	// dev starts PIRLS from ubase + J·(par − base) while sens is set.
	sens        bool
	base, ubase []float64
	jac         [][]float64
	last        []float64 // par of the last dev call; nil if unknown

	// fast is set by Fit, not by FitLogit, whose results stay as they
	// were to the last bit (goldens are built on them). The Newton polish
	// stops once its predicted decrease is below 1e-9, and the Laplace
	// deviance takes the analytic path (see analytic).
	fast bool

	pirlsTally
}

// dev is the stage-2 objective: the Laplace or AGQ deviance at
// par = (θ, β). θ enters with its sign: the deviance is even in each θ_k,
// so the optimiser moves freely through the boundary θ_k = 0.
func (ft *fitter) dev(par []float64) float64 {
	ft.nEval++
	md := ft.md
	copy(md.theta, par[:ft.k])
	copy(md.beta, par[ft.k:])
	md.extrap = ft.sens
	if ft.sens {
		copy(md.u, ft.ubase)
		for c, col := range ft.jac {
			if d := par[c] - ft.base[c]; d != 0 {
				for j, v := range col {
					md.u[j] += v * d
				}
			}
		}
	}
	var d float64
	var err error
	if ft.nagq > 1 {
		d, err = md.agq(ft.gh, ft.rows)
	} else {
		d, err = md.laplace(false)
	}
	ft.last = append(ft.last[:0], par...)
	return ft.check(d, err)
}

// dev0 is the stage-1 objective (lme4 nAGQ = 0): the Laplace deviance with β
// at the joint mode of (u, β) for θ = par.
func (ft *fitter) dev0(par []float64) float64 {
	ft.nEval++
	ft.last = nil
	copy(ft.md.theta, par)
	d, err := ft.md.laplace(true)
	return ft.check(d, err)
}

// analytic reports whether the outer optimisation uses the analytic
// gradient of the Laplace deviance (lapGrad): a quasi-Newton stage 2 from
// hessian0, the Hessian from differences of the gradient, and a looser
// stage 1 as its start. Otherwise it uses central differences of the
// deviance throughout (lme4's deriv12) and a chord Newton method.
func (ft *fitter) analytic() bool { return ft.fast && ft.nagq <= 1 }

// hessian returns the gradient and Hessian of dev at x: on the analytic
// path the central differences (step δ) of the analytic gradient
// (lapGrad), 2n deviance evaluations; otherwise, or when PIRLS breaks
// down on the stencil, deriv12 (2n²+1). Both start PIRLS from the linear
// warm start.
func (ft *fitter) hessian(x []float64, fx float64) ([]float64, *mat.SymDense) {
	return ft.lapHessian(x, fx, false)
}

// hessian0 is hessian, but on the analytic path only the θ columns are
// differenced (2k evaluations) and the ββ block is 2(XᵀWX −
// XᵀWZΛH⁻¹ΛᵀZᵀWX), the deviance's Hessian at fixed W and H: the start of
// the quasi-Newton stage, whose secant updates correct it.
func (ft *fitter) hessian0(x []float64, fx float64) ([]float64, *mat.SymDense) {
	return ft.lapHessian(x, fx, true)
}

func (ft *fitter) lapHessian(x []float64, fx float64, approx bool) ([]float64, *mat.SymDense) {
	ft.stencil(x)
	defer ft.done()
	if !ft.analytic() || ft.last == nil {
		return deriv12(ft.dev, x, fx, derivStep)
	}
	md := ft.md
	n := len(x)
	g := make([]float64, n)
	md.lapGrad(g)
	nd := n // columns by differences
	var hbb []float64
	if approx {
		md.build(true)
		if md.sys.factor() {
			// The ββ block of the Schur complement after eliminating u:
			// L₂₂L₂₂ᵀ for the trailing rows of the dense block's factor.
			nd = ft.k
			rd, p := md.sys.rd, ft.p
			l := md.sys.l[:rd*rd]
			hbb = make([]float64, p*p)
			for i := range p {
				for j := 0; j <= i; j++ {
					var t float64
					for m := 0; m <= j; m++ {
						t += l[(md.r+i)*rd+md.r+m] * l[(md.r+j)*rd+md.r+m]
					}
					hbb[i*p+j], hbb[j*p+i] = 2*t, 2*t
				}
			}
		}
	}
	cols := make([]float64, nd*n) // column c: ∂g/∂x_c
	gp, gm := make([]float64, n), make([]float64, n)
	xt := slices.Clone(x)
	for c := range nd {
		xt[c] = x[c] + derivStep
		fp := ft.dev(xt)
		md.lapGrad(gp)
		xt[c] = x[c] - derivStep
		fm := ft.dev(xt)
		md.lapGrad(gm)
		xt[c] = x[c]
		if math.IsInf(fp, 1) || math.IsInf(fm, 1) {
			return deriv12(ft.dev, x, fx, derivStep)
		}
		for i := range n {
			cols[c*n+i] = (gp[i] - gm[i]) / (2 * derivStep)
		}
	}
	h := mat.NewSymDense(n, nil)
	for i := range n {
		for j := i; j < n; j++ {
			switch {
			case j < nd:
				h.SetSym(i, j, (cols[i*n+j]+cols[j*n+i])/2)
			case i < nd:
				h.SetSym(i, j, cols[i*n+j])
			default:
				h.SetSym(i, j, hbb[(i-nd)*ft.p+j-nd])
			}
		}
	}
	return g, h
}

// grad is the gradient of dev at x: analytic on the analytic path
// (lapGrad), else central differences with the linear warm start.
func (ft *fitter) grad(x []float64) []float64 {
	if ft.analytic() {
		if !slices.Equal(ft.last, x) {
			ft.dev(x)
		}
		if ft.last != nil {
			g := make([]float64, len(x))
			ft.md.lapGrad(g)
			return g
		}
	}
	ft.stencil(x)
	defer ft.done()
	return gradient(ft.dev, x, derivStep)
}

// stencil prepares the linear warm start around x for deriv12 and
// gradient; done ends it.
func (ft *fitter) stencil(x []float64) {
	md := ft.md
	if !slices.Equal(ft.last, x) {
		ft.dev(x)
	}
	if ft.last == nil {
		return // PIRLS broke down at x: no modes to extrapolate from
	}
	if ft.jac == nil {
		ft.jac = make([][]float64, len(x))
		for c := range ft.jac {
			ft.jac[c] = make([]float64, md.qt)
		}
		ft.ubase = make([]float64, md.qt)
		ft.base = make([]float64, len(x))
	}
	copy(ft.base, x)
	copy(ft.ubase, md.u)
	md.sensitivity(ft.jac)
	ft.sens = true
}

func (ft *fitter) done() {
	if ft.sens {
		copy(ft.md.u, ft.ubase)
	}
	ft.sens = false
	ft.last = nil
}

func (ft *fitter) check(d float64, err error) float64 {
	d, failed := ft.tally(d, err, ft.md.u)
	if failed {
		ft.last = nil
	}
	return d
}

// pirlsTally counts the deviance evaluations of an outer optimisation and
// the PIRLS failures among them.
type pirlsTally struct {
	nEval   int
	nFail   int // PIRLS breakdowns (deviance taken as +Inf)
	nNoConv int // PIRLS stopped at maxit
}

// tally counts the outcome of one evaluation: a PIRLS breakdown (or a NaN
// deviance) gives +Inf and clears the modes u, since warm starts may be
// garbage after it; PIRLS stopping at maxit keeps d.
func (pt *pirlsTally) tally(d float64, err error, u []float64) (float64, bool) {
	switch {
	case errors.Is(err, errNoPIRLS):
		pt.nNoConv++
	case err != nil || math.IsNaN(d):
		pt.nFail++
		clear(u)
		return math.Inf(1), true
	}
	return d, false
}

// nmResult is the outcome of nelderMead.
type nmResult struct {
	X         []float64
	F         float64
	Evals     int
	Converged bool
}

// nelderMead minimises f from x0 with gonum's Nelder–Mead simplex
// (optimize.NelderMead, standard coefficients; Lagarias et al. 1998, SIAM J.
// Optim. 9:112–147), lme4's derivative-free choice for glmer's stages. It
// stops when the best value has improved by less than ftol·(1+|f|) over
// 2n+2 major iterations, or after maxEval evaluations.
func nelderMead(f func([]float64) float64, x0 []float64, size, ftol float64, maxEval int) nmResult {
	n := len(x0)
	evals := 0
	prob := optimize.Problem{Func: func(x []float64) float64 {
		evals++
		return f(x)
	}}
	settings := &optimize.Settings{
		FuncEvaluations: maxEval,
		Converger: &optimize.FunctionConverge{
			Absolute:   ftol,
			Relative:   ftol,
			Iterations: 2*n + 2,
		},
	}
	method := &optimize.NelderMead{SimplexSize: size}
	res, err := optimize.Minimize(prob, append([]float64(nil), x0...), settings, method)
	if res == nil {
		return nmResult{X: append([]float64(nil), x0...), F: f(x0), Evals: evals}
	}
	converged := err == nil && res.Status != optimize.FunctionEvaluationLimit && res.Status != optimize.Failure
	return nmResult{X: res.X, F: res.F, Evals: evals, Converged: converged}
}

// deriv12 returns the central-difference gradient and Hessian of f at x
// with step δ, with the same stencil as lme4's deriv12 (R/deriv.R), so the
// standard errors agree with lme4's to the accuracy of the deviance.
func deriv12(f func([]float64) float64, x []float64, fx, delta float64) ([]float64, *mat.SymDense) {
	n := len(x)
	g := make([]float64, n)
	h := mat.NewSymDense(n, nil)
	xt := make([]float64, n)
	at := func(i int, di float64, j int, dj float64) float64 {
		copy(xt, x)
		xt[i] += di
		xt[j] += dj
		return f(xt)
	}
	for j := 0; j < n; j++ {
		fadd := at(j, delta, j, 0)
		fsub := at(j, -delta, j, 0)
		h.SetSym(j, j, (fadd-2*fx+fsub)/(delta*delta))
		g[j] = (fadd - fsub) / (2 * delta)
		for i := 0; i < j; i++ {
			faa := at(i, delta, j, delta)
			fas := at(i, delta, j, -delta)
			fsa := at(i, -delta, j, delta)
			fss := at(i, -delta, j, -delta)
			h.SetSym(i, j, (faa-fas-fsa+fss)/(4*delta*delta))
		}
	}
	return g, h
}

// newton minimises the deviance from x with newtonMin: on the analytic
// path with secant updates from the approximate starting Hessian
// (hessian0); otherwise by the chord method on central differences with
// the linear warm start.
func (ft *fitter) newton(x *[]float64, fx *float64, limit int) (g []float64, h *mat.SymDense, stale, ok bool) {
	nm := newtonMin{f: ft.dev, hess0: ft.hessian0, hess: ft.hessian, grad: ft.grad,
		evals: func() int { return ft.nEval }, secant: ft.analytic(), decStop: ft.fast}
	return nm.run(x, fx, limit)
}

// newtonMin is a Newton minimiser with a halving line search for the
// outer optimisation of the GLMMs.
type newtonMin struct {
	f           func([]float64) float64
	hess0, hess func(x []float64, fx float64) ([]float64, *mat.SymDense) // start, refresh
	grad        func(x []float64) []float64
	evals       func() int // evaluations of f so far
	// secant asks for BFGS updates of the Hessian between refreshes (the
	// gradient must be accurate, as the analytic one); otherwise the
	// Hessian is kept (a chord method).
	secant bool
	// decStop also stops when the predicted decrease is below 1e-9.
	decStop bool
}

// run minimises f from x. The Hessian is recomputed only when the steps
// stop shrinking fast (by 4 for the chord method, by 2 with secant
// updates), so that each iteration otherwise costs one gradient. It stops
// when the step falls below 1e-7 or, with decStop, when the predicted
// decrease is below 1e-9, and returns the gradient at the final x, the
// last Hessian, whether that Hessian was computed at another point or
// updated (stale), and ok; ok is false after 50 iterations, past limit
// evaluations in all, or when no step lowers f from afar.
func (nm *newtonMin) run(x *[]float64, fx *float64, limit int) (g []float64, h *mat.SymDense, stale, ok bool) {
	n := len(*x)
	xn := make([]float64, n)
	g, h = nm.hess0(*x, *fx)
	prev := math.Inf(1)
	shrink := 0.25
	if nm.secant {
		shrink = 0.5
	}
	for it := 0; it < 50 && nm.evals() < limit; it++ {
		s := newtonStep(h, g)
		if s == nil {
			return g, h, stale, false
		}
		var smax float64
		for _, v := range s {
			smax = math.Max(smax, math.Abs(v))
		}
		if smax < 1e-7 {
			return g, h, stale, true
		}
		if nm.decStop {
			// The predicted decrease gᵀs/2 of the quadratic model is at
			// the rounding level of the deviance: further steps only
			// chase noise in the derivatives.
			var gs float64
			for i := range s {
				gs += g[i] * s[i]
			}
			if gs/2 < 1e-9 {
				return g, h, stale, true
			}
		}
		if stale && smax > prev*shrink {
			// Slow linear convergence: refresh the Hessian and retry.
			g, h = nm.hess(*x, *fx)
			stale = false
			prev = math.Inf(1)
			continue
		}
		prev = smax
		lowered := false
		var dx []float64
		for t := 1.0; t > 1e-6; t /= 2 {
			for i := range xn {
				xn[i] = (*x)[i] - t*s[i]
			}
			if f := nm.f(xn); f < *fx {
				dx = make([]float64, n)
				for i := range dx {
					dx[i] = xn[i] - (*x)[i]
				}
				copy(*x, xn)
				*fx = f
				lowered = true
				break
			}
		}
		if !lowered {
			if stale {
				g, h = nm.hess(*x, *fx)
				stale = false
				prev = math.Inf(1)
				continue
			}
			// Within rounding of the optimum no step lowers the deviance.
			return g, h, stale, smax < 1e-4
		}
		gn := nm.grad(*x)
		if nm.secant {
			bfgsUpdate(h, dx, g, gn)
		}
		g = gn
		stale = true
	}
	return g, h, stale, false
}

// bfgsUpdate applies the BFGS update to the Hessian approximation h for
// the step dx, along which the gradient went from g to gn (Nocedal &
// Wright 2006, eq. 6.19); it leaves h unchanged when the curvature
// (gn−g)ᵀdx is not positive.
func bfgsUpdate(h *mat.SymDense, dx, g, gn []float64) {
	n := len(dx)
	y := make([]float64, n)
	var ys float64
	for i := range y {
		y[i] = gn[i] - g[i]
		ys += y[i] * dx[i]
	}
	hs := mat.NewVecDense(n, nil)
	hs.MulVec(h, mat.NewVecDense(n, dx))
	var shs float64
	for i := range dx {
		shs += dx[i] * hs.AtVec(i)
	}
	if !(ys > 0) || !(shs > 0) {
		return
	}
	for i := range n {
		for j := i; j < n; j++ {
			h.SetSym(i, j, h.At(i, j)-hs.AtVec(i)*hs.AtVec(j)/shs+y[i]*y[j]/ys)
		}
	}
}

// gradient is the central-difference gradient with step δ, as in deriv12.
func gradient(f func([]float64) float64, x []float64, delta float64) []float64 {
	g := make([]float64, len(x))
	xt := append([]float64(nil), x...)
	for j := range x {
		xt[j] = x[j] + delta
		fa := f(xt)
		xt[j] = x[j] - delta
		fs := f(xt)
		xt[j] = x[j]
		g[j] = (fa - fs) / (2 * delta)
	}
	return g
}

// newtonStep solves (H + λI)s = g with the smallest λ ≥ 0 (from a short
// ladder) that makes the matrix positive definite.
func newtonStep(h *mat.SymDense, g []float64) []float64 {
	n := len(g)
	var dmax float64
	for i := 0; i < n; i++ {
		dmax = math.Max(dmax, math.Abs(h.At(i, i)))
	}
	a := mat.NewSymDense(n, nil)
	for lam := 0.0; lam < 1e6*(1+dmax); lam = math.Max(1e-8*(1+dmax), 10*lam) {
		a.CopySym(h)
		for i := 0; i < n; i++ {
			a.SetSym(i, i, a.At(i, i)+lam)
		}
		var ch mat.Cholesky
		if !ch.Factorize(a) {
			continue
		}
		var s mat.VecDense
		if err := ch.SolveVecTo(&s, mat.NewVecDense(n, g)); err != nil {
			continue
		}
		return s.RawVector().Data
	}
	return nil
}

const (
	derivStep   = 1e-4 // lme4 deriv12 default
	boundaryTol = 1e-5 // lme4 glmerControl boundary.tol
	singularTol = 1e-4 // lme4 isSingular / check.conv.singular tol
	gradTol     = 2e-3 // lme4 check.conv.grad tol
)

// fit runs both stages, the boundary check, the Newton polish and the
// diagnostics. Theta and Modes come back in internal factor order.
func (ft *fitter) fit(opt Options) (*Result, error) {
	md := ft.md
	k, p := ft.k, ft.p
	res := &Result{Converged: true}

	// Stage 1: θ only, β from joint PIRLS (lme4 nAGQ0initStep).
	t0 := make([]float64, k)
	for i := range t0 {
		t0[i] = 1
	}
	// Only a starting value for stage 2, so loose tolerances will do;
	// looser still for the Laplace deviance, whose quasi-Newton stage with
	// analytic gradients needs few steps from farther away. (A PIRLS step
	// below 1e-2 leaves the modes accurate to about 1e-4, the deviance to
	// about 1e-8.)
	ftol := 1e-6
	md.stepTol = 1e-3
	if ft.analytic() {
		md.stepTol, ftol = 1e-2, 1e-3
	}
	r1 := nelderMead(ft.dev0, t0, 0.2, ftol, opt.MaxIter)
	md.stepTol = 1e-6
	if math.IsInf(ft.dev0(r1.X), 1) {
		return nil, ft.stage1Error()
	}
	x := append(append([]float64(nil), r1.X...), md.beta...)

	// Stage 2: (θ, β) on the Laplace or AGQ deviance. Newton steps on the
	// finite-difference Hessian from the stage-1 optimum usually converge
	// in two or three Hessians; Nelder–Mead (lme4's stage-2 method) is the
	// fallback when they do not.
	limit := ft.nEval + opt.MaxIter
	fx := ft.dev(x)
	g, h, stale, ok := ft.newton(&x, &fx, limit)
	if !ok && ft.nEval < limit {
		r2 := nelderMead(ft.dev, x, 0.1, 1e-10, limit-ft.nEval)
		x, fx = r2.X, r2.F
		g, h, stale, ok = ft.newton(&x, &fx, limit)
	}
	if !ok {
		res.Converged = false
		res.Warnings = append(res.Warnings, Warning{Code: WarnNotConverged, Message: fmt.Sprintf("optimiser did not converge in %d deviance evaluations", ft.nEval)})
	}

	// Boundary check (lme4 check.boundary): try θ_k = 0 when close to it.
	moved := false
	for i := 0; i < k; i++ {
		if x[i] != 0 && math.Abs(x[i]) < boundaryTol {
			xb := append([]float64(nil), x...)
			xb[i] = 0
			// Within 1e-5 of 0 the deviance differs from d(0) by rounding
			// only, so "not higher" allows for it.
			if fb := ft.dev(xb); fb <= fx+1e-10*(1+math.Abs(fx)) {
				x, fx = xb, fb
				moved = true
			}
		}
	}
	for i := 0; i < k; i++ {
		x[i] = math.Abs(x[i])
	}

	// Diagnostics and SEs at the optimum. As lme4 (calc.derivs), the
	// Hessian SEs need a fresh Hessian only below 10⁴ rows and 20 parameters;
	// otherwise the convergence check makes do with the last one.
	useHess := !opt.RXSE && (opt.HessianSE || (ft.nobs < 1e4 && k+p < 20))
	if moved || h == nil || (stale && useHess) {
		g, h = ft.hessian(x, fx)
	}
	for i := 0; i < k; i++ {
		res.Singular = res.Singular || x[i] < singularTol
	}
	res.MaxGrad = maxScaledGrad(g, h)
	if !res.Singular {
		switch {
		case math.IsNaN(res.MaxGrad):
			res.Converged = false
			res.Warnings = append(res.Warnings, Warning{Code: WarnGradient, Message: "unable to evaluate scaled gradient: Hessian of the deviance is not positive definite"})
		case res.MaxGrad > gradTol:
			res.Converged = false
			res.Warnings = append(res.Warnings, Warning{Code: WarnGradient, Message: fmt.Sprintf("model failed to converge with max|grad| = %.3g (tol = %g)", res.MaxGrad, gradTol)})
		}
	}

	// Re-evaluate at the optimum so u, β and the PIRLS system belong to it.
	fx = ft.dev(x)
	if math.IsInf(fx, 1) {
		return nil, errors.New("mixed: penalised IRLS failed at the optimum")
	}
	res.Theta = x[:k]
	res.Coef = append([]float64(nil), x[k:]...)
	res.Deviance = fx
	res.LogLik = -fx / 2
	var cov *mat.SymDense
	res.SEMethod = "RX"
	if useHess {
		res.SEMethod = "Hessian"
		cov = covHessian(h, k, p)
		if cov == nil {
			res.SEMethod = "RX"
			res.Warnings = append(res.Warnings, Warning{Code: WarnHessian, Message: "covariance from the finite-difference Hessian is not positive definite: falling back to RX"})
		}
	}
	ft.finish(res, cov)
	return res, nil
}

// finish fills the conditional modes and, from cov (or RX when cov is
// nil), the fixed-effects inference. The model must be at the optimum.
func (ft *fitter) finish(res *Result, cov *mat.SymDense) {
	md := ft.md
	if ft.nFail > 0 {
		res.Warnings = append(res.Warnings, Warning{Code: WarnPIRLS, Message: fmt.Sprintf("penalised IRLS broke down in %d of %d deviance evaluations (taken as +Inf)", ft.nFail, ft.nEval)})
	}
	if ft.nNoConv > 0 {
		res.Warnings = append(res.Warnings, Warning{Code: WarnPIRLS, Message: fmt.Sprintf("penalised IRLS reached %d iterations in %d of %d deviance evaluations", md.maxit, ft.nNoConv, ft.nEval)})
	}
	res.Modes = make([][]float64, ft.k)
	for f := 0; f < ft.k; f++ {
		b := make([]float64, md.q[f])
		for j := range b {
			b[j] = md.theta[f] * md.u[md.uoff[f]+j]
		}
		res.Modes[f] = b
	}
	if cov == nil {
		cov = ft.covRX()
	}
	res.Cov = cov
	z := normalQuantile(0.975)
	for j := 0; j < ft.p; j++ {
		se := math.NaN()
		if cov != nil {
			se = math.Sqrt(cov.At(j, j))
		}
		b := res.Coef[j]
		res.SE = append(res.SE, se)
		res.Z = append(res.Z, b/se)
		res.P = append(res.P, math.Erfc(math.Abs(b/se)/math.Sqrt2))
		res.OR = append(res.OR, math.Exp(b))
		res.ORLo = append(res.ORLo, math.Exp(b-z*se))
		res.ORHi = append(res.ORHi, math.Exp(b+z*se))
		if math.Abs(b) > 10 {
			res.Warnings = append(res.Warnings, Warning{Code: WarnSeparation, Message: fmt.Sprintf("fixed effect %d: |β| = %.3g on the logit scale; possible (quasi-)complete separation", j, math.Abs(b))})
		}
	}
	if cov == nil {
		res.Warnings = append(res.Warnings, Warning{Code: WarnHessian, Message: "covariance of the fixed effects is not positive definite: standard errors are NaN"})
	}
	res.Iter = ft.nEval
}

// stage1Error explains a PIRLS breakdown in the joint (u, β) step.
func (ft *fitter) stage1Error() error {
	for j, b := range ft.md.beta {
		if math.Abs(b) > 10 {
			return fmt.Errorf("mixed: fixed effect %d diverges (|β| = %.3g): complete or quasi-complete separation", j, math.Abs(b))
		}
	}
	return errors.New("mixed: penalised IRLS failed at the stage-1 optimum")
}

// fitNAGQ0 is lme4's nAGQ = 0 fit (glmer; Bates et al. 2015 §5): only θ is
// optimised, by Nelder–Mead, with β the joint mode of (u, β) in PIRLS.
// Faster than the Laplace fit and less accurate (cbpp: β₀ −1.3605 against
// −1.3985). Standard errors are RX-based, as lme4 computes no Hessian here;
// there is no gradient check either.
func (ft *fitter) fitNAGQ0(opt Options) (*Result, error) {
	md := ft.md
	k := ft.k
	res := &Result{Converged: true, SEMethod: "RX", MaxGrad: math.NaN()}
	t0 := make([]float64, k)
	for i := range t0 {
		t0[i] = 1
	}
	r := nelderMead(ft.dev0, t0, 0.2, 1e-13, opt.MaxIter)
	if !r.Converged {
		res.Converged = false
		res.Warnings = append(res.Warnings, Warning{Code: WarnNotConverged, Message: fmt.Sprintf("optimiser did not converge in %d deviance evaluations", ft.nEval)})
	}
	x, fx := r.X, r.F
	for i := 0; i < k; i++ {
		if x[i] != 0 && math.Abs(x[i]) < boundaryTol {
			xb := append([]float64(nil), x...)
			xb[i] = 0
			if fb := ft.dev0(xb); fb <= fx+1e-10*(1+math.Abs(fx)) {
				x, fx = xb, fb
			}
		}
	}
	for i := range x {
		x[i] = math.Abs(x[i])
		res.Singular = res.Singular || x[i] < singularTol
	}
	if fx = ft.dev0(x); math.IsInf(fx, 1) {
		return nil, ft.stage1Error()
	}
	res.Theta = x
	res.Coef = append([]float64(nil), md.beta...)
	res.Deviance = fx
	res.LogLik = -fx / 2
	ft.finish(res, nil)
	return res, nil
}

// covHessian is lme4's vcov from the deviance Hessian over (θ, β):
// V = [2 H⁻¹]_ββ, or nil when H or V is not positive definite.
func covHessian(h *mat.SymDense, k, p int) *mat.SymDense {
	var ch mat.Cholesky
	if !ch.Factorize(h) {
		return nil
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil
	}
	v := mat.NewSymDense(p, nil)
	for i := 0; i < p; i++ {
		for j := i; j < p; j++ {
			v.SetSym(i, j, 2*inv.At(k+i, k+j))
		}
	}
	var cv mat.Cholesky
	if !cv.Factorize(v) {
		return nil
	}
	return v
}

// covRX is the covariance of β conditional on θ (lme4 vcov with
// use.hessian = FALSE): the ββ block of the inverse of the joint PIRLS
// system at the modes,
//
//	V = (XᵀWX − XᵀWZΛ(ΛᵀZᵀWZΛ + I)⁻¹ΛᵀZᵀWX)⁻¹.
func (ft *fitter) covRX() *mat.SymDense {
	md := ft.md
	md.build(true)
	if !md.sys.factor() {
		return nil
	}
	rd := md.sys.rd
	v := mat.NewSymDense(ft.p, nil)
	e := make([]float64, rd)
	for j := 0; j < ft.p; j++ {
		clear(e)
		e[md.r+j] = 1
		cholSolve(md.sys.l[:rd*rd], rd, e)
		for i := 0; i <= j; i++ {
			v.SetSym(i, j, e[md.r+i])
		}
	}
	return v
}

func normalQuantile(p float64) float64 { return distuv.UnitNormal.Quantile(p) }
