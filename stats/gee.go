package stats

import (
	"math"

	"gonum.org/v1/gonum/floats"

	"gonum.org/v1/gonum/mat"
)

// GEEOptions configures GEE.
type GEEOptions struct {
	// Corr is the working correlation: exchangeable (default),
	// independence, or ar1 (GEEGLM only).
	Corr Corr
	// Cov selects the covariance reported in Cov, SE, Z and P: "robust"
	// (default, sandwich), "naive" (model-based), "bias-reduced"
	// (Mancl–DeRouen) or "kc" (Kauermann–Carroll). Naive and robust are
	// always kept in the result, the other two when selected or with
	// AllCovariances.
	Cov GEECov
	// Convention selects the moment estimators of the scale and α:
	// "statsmodels" (default) or "geepack" (docs/methods.md, GEE).
	Convention Convention
	// MaxIter bounds the iterations (default 60, statsmodels' maxiter).
	MaxIter int
	// Tol stops the iteration when the Euclidean norm of the estimating
	// function before the step is below it (default 1e-8; statsmodels'
	// ctol is 1e-6), after at least one update of α.
	Tol float64
	// Names are column names for messages (optional).
	Names []string
	// ScaleFix fixes φ = 1 in the geepack convention (geeglm's
	// scale.fix = TRUE), so α = S/P; statsmodels always reports φ = 1 but
	// estimates φ inside the α update.
	ScaleFix bool
	// Family, Link, Weights and Offset are GEEGLM's model (GLMOptions):
	// GEE and GEECollapsed fit the binomial logit model only.
	Family  Family
	Link    Link
	Weights []float64
	Offset  []float64
	// AllCovariances also computes the Mancl–DeRouen and Kauermann–Carroll
	// covariances when Cov does not ask for them (they cost p×p work per
	// cluster).
	AllCovariances bool
}

// GEEResult is a fitted GEE logistic model.
type GEEResult struct {
	Coef, SE, Z, P []float64
	Cov            *mat.SymDense // the covariance selected by GEEOptions.Cov
	// All covariances: naive φB⁻¹, robust sandwich, Mancl–DeRouen and
	// Kauermann–Carroll (the last two nil unless requested, or when not
	// computable, with a warning).
	NaiveCov, RobustCov, MDCov, KCCov *mat.SymDense
	Alpha                             float64 // exchangeable correlation (NaN for independence)
	Scale                             float64 // φ: 1 (statsmodels, binomial) or Σr²/N (geepack)
	NClusters                         int
	N                                 int
	Iter                              int
	Converged                         bool
	Warnings                          []Warning
}

// GEE fits a marginal logistic model by generalised estimating equations
// (Liang & Zeger 1986, Biometrika 73:13–22):
//
//	Σᵢ DᵢᵀVᵢ⁻¹(yᵢ − μᵢ) = 0,  Dᵢ = AᵢXᵢ,  Vᵢ = φ Aᵢ^{½} R(α) Aᵢ^{½},  Aᵢ = diag(μ(1−μ)),
//
// with clusters given by the labels in cluster (rows need not be sorted).
// The loop is statsmodels' GEE.fit: start at the independence (GLM)
// estimate with α = 0; each iteration takes the Fisher-scoring step
// β ← β + B⁻¹U and then updates α by moments at the new β. The
// exchangeable inverse is used in closed form,
// R⁻¹ = [I − α/(1+(n−1)α)·11ᵀ]/(1−α). With r the Pearson residuals, N rows,
// P = Σnᵢ(nᵢ−1)/2 pairs, S = Σᵢ Σ_{j<k} r_ij r_ik and p columns:
//
//	statsmodels: φ_α = Σr²/(N−p),  α = S/φ_α/(P−p),  reported φ = 1
//	geepack:     φ = Σr²/N,        α = S/φ/P
//
// Covariances (statsmodels _covmat and _bc_covmat), B = Σ DᵢᵀVᵢ⁻¹Dᵢ,
// uᵢ = DᵢᵀVᵢ⁻¹rᵢ, Hᵢ = DᵢB⁻¹DᵢᵀVᵢ⁻¹:
//
//	naive  = φB⁻¹,  robust = B⁻¹ Σ uᵢuᵢᵀ B⁻¹
//	MD     = B⁻¹ Σ DᵢᵀVᵢ⁻¹(I−Hᵢ)⁻¹rᵢ (…)ᵀ B⁻¹       (Mancl & DeRouen 2001, Biometrics 57:126–134)
//	KC     = the same with (I−Hᵢ)^{−½}                (Kauermann & Carroll 2001, JASA 96:1387–1396)
//
// computed through the rank-p structure of Hᵢ (p×p work per cluster, no
// nᵢ×nᵢ matrices). Rows sharing a cluster and a covariate pattern are
// pooled internally, which is exact. Wald z and p use the normal
// reference, as statsmodels; with few clusters prefer "bias-reduced" or
// "kc" (Li & Redden 2015, Stat Med 34:281–296).
//
// Data-dependent failures (rank-deficient X, separation, fewer than two
// clusters, a working correlation that is not positive definite) return
// errors, as do unknown options; no convergence is flagged. Bad lengths or
// y outside [0, 1] panic.
func GEE(X *mat.Dense, y []float64, cluster []int, opt GEEOptions) (*GEEResult, error) {
	n, p := X.Dims()
	if len(y) != n || len(cluster) != n {
		panic("stats: length mismatch between X, y and cluster")
	}
	for _, v := range y {
		if !(v >= 0 && v <= 1) {
			panic("stats: GEE response outside [0, 1]")
		}
	}
	opt, err := geeDefaults(opt, p)
	if err != nil {
		return nil, err
	}
	return fitGEE(newGEEData(X, y, cluster), n, opt)
}

// geeData holds rows pooled into covariate patterns within clusters,
// clusters in sorted label order.
type geeData struct {
	p           int
	m, sy, syy  []float64 // count, Σy, Σy² per pattern
	clusters    [][2]int  // pattern range [start, end) of each cluster
	clusterSize []float64
	des         *design
}

// newGEEData pools rows (cells of count 1) into (cluster, pattern) cells.
func newGEEData(X *mat.Dense, y []float64, cluster []int) *geeData {
	n, _ := X.Dims()
	ones := make([]float64, n)
	yy := make([]float64, n)
	for i, v := range y {
		ones[i] = 1
		yy[i] = v * v
	}
	return poolGEE(X, ones, y, yy, cluster)
}

// geeStats are the α-free sufficient statistics of one pass at β.
type geeStats struct {
	p      int
	gram   *mat.SymDense   // Σ over all patterns of m v xxᵀ
	gramC  []*mat.SymDense // per-cluster Gram (only when wanted)
	s      [][]float64     // per cluster Σ m √v x
	t      [][]float64     // per cluster Σ x (Σy − mμ)
	e      []float64       // per cluster Σ Pearson residuals
	q      []float64       // per cluster Σ squared Pearson residuals
	nc     []float64       // cluster sizes
	sumQ   float64
	nTotal float64
	wt     []float64
	msv    []float64 // dense designs: m√v and residual sums per pattern
	res    []float64
}

func (d *geeData) newStats(p int) *geeStats {
	k := len(d.clusters)
	st := &geeStats{p: p, gram: mat.NewSymDense(p, nil), nc: d.clusterSize,
		e: make([]float64, k), q: make([]float64, k), wt: make([]float64, len(d.m)),
		msv: make([]float64, len(d.m)), res: make([]float64, len(d.m))}
	st.s = make([][]float64, k)
	st.t = make([][]float64, k)
	for i := range k {
		st.s[i] = make([]float64, p)
		st.t[i] = make([]float64, p)
		st.nTotal += d.clusterSize[i]
	}
	return st
}

// pass computes the statistics at β; perCluster also keeps each cluster's
// Gram matrix for the bias-corrected sandwiches.
func (d *geeData) pass(beta []float64, st *geeStats, perCluster bool) {
	p := d.p
	st.sumQ = 0
	if perCluster && st.gramC == nil {
		st.gramC = make([]*mat.SymDense, len(d.clusters))
		for i := range st.gramC {
			st.gramC[i] = mat.NewSymDense(p, nil)
		}
	}
	for i, cr := range d.clusters {
		s, t := st.s[i], st.t[i]
		for j := range p {
			s[j], t[j] = 0, 0
		}
		var e, q float64
		dense := !d.des.sparse
		for k := cr[0]; k < cr[1]; k++ {
			mu := Expit(d.des.dot(k, beta))
			v := mu * (1 - mu)
			sv := math.Sqrt(v)
			m := d.m[k]
			st.wt[k] = m * v
			res := d.sy[k] - m*mu
			if dense {
				st.msv[k], st.res[k] = m*sv, res
			} else {
				d.des.axpy(k, m*sv, s)
				d.des.axpy(k, res, t)
			}
			e += res / sv
			q += (d.syy[k] - 2*mu*d.sy[k] + m*mu*mu) / v
		}
		if dense {
			// Column pieces of the cluster are contiguous in xt.
			n := d.des.n
			for j := range p {
				col := d.des.xt[j*n+cr[0] : j*n+cr[1]]
				s[j] = floats.Dot(st.msv[cr[0]:cr[1]], col)
				t[j] = floats.Dot(st.res[cr[0]:cr[1]], col)
			}
		}
		st.e[i], st.q[i] = e, q
		st.sumQ += q
	}
	if !perCluster {
		d.des.gram(0, len(d.m), st.wt, nil, st.gram, nil)
		return
	}
	// The total is the sum of the clusters' Gram matrices.
	st.gram.Zero()
	for i, cr := range d.clusters {
		d.des.gram(cr[0], cr[1], st.wt, nil, st.gramC[i], nil)
		st.gram.AddSym(st.gram, st.gramC[i])
	}
}

// exchC returns cᵢ = α/(1+(nᵢ−1)α) of the exchangeable inverse.
func exchC(alpha, n float64) float64 { return alpha / (1 + (n-1)*alpha) }

// assemble forms B = Σ Bᵢ and U = Σ uᵢ for the working correlation α.
func (st *geeStats) assemble(alpha float64, exch bool) (*mat.SymDense, *mat.VecDense, error) {
	p := st.p
	b := mat.NewSymDense(p, nil)
	b.CopySym(st.gram)
	u := mat.NewVecDense(p, nil)
	f := 1.0
	if exch && alpha != 0 {
		f = 1 / (1 - alpha)
	}
	for i := range st.s {
		c := 0.0
		if exch && alpha != 0 {
			den := 1 + (st.nc[i]-1)*alpha
			if !(den > 0) || !(alpha < 1) {
				return nil, nil, geeFailf("exchangeable working correlation α = %.4g is not positive definite", alpha)
			}
			c = exchC(alpha, st.nc[i])
		}
		for j := range p {
			u.SetVec(j, u.AtVec(j)+f*(st.t[i][j]-c*st.s[i][j]*st.e[i]))
			if c != 0 {
				for k := j; k < p; k++ {
					b.SetSym(j, k, b.At(j, k)-c*st.s[i][j]*st.s[i][k])
				}
			}
		}
	}
	if f != 1 {
		b.ScaleSym(f, b)
	}
	return b, u, nil
}

// alpha returns the moment estimate of the exchangeable correlation.
func (st *geeStats) alpha(convention Convention, p int, scaleFix bool) float64 {
	var sPairs, pairs float64
	for i := range st.e {
		sPairs += (st.e[i]*st.e[i] - st.q[i]) / 2
		pairs += st.nc[i] * (st.nc[i] - 1) / 2
	}
	fp := float64(p)
	if pairs == 0 {
		return math.NaN()
	}
	if convention == "geepack" {
		phi := st.sumQ / st.nTotal
		if scaleFix {
			phi = 1
		}
		return sPairs / phi / pairs
	}
	phi := st.sumQ / (st.nTotal - fp)
	if pairs-fp <= 0 {
		return math.NaN()
	}
	return sPairs / phi / (pairs - fp)
}

// clusterU returns uᵢ = DᵢᵀVᵢ⁻¹(yᵢ − μᵢ) of cluster i.
func (st *geeStats) clusterU(i int, alpha float64, exch bool) *mat.VecDense {
	f, c := 1.0, 0.0
	if exch && alpha != 0 {
		f = 1 / (1 - alpha)
		c = exchC(alpha, st.nc[i])
	}
	ui := mat.NewVecDense(st.p, nil)
	for j := range st.p {
		ui.SetVec(j, f*(st.t[i][j]-c*st.s[i][j]*st.e[i]))
	}
	return ui
}

// clusterB returns Bᵢ and uᵢ of cluster i (needs the per-cluster Gram).
func (st *geeStats) clusterB(i int, alpha float64, exch bool) (*mat.SymDense, *mat.VecDense) {
	p := st.p
	bi := mat.NewSymDense(p, nil)
	bi.CopySym(st.gramC[i])
	ui := mat.NewVecDense(p, nil)
	f, c := 1.0, 0.0
	if exch && alpha != 0 {
		f = 1 / (1 - alpha)
		c = exchC(alpha, st.nc[i])
	}
	for j := range p {
		ui.SetVec(j, f*(st.t[i][j]-c*st.s[i][j]*st.e[i]))
		for k := j; k < p; k++ {
			bi.SetSym(j, k, f*(bi.At(j, k)-c*st.s[i][j]*st.s[i][k]))
		}
	}
	return bi, ui
}

// sandwiches returns the robust, Mancl–DeRouen and Kauermann–Carroll
// covariances. With B = LLᵀ and Mᵢ = L⁻¹BᵢL⁻ᵀ = WΛWᵀ, the nonzero
// eigenvalues of Hᵢ are Λ, and for any f
//
//	DᵢᵀVᵢ⁻¹ f(I−Hᵢ) rᵢ = uᵢ + BᵢL⁻ᵀW diag((f(1−λ)−1)/λ) WᵀL⁻¹uᵢ,
//
// so MD (f(x) = 1/x) and KC (f(x) = x^{−½}) need only p×p algebra.
func (st *geeStats) sandwiches(alpha float64, exch bool, binv *mat.SymDense, bch *mat.Cholesky, warn []Warning, adjusted bool) (robust, md, kc *mat.SymDense, warnings []Warning) {
	return sandwichCovs(st.p, len(st.s),
		func(i int) *mat.VecDense { return st.clusterU(i, alpha, exch) },
		func(i int) (*mat.SymDense, *mat.VecDense) { return st.clusterB(i, alpha, exch) },
		binv, bch, warn, adjusted)
}

// sandwichCovs computes the robust, Mancl–DeRouen and Kauermann–Carroll
// covariances (see geeStats.sandwiches) from each of k clusters' uᵢ
// (clusterU) or Bᵢ and uᵢ (clusterB, when adjusted).
func sandwichCovs(p, k int, clusterU func(i int) *mat.VecDense, clusterB func(i int) (*mat.SymDense, *mat.VecDense), binv *mat.SymDense, bch *mat.Cholesky, warn []Warning, adjusted bool) (robust, md, kc *mat.SymDense, warnings []Warning) {
	meatR := mat.NewSymDense(p, nil)
	sand := func(meat *mat.SymDense) *mat.SymDense {
		var t, out mat.Dense
		t.Mul(binv, meat)
		out.Mul(&t, binv)
		s := mat.NewSymDense(p, nil)
		for j := range p {
			for k := j; k < p; k++ {
				s.SetSym(j, k, 0.5*(out.At(j, k)+out.At(k, j)))
			}
		}
		return s
	}
	if !adjusted {
		for i := range k {
			meatR.SymRankOne(meatR, 1, clusterU(i))
		}
		return sand(meatR), nil, nil, warn
	}
	meatMD := mat.NewSymDense(p, nil)
	meatKC := mat.NewSymDense(p, nil)
	var lt mat.TriDense
	bch.LTo(&lt)
	mdOK, kcOK := true, true
	for i := range k {
		bi, ui := clusterB(i)
		meatR.SymRankOne(meatR, 1, ui)
		// M = L⁻¹ Bᵢ L⁻ᵀ.
		var linvB mat.Dense
		if err := linvB.Solve(&lt, bi); err != nil {
			mdOK, kcOK = false, false
			continue
		}
		var m mat.Dense
		if err := m.Solve(&lt, linvB.T()); err != nil {
			mdOK, kcOK = false, false
			continue
		}
		ms := mat.NewSymDense(p, nil)
		for j := range p {
			for k := j; k < p; k++ {
				ms.SetSym(j, k, 0.5*(m.At(j, k)+m.At(k, j)))
			}
		}
		var eig mat.EigenSym
		if !eig.Factorize(ms, true) {
			mdOK, kcOK = false, false
			continue
		}
		lam := eig.Values(nil)
		var wv mat.Dense
		eig.VectorsTo(&wv)
		var lu mat.VecDense // L⁻¹uᵢ
		if err := lu.SolveVec(&lt, ui); err != nil {
			mdOK, kcOK = false, false
			continue
		}
		var wtlu mat.VecDense
		wtlu.MulVec(wv.T(), &lu)
		adj := func(g func(l float64) float64) (*mat.VecDense, bool) {
			z := mat.NewVecDense(p, nil)
			for j := range p {
				l := lam[j]
				if l >= 1-1e-12 {
					return nil, false
				}
				z.SetVec(j, g(math.Max(l, 0))*wtlu.AtVec(j))
			}
			var wz, ltz, out mat.VecDense
			wz.MulVec(&wv, z)
			if err := ltz.SolveVec(lt.T(), &wz); err != nil {
				return nil, false
			}
			out.MulVec(bi, &ltz)
			out.AddVec(&out, ui)
			return &out, true
		}
		if v, ok := adj(func(l float64) float64 { return 1 / (1 - l) }); ok {
			meatMD.SymRankOne(meatMD, 1, v)
		} else {
			mdOK = false
		}
		if v, ok := adj(func(l float64) float64 {
			if l < 1e-8 {
				return 0.5 + 0.375*l
			}
			return (1/math.Sqrt(1-l) - 1) / l
		}); ok {
			meatKC.SymRankOne(meatKC, 1, v)
		} else {
			kcOK = false
		}
	}
	robust = sand(meatR)
	if mdOK {
		md = sand(meatMD)
	} else {
		warn = append(warn, Warning{WarnCovUndefined, "GEE: bias-reduced (Mancl–DeRouen) covariance undefined: a cluster has leverage 1"})
	}
	if kcOK {
		kc = sand(meatKC)
	} else {
		warn = append(warn, Warning{WarnCovUndefined, "GEE: Kauermann–Carroll covariance undefined: a cluster has leverage 1"})
	}
	return robust, md, kc, warn
}
