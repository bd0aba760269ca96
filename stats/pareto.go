package stats

import "math"

// TruncParetoQuantile returns the p-quantile of a Pareto law with shape
// alpha truncated to [lo, hi]:
//
//	F(x)    = (1 − (lo/x)^α) / (1 − (lo/hi)^α),          lo ≤ x ≤ hi
//	F⁻¹(p)  = lo · (1 − p·(1 − (lo/hi)^α))^(−1/α)
//
// p ≤ 0 gives lo and p ≥ 1 gives hi. The LIMBO sandbox draws the
// heavy-tailed in-flight delays of timeout_late_tail from it
// (docs/simulation.md, Heavy-tailed delay: α = 0.181 on [40 s, 7200 s]).
func TruncParetoQuantile(p, alpha, lo, hi float64) float64 {
	if p <= 0 {
		return lo
	}
	if p >= 1 {
		return hi
	}
	c := 1 - math.Pow(lo/hi, alpha)
	return lo * math.Pow(1-p*c, -1/alpha)
}

// TruncParetoCDF is F of TruncParetoQuantile.
func TruncParetoCDF(x, alpha, lo, hi float64) float64 {
	switch {
	case x <= lo:
		return 0
	case x >= hi:
		return 1
	}
	return (1 - math.Pow(lo/x, alpha)) / (1 - math.Pow(lo/hi, alpha))
}
