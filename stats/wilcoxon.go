package stats

import (
	"math"
	"slices"
)

// SignedRank is a Wilcoxon signed-rank test of paired differences.
type SignedRank struct {
	N     int     // non-zero differences (zeros are dropped)
	Zeros int     // zero differences dropped
	V     float64 // the sum of the ranks of |d| over the positive d
	Exact bool    // p from the exact null distribution
	Ties  bool    // some |d| are tied
	P     float64 // two-sided
}

// WilcoxonSignedRank tests that the differences d are symmetric about 0
// (Wilcoxon 1945), as R's wilcox.test(x, y, paired = TRUE) does with its
// defaults: zero differences are dropped; V is the sum of the mid-ranks
// of |d| over the positive d; with fewer than 50 differences, no ties and
// no zeros the two-sided p is exact, twice the smaller tail of the
// signed-rank distribution (counted by dynamic programming over the
// subsets of ranks), at most 1; otherwise it is the normal approximation
// with continuity correction,
//
//	z = (V − n(n+1)/4 − ½·sign) / √(n(n+1)(2n+1)/24 − Σ(t³ − t)/48),
//
// t the sizes of the groups of tied |d|, p = 2·min(Φ(z), 1 − Φ(z)). P is
// NaN when every difference is zero.
func WilcoxonSignedRank(d []float64) SignedRank {
	var x []float64
	r := SignedRank{P: math.NaN()}
	for _, v := range d {
		if v == 0 {
			r.Zeros++
			continue
		}
		x = append(x, v)
	}
	n := len(x)
	r.N = n
	if n == 0 {
		r.V = 0
		return r
	}
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		return cmpFloat(math.Abs(x[a]), math.Abs(x[b]))
	})
	rank := make([]float64, n)
	var tieTerm float64
	for i := 0; i < n; {
		j := i + 1
		for j < n && math.Abs(x[idx[j]]) == math.Abs(x[idx[i]]) {
			j++
		}
		mid := float64(i+j+1) / 2 // ranks i+1..j
		for k := i; k < j; k++ {
			rank[idx[k]] = mid
		}
		if t := float64(j - i); t > 1 {
			r.Ties = true
			tieTerm += t*t*t - t
		}
		i = j
	}
	for i, v := range x {
		if v > 0 {
			r.V += rank[i]
		}
	}
	nf := float64(n)
	if n < 50 && !r.Ties && r.Zeros == 0 {
		r.Exact = true
		count := signRankCounts(n)
		v := int(r.V)
		var c float64
		if r.V > nf*(nf+1)/4 {
			for s := v; s < len(count); s++ { // P(V ≥ v)
				c += count[s]
			}
		} else {
			for s := 0; s <= v; s++ { // P(V ≤ v)
				c += count[s]
			}
		}
		r.P = math.Min(1, 2*c/math.Ldexp(1, n))
		return r
	}
	z := r.V - nf*(nf+1)/4
	sigma := math.Sqrt(nf*(nf+1)*(2*nf+1)/24 - tieTerm/48)
	corr := 0.5
	switch {
	case z < 0:
		corr = -0.5
	case z == 0:
		corr = 0
	}
	z = (z - corr) / sigma
	r.P = 2 * math.Min(NormalCDF(z), NormalUpper(z))
	return r
}

// signRankCounts returns, for each s in 0..n(n+1)/2, the number of
// subsets of {1..n} whose sum is s: 2ⁿ times the null distribution of the
// signed-rank statistic of n untied differences (exact in float64 for
// n < 53).
func signRankCounts(n int) []float64 {
	count := make([]float64, n*(n+1)/2+1)
	count[0] = 1
	top := 0
	for k := 1; k <= n; k++ {
		top += k
		for s := top; s >= k; s-- {
			count[s] += count[s-k]
		}
	}
	return count
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
