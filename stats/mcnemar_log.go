package stats

import "math"

// Exact p-values of large paired tables underflow: with b = 0 and c ≥ 1075
// discordant pairs the exact McNemar p-value is below the smallest float64
// (2⁻¹⁰⁷⁴) and McNemarExact returns 0, which must never be printed as
// "p = 0". The functions below carry the p-value as log₁₀ p instead, which
// is finite for every table. How a caller reports them:
//
//   - compute lp := McNemarExactLog10(b, c) (or McNemarMidPLog10) beside, or
//     instead of, McNemarExact;
//   - in text, Markdown and LaTeX print report.FormatLog10P(lp, digits),
//     which is exact at any magnitude ("8.7e-06", "3.1e-412"), or print
//     the bound "< 1e-300" when ReportP says below;
//   - in CSV and JSON write ReportP's p (never 0) and a log10_p column with
//     lp, so that a reader can tell a bound from a value.

// PFloor is the smallest p-value ReportP returns as a number; anything
// smaller is reported as the bound "< 1e-300".
const PFloor = 1e-300

// ln2 and ln10 are log 2 and log 10.
const (
	ln2  = math.Ln2
	ln10 = math.Ln10
)

// directLog is the p-value above which the ordinary (incomplete-beta)
// p-value is accurate enough to take its logarithm directly.
const directLog = 1e-280

// McNemarExactLog10 returns log₁₀ of McNemarExact(b, c), finite however
// small the p-value (0 when p = 1).
func McNemarExactLog10(b, c int) float64 {
	checkBC(b, c)
	n := b + c
	if n == 0 {
		return 0
	}
	if p := McNemarExact(b, c); p > directLog {
		return math.Log10(p)
	}
	return math.Min(0, (ln2+logHalfTail(min(b, c), n, 1))/ln10)
}

// McNemarMidPLog10 returns log₁₀ of McNemarMidP(b, c), finite however small
// the p-value (0 when p = 1).
func McNemarMidPLog10(b, c int) float64 {
	checkBC(b, c)
	n := b + c
	if n == 0 || b == c {
		return 0
	}
	if p := McNemarMidP(b, c); p > directLog {
		return math.Log10(p)
	}
	return math.Min(0, (ln2+logHalfTail(min(b, c), n, 0.5))/ln10)
}

// logHalfTail returns the natural log of first·P(X = m) + P(X < m) for
// X ~ Bin(n, ½) and m < n/2 (first = 1 gives log P(X ≤ m), first = ½ the
// mid-p tail). It factors out the largest term, P(X = m) =
// C(n, m)/2ⁿ taken from log-gamma, and sums the ratios
// P(X = k−1)/P(X = k) = k/(n−k+1) < 1 downwards until they no longer change
// the sum, so the result has full relative precision where the p-value
// itself would underflow.
func logHalfTail(m, n int, first float64) float64 {
	lgN, _ := math.Lgamma(float64(n + 1))
	lgM, _ := math.Lgamma(float64(m + 1))
	lgNM, _ := math.Lgamma(float64(n - m + 1))
	logTerm := lgN - lgM - lgNM - float64(n)*ln2
	sum, t := first, 1.0
	for k := m; k > 0; k-- {
		t *= float64(k) / float64(n-k+1)
		if t < 1e-17*sum {
			break
		}
		sum += t
	}
	return logTerm + math.Log(sum)
}

// ReportP returns the p-value to report for log₁₀ p = lp: 10^lp when that
// is at least PFloor, else PFloor with below set, meaning "p < 1e-300".
// It never returns 0.
func ReportP(lp float64) (p float64, below bool) {
	if lp >= -300 {
		return math.Min(1, math.Pow(10, lp)), false
	}
	return PFloor, true
}
