package analysis

import (
	"math"

	"github.com/limbo-toolkit/limbo/stats"
)

// z95 is the two-sided 95% normal quantile.
var z95 = stats.ZLevel(0.95)

// designNEff is the one effective sample size of a rate: Kish's weighting
// n, divided by the cluster design effect,
//
//	n_eff = n_Kish / (1 + (m̄ − 1) ρ̂),   n_Kish = (Σw)² / Σw²,   m̄ = n / clusters,
//
// the product of the weighting and clustering design effects (Gabler,
// Haeder & Lahiri 1999, Survey Methodology 25:105–106; docs/methods.md, "Intervals on rates").
// An undefined ρ̂ (NaN: no clusters given, fewer than two clusters,
// singletons or a constant outcome) leaves Kish's n alone. NaN when Σw = 0.
func designNEff(n, sumW, sumW2 float64, clusters int, rho float64) float64 {
	if sumW == 0 {
		return nan
	}
	nk := sumW * sumW / sumW2
	if math.IsNaN(rho) || clusters == 0 {
		return nk
	}
	return stats.ClusterNEff(nk, n/float64(clusters), rho)
}

// nan is an undefined number.
var nan = math.NaN()
