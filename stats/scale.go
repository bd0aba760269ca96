package stats

import "math"

// Sums of values or weights are taken in scaled units: multiplied by a
// power of two that brings the largest magnitude into [1, 2). The
// multiplication is exact, so the sums are the scaled sums bit for bit
// whenever they are representable either way, and no estimate (a ratio of
// sums: a mean, a Kish size, a standard error after unscaling) depends on
// the magnitude of the data: weights of 1e-200, 1 and 1e200 give the same
// effective size, where Σw² underflowed or overflowed before.

// Pow2Scale returns the power of two s with m·s in [1, 2) for a finite
// m > 0 (as close as a double allows for m near the ends of the range), and
// 1 for 0, NaN or ±Inf.
func Pow2Scale(m float64) float64 {
	m = math.Abs(m)
	if m == 0 || math.IsNaN(m) || math.IsInf(m, 0) {
		return 1
	}
	_, e := math.Frexp(m) // m = f·2^e, f in [0.5, 1)
	return math.Ldexp(1, min(max(1-e, -1074), 1023))
}

// maxAbs is the largest |x| of xs (0 for none).
func maxAbs(xs []float64) float64 {
	var m float64
	for _, x := range xs {
		m = math.Max(m, math.Abs(x))
	}
	return m
}
