package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// Corr is a GEE working correlation.
type Corr string

// The working correlations.
const (
	Independence Corr = "independence"
	Exchangeable Corr = "exchangeable"
	AR1          Corr = "ar1"
)

// Corrs lists the accepted working correlations.
var Corrs = []Corr{Independence, Exchangeable, AR1}

// String returns the correlation's name.
func (c Corr) String() string { return string(c) }

// Valid reports whether c is a known working correlation.
func (c Corr) Valid() bool { return slices.Contains(Corrs, c) }

// UnmarshalText accepts independence, exchangeable or ar1.
func (c *Corr) UnmarshalText(b []byte) error {
	return unmarshalName("working correlation", b, Corrs, c)
}

// GEEError is a GEE fit that failed on its data: too few clusters, a
// working correlation the data leave undefined or not positive definite,
// a singular matrix. Errors in the options are not GEEErrors. A caller
// that can refit with another working correlation tests for it with
// errors.As instead of reading the message.
type GEEError struct {
	Reason string // what failed, e.g. "singular matrix in the update"
}

// Error returns "GEE: " and the reason.
func (e *GEEError) Error() string { return "GEE: " + e.Reason }

func geeFailf(format string, args ...any) error {
	return &GEEError{Reason: fmt.Sprintf(format, args...)}
}

// GEECov names a GEE covariance estimator.
type GEECov string

// The GEE covariances.
const (
	Robust      GEECov = "robust"
	Naive       GEECov = "naive"
	BiasReduced GEECov = "bias-reduced"
	KC          GEECov = "kc"
)

// GEECovs lists the accepted covariances.
var GEECovs = []GEECov{Robust, BiasReduced, KC, Naive}

// String returns the covariance's name.
func (c GEECov) String() string { return string(c) }

// Valid reports whether c is a known covariance.
func (c GEECov) Valid() bool { return slices.Contains(GEECovs, c) }

// UnmarshalText accepts robust, bias-reduced, kc or naive.
func (c *GEECov) UnmarshalText(b []byte) error {
	return unmarshalName("GEE covariance", b, GEECovs, c)
}

// Convention names the moment estimators of a GEE's scale and correlation.
type Convention string

// The conventions.
const (
	Statsmodels Convention = "statsmodels"
	Geepack     Convention = "geepack"
)

// Conventions lists the accepted conventions.
var Conventions = []Convention{Statsmodels, Geepack}

// String returns the convention's name.
func (c Convention) String() string { return string(c) }

// Valid reports whether c is a known convention.
func (c Convention) Valid() bool { return slices.Contains(Conventions, c) }

// UnmarshalText accepts statsmodels or geepack.
func (c *Convention) UnmarshalText(b []byte) error {
	return unmarshalName("GEE convention", b, Conventions, c)
}

// GEEGLM fits a marginal model of any family and link by generalised
// estimating equations (Liang & Zeger 1986, Biometrika 73:13–22), with the
// working correlations independence, exchangeable and AR(1):
//
//	Σᵢ DᵢᵀVᵢ⁻¹(yᵢ − μᵢ) = 0,  Dᵢ = ∂μᵢ/∂β,  Vᵢ = φ Aᵢ^{½} R(α) Aᵢ^{½},  Aᵢ = diag(V(μ)/w).
//
// Rows of a cluster are taken in the order given; for AR(1), wave[k] is
// row k's time index (R_jk = α^|t_j − t_k|, geepack's waves; nil: the
// position within the cluster). y must satisfy the family's support, as
// for GLM; opt.Family ("" = binomial), opt.Link, opt.Weights (prior
// weights, the binomial trials) and opt.Offset apply as in GLM.
//
// The iteration starts at the GLM (independence) estimate; each step
// updates φ and α by moments at the current β and then takes the Fisher
// scoring step β ← β + B⁻¹U. With r the Pearson residuals, N rows, p
// columns and P the within-cluster pairs (AR(1): the pairs at lag 1):
//
//	geepack:     φ = Σr²/N,      α = Σ_pairs r_j r_k / (φ P)
//	statsmodels: φ = Σr²/(N−p),  α = Σ_pairs r_j r_k / (φ (P−p))
//
// and the reported scale is φ (statsmodels: 1 for binomial and Poisson).
// The covariances are those of GEE (naive, robust, Mancl–DeRouen,
// Kauermann–Carroll). Unknown options, clusters of one row under AR(1)
// only and data-dependent failures are errors; bad lengths panic.
func GEEGLM(X *mat.Dense, y []float64, cluster, wave []int, opt GEEOptions) (*GEEResult, error) {
	n, p := X.Dims()
	if len(y) != n || len(cluster) != n || wave != nil && len(wave) != n || opt.Weights != nil && len(opt.Weights) != n || opt.Offset != nil && len(opt.Offset) != n {
		panic("stats: GEEGLM length mismatch")
	}
	opt, err := geeCheck(opt, p)
	if err != nil {
		return nil, err
	}
	if opt.Convention == Statsmodels && opt.Corr == AR1 {
		return nil, errors.New("GEE: the AR(1) working correlation is estimated as geepack does; use the geepack convention")
	}
	fam, link := opt.Family, opt.Link
	w := unitWeights(opt.Weights, n)
	off := opt.Offset
	if off == nil {
		off = make([]float64, n)
	}
	// Clusters in sorted label order, rows in the order given.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cluster[a] - cluster[b] })
	var groups [][]int
	for s := 0; s < n; {
		e := s
		for e < n && cluster[order[e]] == cluster[order[s]] {
			e++
		}
		groups = append(groups, order[s:e])
		s = e
	}
	if len(groups) < 2 {
		return nil, geeFailf("fewer than two clusters")
	}
	glm, err := GLM(X, y, GLMOptions{Family: fam, Link: link, Weights: w, Offset: off, Names: opt.Names, Tol: 1e-10})
	if err != nil {
		return nil, err
	}
	beta := slices.Clone(glm.Coef)
	res := &GEEResult{NClusters: len(groups), N: n, Alpha: math.NaN(), Scale: 1}
	g := &geeGLM{X: X, y: y, w: w, off: off, fam: fam, link: link, groups: groups, wave: wave, p: p, corr: opt.Corr}
	var alpha float64
	var norm float64
	for res.Iter = 1; res.Iter <= opt.MaxIter; res.Iter++ {
		g.residuals(beta)
		_, alpha = g.moments(opt)
		if math.IsNaN(alpha) {
			return nil, geeFailf("working correlation undefined (no within-cluster pairs)")
		}
		b, u, err := g.assemble(alpha, false)
		if err != nil {
			return nil, err
		}
		step, err := geeStep(b, u)
		if err != nil {
			return nil, err
		}
		maxRel := 0.0
		for j := range beta {
			beta[j] += step.AtVec(j)
			maxRel = math.Max(maxRel, math.Abs(step.AtVec(j))/(math.Abs(beta[j])+1e-8))
		}
		norm = mat.Norm(u, 2)
		if maxRel < opt.Tol {
			res.Converged = true
			break
		}
	}
	if res.Iter > opt.MaxIter {
		res.Iter = opt.MaxIter
		res.Warnings = append(res.Warnings, Warning{WarnNotConverged, fmt.Sprintf("GEE: no convergence after %d iterations (score norm %.3g)", opt.MaxIter, norm)})
	}
	g.residuals(beta)
	phi, alpha := g.moments(opt)
	if opt.Corr != Independence {
		res.Alpha = alpha
	}
	res.Scale = phi
	if opt.Convention == Statsmodels && fam.FixedScale() {
		res.Scale = 1
	}
	if opt.ScaleFix {
		res.Scale = 1
	}
	adjusted := opt.AllCovariances || opt.Cov == BiasReduced || opt.Cov == KC
	b, _, err := g.assemble(alpha, true)
	if err != nil {
		return nil, err
	}
	binv, bch, ok := symInverse(b)
	if !ok {
		return nil, geeFailf("singular matrix B at the estimate")
	}
	res.NaiveCov = mat.NewSymDense(p, nil)
	res.NaiveCov.ScaleSym(res.Scale, binv)
	res.RobustCov, res.MDCov, res.KCCov, res.Warnings = sandwichCovs(p, len(groups),
		func(i int) *mat.VecDense { return g.u[i] },
		func(i int) (*mat.SymDense, *mat.VecDense) { return g.b[i], g.u[i] },
		binv, bch, res.Warnings, adjusted)
	res.Coef = beta
	switch opt.Cov {
	case Robust:
		res.Cov = res.RobustCov
	case Naive:
		res.Cov = res.NaiveCov
	case BiasReduced:
		res.Cov = res.MDCov
	case KC:
		res.Cov = res.KCCov
	}
	res.SE, res.Z, res.P = make([]float64, p), make([]float64, p), make([]float64, p)
	for j := range p {
		res.SE[j] = math.NaN()
		if res.Cov != nil {
			res.SE[j] = math.Sqrt(res.Cov.At(j, j))
		}
		res.Z[j] = beta[j] / res.SE[j]
		res.P[j] = math.Erfc(math.Abs(res.Z[j]) / math.Sqrt2)
	}
	return res, nil
}

// geeCheck validates opt (errors for unknown values) and fills defaults.
func geeCheck(opt GEEOptions, p int) (GEEOptions, error) {
	if opt.Family == "" {
		opt.Family = Binomial
	}
	if !opt.Family.Valid() {
		return opt, fmt.Errorf("GEE: family %q: want %s", opt.Family, join(Families))
	}
	if opt.Link == "" {
		opt.Link = opt.Family.CanonicalLink()
	}
	if !opt.Link.Allowed(opt.Family) {
		return opt, fmt.Errorf("GEE: link %q does not apply to family %s", opt.Link, opt.Family)
	}
	if opt.Corr == "" {
		opt.Corr = Exchangeable
	}
	if !opt.Corr.Valid() {
		return opt, fmt.Errorf("GEE: working correlation %q: want %s", opt.Corr, join(Corrs))
	}
	if err := geeCovConvention(&opt); err != nil {
		return opt, err
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 100
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-10
	}
	if opt.Names != nil && len(opt.Names) != p {
		panic("stats: number of names does not match columns of X")
	}
	return opt, nil
}

// geeCovConvention fills in and checks opt's covariance (robust by
// default) and convention (statsmodels by default; geepack under AR(1),
// which is estimated only as geepack does), for GEE and GEEGLM alike;
// opt.Corr is already set.
func geeCovConvention(opt *GEEOptions) error {
	if opt.Cov == "" {
		opt.Cov = Robust
	}
	if !opt.Cov.Valid() {
		return fmt.Errorf("GEE: covariance %q: want %s", opt.Cov, join(GEECovs))
	}
	if opt.Convention == "" {
		opt.Convention = Statsmodels
		if opt.Corr == AR1 {
			opt.Convention = Geepack
		}
	}
	if !opt.Convention.Valid() {
		return fmt.Errorf("GEE: convention %q: want %s", opt.Convention, join(Conventions))
	}
	return nil
}

type geeGLM struct {
	X         *mat.Dense
	y, w, off []float64
	fam       Family
	link      Link
	groups    [][]int
	wave      []int
	p         int
	corr      Corr
	// At the current β: μ, dμ/dη, √(V(μ)/w) and Pearson residuals per row.
	mu, dmu, sd, r []float64
	b              []*mat.SymDense // per-cluster Bᵢ (scale-free)
	u              []*mat.VecDense // per-cluster uᵢ
}

func (g *geeGLM) residuals(beta []float64) {
	n := len(g.y)
	if g.mu == nil {
		g.mu, g.dmu, g.sd, g.r = make([]float64, n), make([]float64, n), make([]float64, n), make([]float64, n)
	}
	raw := g.X.RawMatrix()
	for i := range n {
		eta := g.off[i]
		for j, x := range raw.Data[i*raw.Stride : i*raw.Stride+g.p] {
			eta += x * beta[j]
		}
		g.mu[i], g.dmu[i] = g.link.inverse(eta)
		g.sd[i] = math.Sqrt(g.fam.variance(g.mu[i]) / g.w[i])
		g.r[i] = (g.y[i] - g.mu[i]) / g.sd[i]
	}
}

// lag is the time distance of rows a and b of a cluster at positions ja, jb.
func (g *geeGLM) lag(a, b, ja, jb int) int {
	if g.wave != nil {
		d := g.wave[a] - g.wave[b]
		if d < 0 {
			d = -d
		}
		return d
	}
	if ja > jb {
		return ja - jb
	}
	return jb - ja
}

// moments returns φ and α at the current residuals.
func (g *geeGLM) moments(opt GEEOptions) (phi, alpha float64) {
	var ss, s, pairs float64
	n := float64(len(g.y))
	var prod []float64 // AR(1): r_j r_k and the lag of every pair
	var lags []int
	for _, rows := range g.groups {
		for ja, a := range rows {
			ss += g.r[a] * g.r[a]
			for jb := ja + 1; jb < len(rows); jb++ {
				b := rows[jb]
				switch g.corr {
				case Exchangeable:
					s += g.r[a] * g.r[b]
					pairs++
				case AR1:
					d := g.lag(a, b, ja, jb)
					prod = append(prod, g.r[a]*g.r[b])
					lags = append(lags, d)
					if d == 1 {
						s += g.r[a] * g.r[b]
						pairs++
					}
				}
			}
		}
	}
	k := float64(g.p)
	if opt.Convention == Geepack {
		phi = ss / n
		if opt.ScaleFix {
			phi = 1
		}
		switch g.corr {
		case Independence:
			return phi, 0
		case AR1:
			return phi, ar1Alpha(prod, lags, phi, s/phi/pairs)
		}
		return phi, s / phi / pairs
	}
	phi = ss / (n - k)
	if g.corr == Independence {
		return phi, 0
	}
	return phi, s / phi / (pairs - k)
}

// ar1Alpha solves geepack's estimating equation of the AR(1) parameter,
// least squares of the standardised products on the correlation over all
// within-cluster pairs,
//
//	Σ_pairs (r_j r_k/φ − α^d) · d α^{d−1} = 0,  d = |t_j − t_k|,
//
// by Newton's method from the lag-1 moment estimate start (bisection on
// (−1, 1) when a step leaves it). NaN without pairs.
func ar1Alpha(prod []float64, lags []int, phi, start float64) float64 {
	if len(prod) == 0 {
		return math.NaN()
	}
	eq := func(a float64) (f, df float64) {
		for i, e := range prod {
			d := float64(lags[i])
			if lags[i] == 0 {
				continue
			}
			ad1 := math.Pow(a, d-1) // α^{d−1}
			ad := ad1 * a
			r := e/phi - ad
			f += r * d * ad1
			df += -d * d * ad1 * ad1
			if lags[i] > 1 {
				df += r * d * (d - 1) * math.Pow(a, d-2)
			}
		}
		return f, df
	}
	lo, hi := -1+1e-10, 1-1e-10
	a := math.Max(lo, math.Min(hi, start))
	if math.IsNaN(a) {
		a = 0
	}
	for range 200 {
		f, df := eq(a)
		if f > 0 {
			lo = math.Max(lo, a)
		} else {
			hi = math.Min(hi, a)
		}
		next := a - f/df
		if !(next > lo && next < hi) || df == 0 {
			next = (lo + hi) / 2
		}
		if math.Abs(next-a) < 1e-15 {
			return next
		}
		a = next
	}
	return a
}

// assemble computes B = Σ DᵢᵀR̃ᵢ⁻¹Dᵢ and U = Σ DᵢᵀR̃ᵢ⁻¹(yᵢ−μᵢ) with
// R̃ = A^{½}R(α)A^{½} (φ cancels in the step); keep stores each
// cluster's Bᵢ and uᵢ.
func (g *geeGLM) assemble(alpha float64, keep bool) (*mat.SymDense, *mat.VecDense, error) {
	p := g.p
	b := mat.NewSymDense(p, nil)
	u := mat.NewVecDense(p, nil)
	if keep {
		g.b, g.u = make([]*mat.SymDense, len(g.groups)), make([]*mat.VecDense, len(g.groups))
	}
	raw := g.X.RawMatrix()
	for ci, rows := range g.groups {
		m := len(rows)
		rm := mat.NewSymDense(m, nil)
		for ja, a := range rows {
			rm.SetSym(ja, ja, 1)
			for jb := ja + 1; jb < m; jb++ {
				var c float64
				switch g.corr {
				case Exchangeable:
					c = alpha
				case AR1:
					c = math.Pow(alpha, float64(g.lag(a, rows[jb], ja, jb)))
				}
				rm.SetSym(ja, jb, c)
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(rm) {
			return nil, nil, geeFailf("the working correlation (α = %.4g) is not positive definite for a cluster of %d rows", alpha, m)
		}
		// Whitened D and residuals: D̃ = A^{-½}D, r̃ = Pearson residuals.
		dt := mat.NewDense(m, p, nil)
		rv := mat.NewVecDense(m, nil)
		for ja, a := range rows {
			f := g.dmu[a] / g.sd[a]
			for j, x := range raw.Data[a*raw.Stride : a*raw.Stride+p] {
				dt.Set(ja, j, f*x)
			}
			rv.SetVec(ja, g.r[a])
		}
		var rd mat.Dense
		if err := ch.SolveTo(&rd, dt); err != nil {
			return nil, nil, geeFailf("singular working correlation")
		}
		var rr mat.VecDense
		if err := ch.SolveVecTo(&rr, rv); err != nil {
			return nil, nil, geeFailf("singular working correlation")
		}
		var bi mat.Dense
		bi.Mul(dt.T(), &rd)
		ui := mat.NewVecDense(p, nil)
		ui.MulVec(dt.T(), &rr)
		bs := mat.NewSymDense(p, nil)
		for j := range p {
			for k := j; k < p; k++ {
				bs.SetSym(j, k, 0.5*(bi.At(j, k)+bi.At(k, j)))
			}
		}
		b.AddSym(b, bs)
		u.AddVec(u, ui)
		if keep {
			g.b[ci], g.u[ci] = bs, ui
		}
	}
	return b, u, nil
}

// geeStep solves b·step = u for the Fisher-scoring step of a GEE
// iteration, b the model-based information and u the estimating function.
func geeStep(b *mat.SymDense, u *mat.VecDense) (*mat.VecDense, error) {
	var ch mat.Cholesky
	if !ch.Factorize(b) {
		return nil, geeFailf("singular matrix in the update")
	}
	var step mat.VecDense
	if err := ch.SolveVecTo(&step, u); err != nil {
		return nil, geeFailf("singular matrix in the update")
	}
	return &step, nil
}
