package stats

import (
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/stat/distuv"
)

// ZLevel returns the two-sided normal quantile z = Φ⁻¹(1 − (1−level)/2)
// for a confidence level in (0, 1), e.g. 1.959963984540054 for 0.95.
func ZLevel(level float64) float64 {
	if !(level > 0 && level < 1) {
		panic("stats: confidence level must be in (0, 1)")
	}
	return distuv.UnitNormal.Quantile(1 - (1-level)/2)
}

// TLevel returns the two-sided Student t quantile t_{df, 1−(1−level)/2};
// df = +Inf gives the normal quantile. survey's svyciprop(method="wilson")
// uses it with df = #PSU − #strata in place of z.
func TLevel(level, df float64) float64 {
	if !(level > 0 && level < 1) {
		panic("stats: confidence level must be in (0, 1)")
	}
	if math.IsInf(df, 1) {
		return ZLevel(level)
	}
	if !(df > 0) {
		return math.NaN()
	}
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-level)/2)
}

// Wilson returns the Wilson (1927) score interval for a proportion p̂
// observed on n trials, at normal quantile z (see ZLevel):
//
//	center = (p̂ + z²/(2n)) / (1 + z²/n)
//	half   = z·√(p̂(1−p̂)/n + z²/(4n²)) / (1 + z²/n)
//
// This is statsmodels proportion_confint(method="wilson"). n may be
// fractional (a Kish or design effective sample size; count = p̂·n). The
// interval is clamped to [0, 1], with lo = 0 exactly when p̂ = 0 and hi = 1
// exactly when p̂ = 1 (closed forms z²/(n+z²) and n/(n+z²)). Edge cases
// (docs/methods.md, Wilson interval): n ≤ 0 or NaN, or p̂ NaN, gives NaN, NaN; n = +Inf collapses
// the interval to p̂; 0 < n < 1 is computed as is (callers should flag it).
// A p̂ outside [0, 1] or z ≤ 0 is a caller mistake and panics.
func Wilson(p, n, z float64) (lo, hi float64) {
	checkPZ(p, z)
	p = clamp01(p)
	if math.IsNaN(p) || math.IsNaN(n) || n <= 0 {
		return math.NaN(), math.NaN()
	}
	if math.IsInf(n, 1) {
		return p, p
	}
	z2 := z * z
	switch p {
	case 0:
		return 0, z2 / (n + z2)
	case 1:
		return n / (n + z2), 1
	}
	denom := 1 + z2/n
	center := (p + z2/(2*n)) / denom
	half := z * math.Sqrt(p*(1-p)/n+z2/(4*n*n)) / denom
	return clamp01(center - half), clamp01(center + half)
}

// WilsonCC returns the continuity-corrected Wilson interval, Newcombe
// (1998a, Stat Med 17:857–872) method 4, with x = p̂·n:
//
//	L = [2np̂ + z² − 1 − z√(z² − 2 − 1/n + 4p̂(n(1−p̂)+1))] / (2(n+z²)),  L = 0 if p̂ = 0
//	U = [2np̂ + z² + 1 + z√(z² + 2 − 1/n + 4p̂(n(1−p̂)−1))] / (2(n+z²)),  U = 1 if p̂ = 1
//
// It equals R prop.test(x, n)$conf.int except that R drops the correction
// when x = n/2; this function never does. Edge cases as Wilson; negative
// radicands (possible only for fractional n < 1) are taken as 0.
func WilsonCC(p, n, z float64) (lo, hi float64) {
	checkPZ(p, z)
	p = clamp01(p)
	if math.IsNaN(p) || math.IsNaN(n) || n <= 0 {
		return math.NaN(), math.NaN()
	}
	if math.IsInf(n, 1) {
		return p, p
	}
	z2 := z * z
	den := 2 * (n + z2)
	if p == 0 {
		lo = 0
	} else {
		r := math.Max(0, z2-2-1/n+4*p*(n*(1-p)+1))
		lo = (2*n*p + z2 - 1 - z*math.Sqrt(r)) / den
	}
	if p == 1 {
		hi = 1
	} else {
		r := math.Max(0, z2+2-1/n+4*p*(n*(1-p)-1))
		hi = (2*n*p + z2 + 1 + z*math.Sqrt(r)) / den
	}
	return clamp01(math.Min(lo, p)), clamp01(math.Max(hi, p))
}

func checkPZ(p, z float64) {
	// Allow rounding error from a weighted mean; anything larger is a bug.
	if p < -1e-12 || p > 1+1e-12 {
		panic("stats: proportion outside [0, 1]")
	}
	if !(z > 0) {
		panic("stats: quantile z must be positive")
	}
}

func clamp01(x float64) float64 { return math.Min(1, math.Max(0, x)) }

// WeightedProportion returns p̂_w = Σwᵢyᵢ / Σwᵢ; NaN when Σw = 0. A nil w
// means unit weights. Negative weights and length mismatches panic.
func WeightedProportion(y, w []float64) float64 {
	if w == nil {
		if len(y) == 0 {
			return math.NaN()
		}
		return floats.Sum(y) / float64(len(y))
	}
	checkWeights(len(y), w)
	// One loop for both sums so that y ≡ 1 gives exactly 1; the weights
	// in scaled units (scale.go).
	k := Pow2Scale(maxAbs(w))
	var sw, swy float64
	for i, v := range w {
		v *= k
		sw += v
		swy += v * y[i]
	}
	if sw == 0 {
		return math.NaN()
	}
	return swy / sw
}

// KishESS returns Kish's (1965) effective sample size under weighting,
//
//	n_eff = (Σwᵢ)² / Σwᵢ²,
//
// which lies in [1, n] when some weight is positive, equals 1 iff exactly
// one weight is non-zero, and is invariant to rescaling. NaN when Σw = 0.
func KishESS(w []float64) float64 {
	checkWeights(len(w), w)
	// In scaled units (scale.go): Σw² of weights of 1e-200 or 1e200 would
	// underflow or overflow.
	k := Pow2Scale(maxAbs(w))
	var sw, sw2 float64
	for _, v := range w {
		v *= k
		sw += v
		sw2 += v * v
	}
	if sw == 0 {
		return math.NaN()
	}
	return sw * sw / sw2
}

// KishDeff returns the weighting design effect (Kish 1992, J Off Stat 8(2))
//
//	deff_w = n Σwᵢ² / (Σwᵢ)² = 1 + CV²(w),
//
// with n the number of non-zero weights (as survey's nobs) and CV using
// the population variance; it equals PracTools deffCR's weighting factor.
// NaN when Σw = 0.
func KishDeff(w []float64) float64 {
	checkWeights(len(w), w)
	var n int
	for _, v := range w {
		if v != 0 {
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return float64(n) / KishESS(w)
}

// unitWeights returns w, or n weights of 1 when w is nil (the fitters'
// "nil means unit weights").
func unitWeights(w []float64, n int) []float64 {
	if w != nil {
		return w
	}
	w = make([]float64, n)
	for i := range w {
		w[i] = 1
	}
	return w
}

func checkWeights(n int, w []float64) {
	if len(w) != n {
		panic("stats: length mismatch between values and weights")
	}
	for _, v := range w {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			panic("stats: weights must be finite and non-negative")
		}
	}
}

// WilsonWarning returns the flag docs/methods.md, Wilson interval, asks callers to report next
// to a Wilson interval on (p̂, n), or "" when there is none: an undefined
// n (≤ 0, NaN: the interval is NaN), an effective n below 1 (computed but
// fragile), or an infinite n (the interval collapses to p̂).
func WilsonWarning(p, n float64) string {
	switch {
	case math.IsNaN(p):
		return "proportion undefined (no weight)"
	case math.IsNaN(n) || n <= 0:
		return "effective sample size undefined or not positive: no interval"
	case math.IsInf(n, 1):
		return "infinite effective sample size: interval collapses to the estimate"
	case n < 1:
		return "effective sample size below 1"
	}
	return ""
}
