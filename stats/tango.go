package stats

import "math"

// TangoPaired returns Tango's score statistic for H₀: Δ = Δ₀, Δ = p₁ − p₂
// the difference of two paired proportions (table as NewcombePaired: a
// both succeed, b only the first, c only the second, d neither; N the
// pairs):
//
//	Z(Δ₀) = (b − c − NΔ₀) / √(N(2q̃₂₁ + Δ₀(1 − Δ₀)))
//	q̃₂₁ = (W + √(W² + 8NcΔ₀(1 − Δ₀))) / (4N),  W = (b + c) − Δ₀(2N − b + c)
//
// q̃₂₁ the maximum-likelihood estimate of the second-only cell under H₀
// (Tango 1998, Stat Med 17:891–908, eq. 3; Fagerland, Lydersen & Laake
// 2014, Stat Med 33:2850–2875 recommend it). Unlike the Wald statistic its
// variance does not vanish without discordant pairs: for Δ₀ ≠ 0 it is
// NΔ₀(1 − Δ₀) there. A non-inferiority test of H₀: Δ ≥ δ has the p-value
// NormalCDF(Z(δ)). Z(0) is 0 when b = c = 0; NaN when N = 0 or Δ₀ is
// outside (−1, 1).
func TangoPaired(a, b, c, d int, delta0 float64) float64 {
	if a < 0 || b < 0 || c < 0 || d < 0 {
		panic("stats: negative cell count")
	}
	n := float64(a) + float64(b) + float64(c) + float64(d)
	if n == 0 || !(delta0 > -1 && delta0 < 1) {
		return math.NaN()
	}
	fb, fc := float64(b), float64(c)
	w := (fb + fc) - delta0*(2*n-fb+fc)
	q := (w + math.Sqrt(math.Max(0, w*w+8*n*fc*delta0*(1-delta0)))) / (4 * n)
	q = math.Max(q, math.Max(0, -delta0)) // the root lies in the simplex; rounding may not
	v := n * (2*q + delta0*(1-delta0))
	num := fb - fc - n*delta0
	if v <= 0 {
		if num == 0 {
			return 0
		}
		return math.Copysign(math.Inf(1), num)
	}
	return num / math.Sqrt(v)
}

// TangoPairedCI returns Tango's score interval for the paired difference
// Δ = p₁ − p₂ at level (table as TangoPaired): the Δ₀ in (−1, 1) whose
// score test is not rejected, Z(Δ₀) between ∓z, found by bisection (Z
// decreases in Δ₀). An end that reaches ±1 is ±1. NaN when N = 0.
func TangoPairedCI(a, b, c, d int, level float64) (lo, hi float64) {
	n := float64(a) + float64(b) + float64(c) + float64(d)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	z := ZLevel(level)
	diff := (float64(b) - float64(c)) / n
	// root finds the Δ₀ in [from, to] where Z crosses t (Z(from) ≥ t ≥ Z(to)).
	root := func(from, to, t float64) float64 {
		for range 200 {
			mid := from + (to-from)/2
			if mid == from || mid == to {
				break
			}
			if TangoPaired(a, b, c, d, mid) > t {
				from = mid
			} else {
				to = mid
			}
		}
		return from + (to-from)/2
	}
	const edge = 1 - 1e-15
	lo, hi = -1, 1
	if TangoPaired(a, b, c, d, -edge) > z {
		lo = root(-edge, diff, z)
	}
	if TangoPaired(a, b, c, d, edge) < -z {
		hi = root(diff, edge, -z)
	}
	return lo, hi
}
