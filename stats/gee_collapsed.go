package stats

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// GEECollapsed fits the GEE of GEE from cell counts instead of rows: cell
// k holds n[k] binary responses sharing cluster[k] and the covariate
// pattern X[k], s[k] of them equal to 1. It equals GEE on the expanded rows
// (n[k] rows of X[k], s[k] with y = 1, n[k] − s[k] with y = 0), because
// every quantity of the logit-link GEE with independence or exchangeable
// working correlation is a function of per-(cluster, pattern) sums. With
// μ, v = μ(1−μ) of a cell and cᵢ = α/(1+(nᵢ−1)α),
// R⁻¹ = [I − α/(1−α+nᵢα)·11ᵀ]/(1−α), so per cluster
//
//	DᵢᵀVᵢ⁻¹(yᵢ−μᵢ) = [Σ x(s − nμ) − cᵢ (Σ n√v x)(Σ (s − nμ)/√v)]/(1−α)
//	DᵢᵀVᵢ⁻¹Dᵢ      = [Σ n v xxᵀ − cᵢ (Σ n√v x)(Σ n√v x)ᵀ]/(1−α)
//
// and the moment estimators need Σ r = Σ (s − nμ)/√v and
// Σ r² = Σ (s − 2μs + nμ²)/v per cluster (y² = y for binary y). The
// robust sandwich needs the per-cluster scores above, and the
// Mancl–DeRouen and Kauermann–Carroll corrections the per-cluster
// DᵢᵀVᵢ⁻¹Dᵢ (GEE computes them from the same pooled sums), so all four
// covariances are exact. Cells need not be sorted; cells repeating a
// (cluster, pattern) are summed. Results are those of GEE to rounding (Liang &
// Zeger 1986, Biometrika 73:13–22; statsmodels' GEE.fit conventions).
//
// Counts must be whole numbers with 0 ≤ s ≤ n and n ≥ 1 (else it panics,
// as do bad lengths or unknown options); data-dependent failures return
// errors as GEE does.
func GEECollapsed(X *mat.Dense, n, s []float64, cluster []int, opt GEEOptions) (*GEEResult, error) {
	k, p := X.Dims()
	if len(n) != k || len(s) != k || len(cluster) != k {
		panic("stats: length mismatch between X, n, s and cluster")
	}
	total := 0.0
	for i := range n {
		if !(n[i] >= 1) || n[i] != math.Trunc(n[i]) || !(s[i] >= 0 && s[i] <= n[i]) || s[i] != math.Trunc(s[i]) {
			panic("stats: GEECollapsed counts must be whole numbers with 0 ≤ s ≤ n, n ≥ 1")
		}
		total += n[i]
	}
	opt, err := geeDefaults(opt, p)
	if err != nil {
		return nil, err
	}
	d := newGEECells(X, n, s, cluster)
	return fitGEE(d, int(total), opt)
}

// geeDefaults validates opt (an error for an unknown option, which may
// come from a user) and fills in its defaults, as GEE does.
func geeDefaults(opt GEEOptions, p int) (GEEOptions, error) {
	switch opt.Corr {
	case "":
		opt.Corr = "exchangeable"
	case "exchangeable", "independence":
	case AR1:
		return opt, errors.New("GEE: the ar1 working correlation needs GEEGLM (rows in time order)")
	default:
		return opt, fmt.Errorf("GEE: working correlation %q: want %s", opt.Corr, join(Corrs))
	}
	if err := geeCovConvention(&opt); err != nil {
		return opt, err
	}
	if opt.Family != "" && opt.Family != Binomial || opt.Link != "" && opt.Link != LinkLogit || opt.Weights != nil || opt.Offset != nil {
		return opt, errors.New("GEE: only the unweighted binomial logit model without offset; use GEEGLM")
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 60
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-8
	}
	if opt.Names != nil && len(opt.Names) != p {
		panic("stats: number of names does not match columns of X")
	}
	return opt, nil
}

// newGEECells pools binary cells (count n, events s; y² = y, so Σy² = s).
func newGEECells(X *mat.Dense, n, s []float64, cluster []int) *geeData {
	return poolGEE(X, n, s, s, cluster)
}

// poolGEE groups cells (a row is a cell of count 1) by cluster in sorted
// label order, pooling repeated (cluster, pattern) cells in order of first
// appearance within a cluster; cell k carries count n[k], Σy s[k] and Σy²
// ss[k]. Pooling only saves work (the statistics are sums), so the hashing
// is skipped when at least 95% of the first 2000 cells in cluster order are
// distinct.
func poolGEE(X *mat.Dense, n, s, ss []float64, cluster []int) *geeData {
	k, p := X.Dims()
	cellsD := newDesign(X)
	idx := clusterIndex(cluster)
	set := newPatternSet(k, len(cellsD.idx))
	probe := newPatternSet(2000, 0)
	sampled := 0
	for c, cells := range idx {
		for _, r := range cells {
			if sampled == 2000 {
				break
			}
			ri, rv := cellsD.row(r)
			probe.id(c, ri, rv)
			sampled++
		}
	}
	set.noPool = probe.len() > sampled*19/20
	d := &geeData{p: p, m: make([]float64, 0, k), sy: make([]float64, 0, k), syy: make([]float64, 0, k)}
	for c, cells := range idx {
		start := set.len()
		size := 0.0
		for _, r := range cells {
			ri, rv := cellsD.row(r)
			j := set.id(c, ri, rv)
			if j == len(d.m) {
				d.m = append(d.m, 0)
				d.sy = append(d.sy, 0)
				d.syy = append(d.syy, 0)
			}
			d.m[j] += n[r]
			d.sy[j] += s[r]
			d.syy[j] += ss[r]
			size += n[r]
		}
		d.clusters = append(d.clusters, [2]int{start, set.len()})
		d.clusterSize = append(d.clusterSize, size)
	}
	d.des = set.design(p, false)
	return d
}

// fitGEE runs the GEE iteration and covariances on data pooled into
// (cluster, pattern) cells; GEE and GEECollapsed differ only in how they
// pool. See GEE for the method and its sources.
func fitGEE(d *geeData, nRows int, opt GEEOptions) (*GEEResult, error) {
	p := d.p
	res := &GEEResult{NClusters: len(d.clusters), N: nRows, Alpha: math.NaN(), Scale: 1}
	if res.NClusters < 2 {
		return nil, geeFailf("fewer than two clusters")
	}
	exch := opt.Corr == "exchangeable"

	// Start at the independence estimate (statsmodels _starting_params),
	// with tolerance 1e-8 on the deviance as statsmodels' GLM start; the GEE
	// loop then converges on its own criterion.
	yp := make([]float64, len(d.m))
	for k := range yp {
		yp[k] = d.sy[k] / d.m[k]
	}
	glm, err := logistic(d.des, yp, d.m, LogisticOptions{Names: opt.Names, Tol: 1e-8}, true)
	if err != nil {
		return nil, err
	}
	if glm.Separation {
		names := make([]string, len(glm.SeparatedTerms))
		for i, j := range glm.SeparatedTerms {
			names[i] = colName(opt.Names, j)
		}
		return nil, fmt.Errorf("separation: GEE estimates do not exist; coefficients diverge for %s", strings.Join(names, ", "))
	}
	beta := glm.Coef
	alpha := 0.0
	st := d.newStats(p)
	updates := 0
	var norm float64
	fresh := false // st holds the statistics at the current β
	for res.Iter = 1; res.Iter <= opt.MaxIter; res.Iter++ {
		if !fresh {
			d.pass(beta, st, false)
		}
		fresh = false
		b, u, err := st.assemble(alpha, exch)
		if err != nil {
			return nil, err
		}
		step, err := geeStep(b, u)
		if err != nil {
			return nil, err
		}
		for j := range beta {
			beta[j] += step.AtVec(j)
		}
		norm = mat.Norm(u, 2)
		if norm < opt.Tol && updates > 0 {
			res.Converged = true
			break
		}
		if exch {
			d.pass(beta, st, false)
			fresh = true
			alpha = st.alpha(opt.Convention, p, opt.ScaleFix)
			if math.IsNaN(alpha) {
				return nil, geeFailf("exchangeable correlation undefined (no within-cluster pairs)")
			}
		}
		updates++
	}
	if res.Iter > opt.MaxIter {
		res.Iter = opt.MaxIter
		res.Warnings = append(res.Warnings, Warning{WarnNotConverged, fmt.Sprintf("GEE: no convergence after %d iterations (score norm %.3g)", opt.MaxIter, norm)})
	}
	if exch {
		res.Alpha = alpha
	}

	adjusted := opt.AllCovariances || opt.Cov == "bias-reduced" || opt.Cov == "kc"
	d.pass(beta, st, adjusted)
	b, _, err := st.assemble(alpha, exch)
	if err != nil {
		return nil, err
	}
	binv, bch, ok := symInverse(b)
	if !ok {
		return nil, geeFailf("singular matrix B at the estimate")
	}
	if opt.Convention == "geepack" && !opt.ScaleFix {
		res.Scale = st.sumQ / st.nTotal
	}
	res.NaiveCov = mat.NewSymDense(p, nil)
	res.NaiveCov.ScaleSym(res.Scale, binv)
	res.RobustCov, res.MDCov, res.KCCov, res.Warnings = st.sandwiches(alpha, exch, binv, bch, res.Warnings, adjusted)
	res.Coef = beta
	switch opt.Cov {
	case "robust":
		res.Cov = res.RobustCov
	case "naive":
		res.Cov = res.NaiveCov
	case "bias-reduced":
		res.Cov = res.MDCov
	case "kc":
		res.Cov = res.KCCov
	}
	res.SE = make([]float64, p)
	res.Z = make([]float64, p)
	res.P = make([]float64, p)
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
