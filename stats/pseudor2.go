package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Pseudo-R² take ℓ₁ (fitted) and ℓ₀ (intercept-only) of the episode-level
// Bernoulli data and n its number of rows (docs/methods.md, Pseudo-R²).

// McFadden returns 1 − ℓ₁/ℓ₀ (McFadden 1974; statsmodels prsquared).
// NaN when ℓ₀ = 0 (a constant outcome).
func McFadden(ll, ll0 float64) float64 {
	if ll0 == 0 {
		return math.NaN()
	}
	return 1 - ll/ll0
}

// Count is the type of n in CoxSnell and Nagelkerke: a row count, or the
// sum of frequency weights Σw, which need not be a whole number.
type Count interface{ ~int | ~float64 }

// CoxSnell returns 1 − exp(2(ℓ₀ − ℓ₁)/n) (Cox & Snell 1989; statsmodels
// GLMResults.pseudo_rsquared("cs")). With frequency weights the data stand
// for n = Σw Bernoulli rows: pass LogisticResult.SumW, not N (Σw rounded),
// which would shift R² by up to 0.5/Σw relatively.
func CoxSnell[N Count](ll, ll0 float64, n N) float64 {
	if !(n > 0) {
		panic("stats: CoxSnell needs n > 0")
	}
	return -math.Expm1(2 * (ll0 - ll) / float64(n))
}

// Nagelkerke returns Cox–Snell R² divided by its maximum 1 − exp(2ℓ₀/n)
// (Nagelkerke 1991, Biometrika 78:691–692). NaN when ℓ₀ = 0. As for
// CoxSnell, n is Σw under frequency weights.
func Nagelkerke[N Count](ll, ll0 float64, n N) float64 {
	if !(n > 0) {
		panic("stats: Nagelkerke needs n > 0")
	}
	max := -math.Expm1(2 * ll0 / float64(n))
	if max == 0 {
		return math.NaN()
	}
	return CoxSnell(ll, ll0, n) / max
}

// Tjur returns the coefficient of discrimination mean(μ̂ | y=1) − mean(μ̂ | y=0)
// (Tjur 2009, Am Stat 63:366–372). NaN when either outcome is absent.
func Tjur(y, mu []float64) float64 { return TjurWeighted(y, mu, nil) }

// TjurWeighted is Tjur for frequency-weighted covariate patterns: y the
// proportion of ones in a pattern and w its count (w nil: unit weights),
//
//	Σwyμ/Σwy − Σw(1−y)μ/Σw(1−y),
//
// which equals Tjur on the expanded Bernoulli rows.
func TjurWeighted(y, mu, w []float64) float64 {
	if len(y) != len(mu) {
		panic("stats: length mismatch between y and fitted values")
	}
	if w != nil {
		checkWeights(len(y), w)
	}
	var s1, n1, s0, n0 float64
	for i := range y {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		s1 += wi * y[i] * mu[i]
		n1 += wi * y[i]
		s0 += wi * (1 - y[i]) * mu[i]
		n0 += wi * (1 - y[i])
	}
	if n1 == 0 || n0 == 0 {
		return math.NaN()
	}
	return s1/n1 - s0/n0
}

// CollapsePatterns merges rows of X that are identical (bit for bit) into
// one covariate pattern with frequency weight Σw and outcome Σwy/Σw, so
// Logistic on the result gives the same estimates and log-likelihood as on
// the rows: fits with only factor columns then cost one row per cell.
// Patterns keep the order of their first row; rows[i] is the pattern of
// row i. w nil means unit weights; rows with zero weight are dropped.
func CollapsePatterns(X *mat.Dense, y, w []float64) (Xc *mat.Dense, yc, wc []float64, rows []int) {
	n, p := X.Dims()
	if len(y) != n {
		panic("stats: length of y does not match rows of X")
	}
	if w != nil {
		checkWeights(n, w)
	}
	d := newDesign(X)
	set := newPatternSet(64, 64*p)
	var sy []float64
	rows = make([]int, n)
	for i := range n {
		wi := 1.0
		if w != nil {
			wi = w[i]
		}
		if wi == 0 {
			rows[i] = -1
			continue
		}
		ri, rv := d.row(i)
		k := set.id(0, ri, rv)
		if k == len(wc) {
			wc = append(wc, 0)
			sy = append(sy, 0)
		}
		wc[k] += wi
		sy[k] += wi * y[i]
		rows[i] = k
	}
	yc = make([]float64, len(wc))
	for k := range wc {
		yc[k] = math.Min(1, sy[k]/wc[k])
	}
	if len(wc) == 0 {
		return nil, nil, nil, rows
	}
	return set.design(p, true).x, yc, wc, rows
}

// WaldTest returns the multi-degree-of-freedom Wald statistic for
// H₀: β_j = 0 for all j in idx,
//
//	W = β̂ₛᵀ (Vₛₛ)⁻¹ β̂ₛ ~ χ²_r,  r = len(idx),
//
// with Vₛₛ the corresponding block of cov. A singular block gives NaN.
func WaldTest(coef []float64, cov *mat.SymDense, idx []int) (chi2 float64, df int, p float64) {
	if cov.SymmetricDim() != len(coef) {
		panic("stats: covariance dimension does not match coefficients")
	}
	r := len(idx)
	if r == 0 {
		panic("stats: WaldTest needs at least one coefficient")
	}
	seen := slices.Clone(idx)
	slices.Sort(seen)
	for i, j := range seen {
		if j < 0 || j >= len(coef) || (i > 0 && seen[i-1] == j) {
			panic("stats: WaldTest index out of range or repeated")
		}
	}
	v := mat.NewSymDense(r, nil)
	b := mat.NewVecDense(r, nil)
	for a, j := range idx {
		b.SetVec(a, coef[j])
		for c, k := range idx[a:] {
			v.SetSym(a, a+c, cov.At(j, k))
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(v) {
		return math.NaN(), r, math.NaN()
	}
	var s mat.VecDense
	if err := ch.SolveVecTo(&s, b); err != nil {
		return math.NaN(), r, math.NaN()
	}
	chi2 = mat.Dot(b, &s)
	return chi2, r, distuv.ChiSquared{K: float64(r)}.Survival(chi2)
}

// OddsRatioCI returns exp(β) and its Wald interval exp(β ± z·SE) at the
// given confidence level (NaN when SE is NaN).
func OddsRatioCI(beta, se, level float64) (or, lo, hi float64) {
	z := ZLevel(level)
	return math.Exp(beta), math.Exp(beta - z*se), math.Exp(beta + z*se)
}
