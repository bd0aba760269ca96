package stats

import "math"

// PassHatK is the unbiased estimate of pass^k of one task from n
// independent attempts of which c succeeded: the probability that k
// attempts drawn without replacement all succeed,
//
//	pass^k̂ = C(c, k) / C(n, k) = Π_{i=0}^{k−1} (c − i)/(n − i),
//
// unbiased for p^k when the attempts are independent with success
// probability p (the hypergeometric estimator of Yao et al. 2024,
// "τ-bench", §5.1, as pass@k's is Chen et al.'s 2021). NaN when n < k;
// 1 for k = 0. Caller mistakes (c > n, negative counts) panic.
func PassHatK(n, c, k int) float64 {
	if c < 0 || n < 0 || k < 0 || c > n {
		panic("stats: PassHatK needs 0 ≤ c ≤ n and k ≥ 0")
	}
	if n < k {
		return math.NaN()
	}
	v := 1.0
	for i := range k {
		v *= float64(c-i) / float64(n-i)
	}
	return v
}

// PairAgreement is the share of the C(n, 2) pairs of n attempts that
// agree, given the sizes of the groups of attempts that agree with one
// another (n = Σ sizes):
//
//	Σ_j m_j(m_j − 1) / (n(n − 1)),
//
// the unbiased estimate of the probability that two independent attempts
// agree (Gini–Simpson's complement). NaN when n < 2. A negative size
// panics.
func PairAgreement(sizes []int) float64 {
	n, same := 0, 0
	for _, m := range sizes {
		if m < 0 {
			panic("stats: PairAgreement negative group size")
		}
		n += m
		same += m * (m - 1)
	}
	if n < 2 {
		return math.NaN()
	}
	return float64(same) / float64(n*(n-1))
}
