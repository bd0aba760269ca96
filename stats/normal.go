package stats

import "math"

// NormalCDF returns the standard normal distribution function
//
//	Φ(x) = ½·erfc(−x/√2),
//
// the same number as gonum's distuv.UnitNormal.CDF. For upper-tail
// probabilities use NormalUpper, which stays accurate where 1 − Φ(x)
// cancels to 0 (docs/methods.md, Normal distribution).
func NormalCDF(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// NormalUpper returns the standard normal upper tail
//
//	P(Z ≥ x) = 1 − Φ(x) = ½·erfc(x/√2),
//
// computed from erfc directly, so it keeps its relative accuracy far into
// the tail (1 − Φ(x) is 0 in float64 from x ≈ 8.3 on; this is not before
// x ≈ 38).
func NormalUpper(x float64) float64 { return 0.5 * math.Erfc(x/math.Sqrt2) }
