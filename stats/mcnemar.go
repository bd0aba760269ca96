package stats

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mathext"
	"gonum.org/v1/gonum/stat/distuv"
)

// McNemar tests take the discordant counts of a paired 2×2 table: b pairs
// where only the first condition succeeds and c where only the second
// does. All formulas are symmetric in b and c.

func checkBC(b, c int) {
	if b < 0 || c < 0 {
		panic("stats: negative discordant count")
	}
}

// McNemarExact returns the two-sided exact (conditional binomial) McNemar
// p-value (McNemar 1947, Psychometrika 12:153–157),
//
//	p = min(1, 2·P(X ≤ min(b,c))),  X ~ Bin(b+c, ½),
//
// as statsmodels mcnemar(exact=True), R binom.test(b, b+c) and exact2x2
// mcnemar.exact, which coincide at ½ (docs/methods.md, McNemar tests). p = 1 when b+c = 0.
func McNemarExact(b, c int) float64 {
	checkBC(b, c)
	n := b + c
	if n == 0 {
		return 1
	}
	m := min(b, c)
	return math.Min(1, 2*binomHalfCDF(m, n))
}

// McNemarMidP returns the mid-p McNemar test (Fagerland, Lydersen & Laake
// 2013, BMC Med Res Methodol 13:91),
//
//	p_mid = 2·[P(X ≤ m) − ½P(X = m)],  m = min(b,c),  X ~ Bin(b+c, ½),
//
// which is 1 when b = c (including b+c = 0).
func McNemarMidP(b, c int) float64 {
	checkBC(b, c)
	n := b + c
	if n == 0 || b == c {
		return 1
	}
	m := min(b, c)
	pm := distuv.Binomial{N: float64(n), P: 0.5}.Prob(float64(m))
	return math.Min(1, 2*(binomHalfCDF(m, n)-0.5*pm))
}

// binomHalfCDF is P(X ≤ m) for X ~ Bin(n, ½), via the regularized
// incomplete beta function, I_{1/2}(n−m, m+1).
func binomHalfCDF(m, n int) float64 {
	if m >= n {
		return 1
	}
	return mathext.RegIncBeta(float64(n-m), float64(m+1), 0.5)
}

// McNemarChi2 returns the asymptotic McNemar statistic and its χ²₁
// p-value,
//
//	X² = (b−c)²/(b+c),  or with correct, X²_c = (|b−c|−1)²/(b+c).
//
// Following R mcnemar.test and exact2x2 (docs/methods.md, McNemar tests): when b = c
// (including b+c = 0) the statistic is 0 and p = 1; statsmodels differs
// there.
func McNemarChi2(b, c int, correct bool) (stat, p float64) {
	checkBC(b, c)
	if b == c {
		return 0, 1
	}
	d := math.Abs(float64(b - c))
	if correct {
		d--
	}
	stat = d * d / float64(b+c)
	return stat, distuv.ChiSquared{K: 1}.Survival(stat)
}

// McNemarOR returns the conditional odds ratio b/c of a paired table and
// its exact confidence interval at the given level: the Clopper–Pearson
// interval (lo_θ, hi_θ) of θ = b/(b+c) mapped by θ/(1−θ), as exact2x2
// mcnemar.exact (Fay 2010, R Journal 2(1)). c = 0 gives or = hi = +Inf;
// b = 0 gives or = lo = 0; b+c = 0 gives NaN for all three.
func McNemarOR(b, c int, level float64) (or, lo, hi float64) {
	checkBC(b, c)
	if !(level > 0 && level < 1) {
		panic("stats: confidence level must be in (0, 1)")
	}
	n := b + c
	if n == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	alpha := 1 - level
	tlo, thi := 0.0, 1.0
	if b > 0 {
		tlo = mathext.InvRegIncBeta(float64(b), float64(n-b+1), alpha/2)
	}
	if b < n {
		thi = mathext.InvRegIncBeta(float64(b+1), float64(n-b), 1-alpha/2)
	}
	odds := func(t float64) float64 {
		if t == 1 {
			return math.Inf(1)
		}
		return t / (1 - t)
	}
	if c == 0 {
		or = math.Inf(1)
	} else {
		or = float64(b) / float64(c)
	}
	return or, odds(tlo), odds(thi)
}

// HolmAdjust returns Holm's (1979, Scand J Stat 6:65–70) step-down adjusted
// p-values: with p₍₁₎ ≤ … ≤ p₍ₘ₎,
//
//	adj₍ᵢ₎ = min(1, max_{j≤i} (m − j + 1)·p₍ⱼ₎),
//
// returned in input order; R p.adjust(p, "holm") and statsmodels
// multipletests(method="holm") (not its default "hs"). NaN entries stay NaN
// and do not count in m.
func HolmAdjust(p []float64) []float64 {
	out, o := adjustPrep(p)
	m := float64(len(o))
	run := 0.0
	for i, j := range o {
		run = math.Max(run, (m-float64(i))*p[j])
		out[j] = math.Min(1, run)
	}
	return out
}

// BonferroniAdjust returns min(1, m·pᵢ), with m the number of non-NaN
// p-values (R p.adjust "bonferroni").
func BonferroniAdjust(p []float64) []float64 {
	out, o := adjustPrep(p)
	m := float64(len(o))
	for _, j := range o {
		out[j] = math.Min(1, m*p[j])
	}
	return out
}

// BHAdjust returns Benjamini & Hochberg's (1995, JRSS B 57:289–300)
// step-up adjusted p-values,
//
//	adj₍ᵢ₎ = min(1, min_{j≥i} m·p₍ⱼ₎/j),
//
// as R p.adjust(p, "BH"). NaN entries stay NaN and do not count in m.
func BHAdjust(p []float64) []float64 {
	out, o := adjustPrep(p)
	m := float64(len(o))
	run := math.Inf(1)
	for i := len(o) - 1; i >= 0; i-- {
		j := o[i]
		run = math.Min(run, m/float64(i+1)*p[j])
		out[j] = math.Min(1, run)
	}
	return out
}

// BYAdjust returns Benjamini & Yekutieli's (2001, Ann Stat 29:1165–1188,
// Theorem 1.3) step-up adjusted p-values, which control the false
// discovery rate under any dependence between the tests:
//
//	adj₍ᵢ₎ = min(1, min_{j≥i} c(m)·m·p₍ⱼ₎/j),   c(m) = Σ_{k=1}^{m} 1/k,
//
// as R p.adjust(p, "BY"). NaN entries stay NaN and do not count in m.
func BYAdjust(p []float64) []float64 {
	out, o := adjustPrep(p)
	m := float64(len(o))
	run := math.Inf(1)
	c := harmonic(len(o))
	for i := len(o) - 1; i >= 0; i-- {
		j := o[i]
		run = math.Min(run, c*m/float64(i+1)*p[j])
		out[j] = math.Min(1, run)
	}
	return out
}

// harmonic is Σ_{k=1}^{m} 1/k.
func harmonic(m int) float64 {
	var c float64
	for k := m; k >= 1; k-- {
		c += 1 / float64(k)
	}
	return c
}

// Adjust adjusts p-values for multiplicity by method: HolmAdjust,
// BonferroniAdjust, BHAdjust, BYAdjust, or for AdjustNone a copy of p. An
// unknown method panics (callers validate it).
func Adjust(method Adjustment, p []float64) []float64 {
	switch method {
	case AdjustHolm:
		return HolmAdjust(p)
	case AdjustBonferroni:
		return BonferroniAdjust(p)
	case AdjustBH:
		return BHAdjust(p)
	case AdjustBY:
		return BYAdjust(p)
	case AdjustNone:
		return append([]float64(nil), p...)
	}
	panic("stats: unknown adjustment " + string(method))
}

// AdjustLog10 is Adjust on log₁₀ p-values, so that the adjusted value of
// a p-value that underflowed float64 is still known: Holm's step-down
// maximum, Bonferroni's m·p, and Benjamini–Hochberg's and –Yekutieli's
// step-up minima, each capped at log₁₀ 1 = 0. NaN entries stay NaN and do
// not count in m; ties keep their input order, as in the p-value forms.
func AdjustLog10(method Adjustment, lps []float64) []float64 {
	out := make([]float64, len(lps))
	var o []int
	for i, v := range lps {
		out[i] = math.NaN()
		if !math.IsNaN(v) {
			o = append(o, i)
		}
	}
	slices.SortStableFunc(o, func(a, b int) int { return cmp.Compare(lps[a], lps[b]) })
	m := float64(len(o))
	switch method {
	case AdjustHolm:
		run := math.Inf(-1)
		for i, j := range o {
			run = math.Max(run, math.Log10(m-float64(i))+lps[j])
			out[j] = math.Min(0, run)
		}
	case AdjustBonferroni:
		for _, j := range o {
			out[j] = math.Min(0, math.Log10(m)+lps[j])
		}
	case AdjustBH, AdjustBY:
		c := 1.0
		if method == AdjustBY {
			c = harmonic(len(o))
		}
		run := math.Inf(1)
		for i := len(o) - 1; i >= 0; i-- {
			j := o[i]
			run = math.Min(run, math.Log10(c*m/float64(i+1))+lps[j])
			out[j] = math.Min(0, run)
		}
	case AdjustNone:
		copy(out, lps)
	default:
		panic("stats: unknown adjustment " + string(method))
	}
	return out
}

// adjustPrep copies p (keeping NaNs) and returns the indices of the
// non-NaN entries sorted by p, ties by position (stable).
func adjustPrep(p []float64) ([]float64, []int) {
	out := make([]float64, len(p))
	var o []int
	for i, v := range p {
		out[i] = math.NaN()
		if math.IsNaN(v) {
			continue
		}
		if v < 0 || v > 1 {
			panic("stats: p-value outside [0, 1]")
		}
		o = append(o, i)
	}
	slices.SortStableFunc(o, func(a, b int) int {
		switch {
		case p[a] < p[b]:
			return -1
		case p[a] > p[b]:
			return 1
		}
		return 0
	})
	return out, o
}
