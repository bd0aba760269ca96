package mixed

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/stats"
)

// Options controls FitLogit. The zero value gives lme4's glmer defaults with
// tight inner convergence.
type Options struct {
	// NAGQ is the number of adaptive Gauss–Hermite nodes: 0 or 1 is the
	// Laplace approximation; more than 1 needs a single grouping factor.
	NAGQ int
	// NAGQ0 asks for lme4's nAGQ = 0 fit instead: θ optimised with β at
	// the joint PIRLS mode; faster, less accurate, RX standard errors.
	NAGQ0 bool
	// RXSE reports standard errors from RX, the fixed-effects block of the
	// PIRLS system at the optimum (conditional on θ), instead of from the
	// finite-difference Hessian of the deviance over (θ, β). As in lme4
	// (glmerControl calc.derivs), RX is also the default from 10⁴ rows or
	// 20 parameters on, unless HessianSE is set.
	RXSE bool
	// HessianSE asks for Hessian-based standard errors at any size.
	HessianSE bool
	// MaxIter bounds the deviance evaluations of each optimisation stage
	// (as lme4's maxfun); default 10000. The standard errors and the
	// convergence check take 2n²+1 more, n = len(groups) + columns of X
	// (in Fit's Laplace fits 2n, from the analytic gradient).
	MaxIter int
	// Tol is the relative change of the penalised deviance at which PIRLS
	// may stop (lme4's tolPwrss, whose default is 1e-7) once its step is
	// below 1e-7; default 1e-12. PIRLS also stops after a full Newton step
	// below 1e-6, which leaves the modes accurate to about 1e-12, as the
	// finite-difference derivatives need; results match tight lme4.
	Tol float64
}

// Group is a grouping factor with a scalar random intercept.
type Group struct {
	Name   string
	Index  []int    // level index per row, 0..len(Levels)-1
	Levels []string // level labels
}

// Result is a fitted logistic GLMM. Slices over fixed effects follow the
// columns of X; slices over random effects follow the groups passed to
// FitLogit.
type Result struct {
	Coef, SE, Z, P []float64 // β, standard error, Wald z, two-sided p
	// OR, ORLo, ORHi are exp(β) with its 95% Wald interval exp(β ± 1.96·SE).
	OR, ORLo, ORHi []float64
	Cov            *mat.SymDense // covariance of β used for SE
	SEMethod       string        // "Hessian" or "RX"

	Theta   []float64   // relative SDs θ (equal to SD for the logit link)
	SD      []float64   // standard deviation of each random intercept
	Modes   [][]float64 // conditional modes b = θû per group and level (0 for unused levels)
	NLevels []int       // sampled levels per group (lme4's "groups:" count)

	LogLik   float64 // −d/2 of the Bernoulli rows (as lme4's logLik)
	Deviance float64 // d = −2 LogLik (not lme4's deviance(), a sum of squared residuals)
	AIC, BIC float64 // with p + len(groups) parameters and N rows
	N        int     // number of Bernoulli rows
	NAGQ     int     // quadrature nodes used (1: Laplace, 0: lme4's nAGQ = 0)

	Converged bool
	Singular  bool      // some θ below 1e-4 (lme4 isSingular)
	MaxGrad   float64   // lme4's max|scaled gradient| at the optimum (check.conv.grad, tol 2e-3)
	Warnings  []Warning // each with its Code (and Term when about one)
	Iter      int       // deviance evaluations over all stages
}

// Wald returns exp(β_j ± z·SE_j) for a two-sided Wald interval of the given
// level, e.g. 0.95.
func (r *Result) Wald(j int, level float64) (lo, hi float64) {
	z := normalQuantile(0.5 + level/2)
	return math.Exp(r.Coef[j] - z*r.SE[j]), math.Exp(r.Coef[j] + z*r.SE[j])
}

// FitLogit fits the logistic GLMM
//
//	logit P(y=1 | u) = Xβ + Σ_k θ_k u_k[group_k],   u_k ~ N(0, I),
//
// by maximum likelihood with the Laplace approximation (opt.NAGQ ≤ 1) or
// adaptive Gauss–Hermite quadrature (one group, opt.NAGQ > 1), following
// lme4's glmer (Bates et al. 2015, J. Stat. Softw. 67(1), §§3, 5):
// PIRLS for the conditional modes, a first stage over θ with β from joint
// PIRLS, then a joint stage over (θ, β), reaching θ = 0 exactly. Standard
// errors are those of lme4's vcov: V = 2 H⁻¹ restricted to β, with H the
// central-difference Hessian of the deviance over (θ, β) (step 1e-4,
// lme4's deriv12), falling back to RX when H is not positive definite;
// from 10⁴ rows or 20 parameters on they are RX-based, as lme4's (see
// Options).
//
// X holds the fixed-effects columns, including an intercept if wanted; y is
// 0/1. Data-dependent failures (a grouping factor with fewer than two
// sampled levels, a constant response, NaN, rank-deficient X, fixed
// effects that diverge under complete separation, PIRLS failure) return
// an error; quasi-separation (|β| > 10), non-convergence, singular fits,
// levels with a single observation and a grouping factor with one row per
// level (an observation-level effect, barely identified from 0/1 data;
// WarnObsLevel) are reported in Result.Warnings. Mismatched lengths or level indices out of
// range panic.
func FitLogit(X *mat.Dense, y []float64, groups []Group, opt Options) (*Result, error) {
	return fitLogit(X, y, groups, opt, false)
}

// fitLogit is FitLogit; fast (set by Fit) ends the Newton polish once its
// predicted decrease is at the deviance's rounding level and takes the
// analytic path for the Laplace deviance (see fitter.fast).
func fitLogit(X *mat.Dense, y []float64, groups []Group, opt Options, fast bool) (*Result, error) {
	n, p := X.Dims()
	if n != len(y) {
		panic("mixed: X and y have different numbers of rows")
	}
	if len(groups) == 0 {
		panic("mixed: no grouping factor")
	}
	for _, g := range groups {
		if len(g.Index) != n {
			panic(fmt.Sprintf("mixed: group %q has %d indices for %d rows", g.Name, len(g.Index), n))
		}
		for _, j := range g.Index {
			if j < 0 || j >= len(g.Levels) {
				panic(fmt.Sprintf("mixed: group %q has level index %d out of range [0,%d)", g.Name, j, len(g.Levels)))
			}
		}
	}
	if opt.NAGQ < 0 {
		panic("mixed: negative NAGQ")
	}
	nagq := max(opt.NAGQ, 1)
	if opt.NAGQ0 && nagq > 1 {
		return nil, errors.New("mixed: NAGQ0 (lme4's nAGQ = 0) excludes NAGQ > 1")
	}
	if nagq > 1 && len(groups) > 1 {
		return nil, errors.New("mixed: nAGQ > 1 is only available with a single grouping factor")
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 10000
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-12
	}
	var warns []Warning
	nlev := make([]int, len(groups))
	ones := 0
	for i, v := range y {
		switch v {
		case 0:
		case 1:
			ones++
		default:
			return nil, fmt.Errorf("mixed: response in row %d is %v, not 0 or 1", i, v)
		}
		for j := 0; j < p; j++ {
			if x := X.At(i, j); math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("mixed: X[%d,%d] is %v", i, j, x)
			}
		}
	}
	if ones == 0 || ones == n {
		return nil, fmt.Errorf("mixed: response is constant (%d of %d rows are 1)", ones, n)
	}
	if p > 0 {
		var qr mat.QR
		qr.Factorize(X)
		var r mat.Dense
		qr.RTo(&r)
		var rmax float64
		for j := 0; j < p; j++ {
			rmax = math.Max(rmax, math.Abs(r.At(j, j)))
		}
		for j := 0; j < p; j++ {
			if math.Abs(r.At(j, j)) <= 1e-7*rmax || n < p {
				return nil, fmt.Errorf("mixed: fixed-effects matrix is rank deficient (column %d)", j)
			}
		}
	}
	for gi, g := range groups {
		used, single := levelCounts(g.Index, len(g.Levels))
		nlev[gi] = used
		if used < 2 {
			return nil, fmt.Errorf("mixed: grouping factor %q has %d sampled level(s); need at least 2", g.Name, used)
		}
		if used == n {
			warns = append(warns, obsLevel(g.Name, true)...)
		} else if single > 0 {
			warns = append(warns, Warning{Code: WarnSingleObs, Term: g.Name, Message: fmt.Sprintf("grouping factor %q: %d of %d levels have a single observation", g.Name, single, used)})
		}
	}

	md, order := newModel(X, y, groups, fast)
	// Like lme4, start β from the logistic regression without random
	// effects (on the collapsed rows, with the Bernoulli likelihood); its
	// separation check flags fixed effects whose estimates diverge.
	yc := make([]float64, md.n)
	for i := range yc {
		yc[i] = md.s[i] / md.m[i]
	}
	glm, err := stats.Logistic(mat.NewDense(md.n, p, slices.Clone(md.x)), yc, md.m, stats.LogisticOptions{})
	if err == nil {
		if glm.Separation {
			warns = append(warns, Warning{Code: WarnSeparation, Message: fmt.Sprintf("fixed-effect columns %v (0-based) separate the response in the logistic regression without random effects; their estimates may diverge", glm.SeparatedTerms)})
		} else if glm.Converged {
			copy(md.beta, glm.Coef)
		}
	}
	md.maxit = 100
	md.stepTol = 1e-6
	md.tol = opt.Tol
	ft := &fitter{md: md, nagq: nagq, k: len(groups), p: p, nobs: n, fast: fast}
	if nagq > 1 {
		ft.gh = newGHRule(nagq)
		ft.rows = make([][]int, md.q[0])
		for i := 0; i < md.n; i++ {
			j := md.lev[0][i]
			ft.rows[j] = append(ft.rows[j], i)
		}
	}
	var res *Result
	if opt.NAGQ0 {
		res, err = ft.fitNAGQ0(opt)
		nagq = 0
	} else {
		res, err = ft.fit(opt)
	}
	if err != nil {
		return nil, err
	}
	res.N = n
	res.NAGQ = nagq
	res.Warnings = append(warns, res.Warnings...)
	// Map internal factor order back to the caller's.
	theta := make([]float64, len(groups))
	sd := make([]float64, len(groups))
	modes := make([][]float64, len(groups))
	for f, gi := range order {
		theta[gi] = math.Abs(res.Theta[f])
		sd[gi] = theta[gi]
		modes[gi] = res.Modes[f]
	}
	res.Theta, res.SD, res.Modes, res.NLevels = theta, sd, modes, nlev
	for gi, t := range theta {
		if t < singularTol {
			res.Warnings = append(res.Warnings, Warning{Code: WarnSingular, Term: groups[gi].Name, Message: fmt.Sprintf("boundary (singular) fit: SD of %q is %.3g", groups[gi].Name, t)})
		}
	}
	npar := float64(p + len(groups))
	res.AIC = res.Deviance + 2*npar
	res.BIC = res.Deviance + math.Log(float64(n))*npar
	return res, nil
}

// newModel collapses identical rows (same covariates, levels and response)
// into counts and orders the factors so that the one with most levels comes
// first. order[f] is the caller's index of internal factor f. With sortRows
// the collapsed rows are in the order of factor 0's levels, else of their
// first occurrence.
func newModel(X *mat.Dense, y []float64, groups []Group, sortRows bool) (*model, []int) {
	n, p := X.Dims()
	k := len(groups)
	order := make([]int, k)
	for i := range order {
		order[i] = i
	}
	// Stable, so ties keep the caller's order.
	slices.SortStableFunc(order, func(a, b int) int { return len(groups[b].Levels) - len(groups[a].Levels) })

	md := &model{p: p, k: k}
	md.q = make([]int, k)
	md.uoff = make([]int, k)
	for f, gi := range order {
		md.q[f] = len(groups[gi].Levels)
		md.uoff[f] = md.qt
		md.qt += md.q[f]
	}
	md.r = md.qt - md.q[0]
	md.lev = make([][]int, k)

	type cell struct{ row, m, s int }
	seen := make(map[string]int)
	var cells []cell
	key := make([]byte, 0, 8*(p+k))
	for i := 0; i < n; i++ {
		key = key[:0]
		for j := 0; j < p; j++ {
			key = binary.LittleEndian.AppendUint64(key, math.Float64bits(X.At(i, j)))
		}
		for _, gi := range order {
			key = binary.LittleEndian.AppendUint64(key, uint64(groups[gi].Index[i]))
		}
		c, ok := seen[string(key)]
		if !ok {
			c = len(cells)
			seen[string(key)] = c
			cells = append(cells, cell{row: i})
		}
		cells[c].m++
		if y[i] == 1 {
			cells[c].s++
		}
	}
	// Rows in the order of factor 0's levels keep the accumulation into
	// its diagonal block and rows of C (see build) in cache.
	if sortRows {
		g0 := groups[order[0]].Index
		slices.SortStableFunc(cells, func(a, b cell) int { return g0[a.row] - g0[b.row] })
	}
	md.n = len(cells)
	md.x = make([]float64, md.n*p)
	md.m = make([]float64, md.n)
	md.s = make([]float64, md.n)
	for f := range md.lev {
		md.lev[f] = make([]int, md.n)
	}
	for c, cl := range cells {
		for j := 0; j < p; j++ {
			md.x[c*p+j] = X.At(cl.row, j)
		}
		md.m[c], md.s[c] = float64(cl.m), float64(cl.s)
		for f, gi := range order {
			md.lev[f][c] = groups[gi].Index[cl.row]
		}
	}
	md.theta = make([]float64, k)
	md.beta = make([]float64, p)
	md.u = make([]float64, md.qt)
	md.u0 = make([]float64, md.qt)
	md.b0 = make([]float64, p)
	md.xb = make([]float64, md.n)
	md.eta = make([]float64, md.n)
	md.mu = make([]float64, md.n)
	md.w1 = make([]float64, md.n)
	md.g = make([]float64, md.qt+p)
	md.du = make([]float64, md.qt+p)
	md.ent = make([]entry, 0, k+p)
	md.sys = newBlockSys(md.q[0], md.r+p)
	return md, order
}

// ghRule is the physicists' Gauss–Hermite rule (weight e^{−x²}).
type ghRule struct{ x, w []float64 }

// logLik is one level's adaptive Gauss–Hermite log-likelihood
// log(s/√π) + h(û) + log Σₖ wₖ exp(h(û + √2 s xₖ) − h(û) + xₖ²), from the
// level's mode û (uh), its conditional SD s (sj) and h, the level's
// log-likelihood less u²/2 as a function of its random effect u.
func (gh *ghRule) logLik(uh, sj float64, h func(u float64) float64) float64 {
	h0 := h(uh)
	var sum float64
	for k, xk := range gh.x {
		sum += gh.w[k] * math.Exp(h(uh+math.Sqrt2*sj*xk)-h0+xk*xk)
	}
	return math.Log(sj/math.SqrtPi) + h0 + math.Log(sum)
}

func newGHRule(n int) *ghRule {
	g := &ghRule{x: make([]float64, n), w: make([]float64, n)}
	quad.Hermite{}.FixedLocations(g.x, g.w, math.Inf(-1), math.Inf(1))
	return g
}
