package stats

import "math"

// LogChoose returns log C(n, k), the log of the binomial coefficient, for
// whole numbers 0 ≤ k ≤ n, as R's lchoose (nmath choose.c):
//
//	log C(n, k) = −log(n + 1) − log B(n − k + 1, k + 1)
//
// with the log beta function computed as R's lbeta does, from Stirling's
// series and its corrections rather than as a difference of log-gamma
// values: lgamma(n + 1) − lgamma(k + 1) − lgamma(n − k + 1) cancels
// catastrophically for large n (at n = 10¹² each term is near 2.6·10¹³, so
// the difference loses its second decimal). −Inf for k outside [0, n].
func LogChoose(n, k float64) float64 {
	switch {
	case k < 0 || k > n || math.IsNaN(n) || math.IsNaN(k):
		return math.Inf(-1)
	case k == 0 || k == n:
		return 0
	case k == 1 || k == n-1:
		return math.Log(n)
	}
	return -math.Log1p(n) - logBeta(n-k+1, k+1)
}

// logBeta is log B(a, b) for a, b > 0 (R's lbeta, nmath lbeta.c).
func logBeta(a, b float64) float64 {
	p, q := math.Min(a, b), math.Max(a, b)
	const lnSqrt2Pi = 0.918938533204672741780329736406 // log √(2π)
	switch {
	case p >= 10:
		corr := stirlingCorrection(p) + stirlingCorrection(q) - stirlingCorrection(p+q)
		return -0.5*math.Log(q) + lnSqrt2Pi + corr + (p-0.5)*math.Log(p/(p+q)) + q*math.Log1p(-p/(p+q))
	case q >= 10:
		lp, _ := math.Lgamma(p)
		corr := stirlingCorrection(q) - stirlingCorrection(p+q)
		return lp + corr + p - p*math.Log(p+q) + (q-0.5)*math.Log1p(-p/(p+q))
	}
	lp, _ := math.Lgamma(p)
	lq, _ := math.Lgamma(q)
	lpq, _ := math.Lgamma(p + q)
	return lp + lq - lpq
}

// stirlingCorrection is log Γ(x) − [(x − ½) log x − x + log √(2π)] for
// x ≥ 10 (R's lgammacor), from Stirling's series
//
//	1/(12x) − 1/(360x³) + 1/(1260x⁵) − 1/(1680x⁷) + 1/(1188x⁹) − 691/(360360x¹¹) + 1/(156x¹³),
//
// whose next term is below 4·10⁻¹⁷ at x = 10.
func stirlingCorrection(x float64) float64 {
	if x > 1e8 {
		return 1 / (12 * x) // the later terms are below a double's resolution
	}
	z := 1 / (x * x)
	return (1.0/12 + z*(-1.0/360+z*(1.0/1260+z*(-1.0/1680+z*(1.0/1188+z*(-691.0/360360+z*(1.0/156))))))) / x
}

// BinomialLogPMF returns log P(X = k) for X ~ Binomial(n, p), k and n whole
// numbers, by Loader's saddle-point expansion (Loader 2000, "Fast and
// accurate computation of binomial probabilities"; R's dbinom_raw):
//
//	log P = δ(n) − δ(k) − δ(n−k) − D(k, np) − D(n−k, n(1−p)) − ½ log(2πk(n−k)/n)
//
// with δ Stirling's remainder (stirlingRemainder) and D(x, m) = x log(x/m)
// + m − x computed without cancellation (bd0). Summing k log p,
// (n − k) log(1 − p) and log C(n, k), each near 10¹² at n = 10¹², loses
// the second decimal of a log-likelihood; this does not. −Inf for k
// outside [0, n].
func BinomialLogPMF(k, n, p float64) float64 {
	q := 1 - p
	switch {
	case k < 0 || k > n:
		return math.Inf(-1)
	case p == 0:
		if k == 0 {
			return 0
		}
		return math.Inf(-1)
	case q == 0:
		if k == n {
			return 0
		}
		return math.Inf(-1)
	case k == 0:
		if n == 0 {
			return 0
		}
		if p < 0.1 {
			return -bd0(n, n*q) - n*p
		}
		return n * math.Log1p(-p)
	case k == n:
		if q < 0.1 {
			return -bd0(n, n*p) - n*q
		}
		return n * math.Log(p)
	}
	lc := stirlingRemainder(n) - stirlingRemainder(k) - stirlingRemainder(n-k) - bd0(k, n*p) - bd0(n-k, n*q)
	lf := math.Log(2*math.Pi) + math.Log(k) + math.Log1p(-k/n)
	return lc - 0.5*lf
}

// stirlingRemainder is δ(n) = log n! − log(√(2πn)(n/e)ⁿ) (R's stirlerr):
// Stirling's series for n > 15, else from log Γ directly.
func stirlingRemainder(n float64) float64 {
	if n <= 15 {
		lg, _ := math.Lgamma(n + 1)
		return lg - (n+0.5)*math.Log(n) + n - 0.918938533204672741780329736406
	}
	return stirlingCorrection(n)
}

// bd0 is x log(x/m) + m − x, the deviance term of Loader (2000), by its
// series when x is near m (where the formula cancels).
func bd0(x, m float64) float64 {
	if math.Abs(x-m) < 0.1*(x+m) {
		v := (x - m) / (x + m)
		s := (x - m) * v
		ej := 2 * x * v
		v *= v
		for j := 1; j < 1000; j++ {
			ej *= v
			s1 := s + ej/float64(2*j+1)
			if s1 == s {
				return s1
			}
			s = s1
		}
		return s
	}
	return x*math.Log(x/m) + m - x
}
