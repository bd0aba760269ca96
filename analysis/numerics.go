package analysis

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/stats"
)

// z95 is the two-sided 95% normal quantile.
var z95 = stats.ZLevel(0.95)

// logLik fits the logistic regression of y on the row-major design X
// (intercept first) and returns ℓ₁ and ℓ₀. Rows are collapsed to covariate
// patterns (exact for the likelihood) and aliased columns are dropped,
// which leaves the likelihood unchanged.
func logLik(X [][]float64, y []float64) (ll, ll0 float64, err error) {
	if len(X) == 0 {
		return nan, nan, errors.New("no rows")
	}
	p := len(X[0])
	cols := make([]int, p)
	for j := range cols {
		cols[j] = j
	}
	for attempt := 0; attempt < p; attempt++ {
		flat := make([]float64, 0, len(X)*len(cols))
		for _, r := range X {
			for _, j := range cols {
				flat = append(flat, r[j])
			}
		}
		D := mat.NewDense(len(X), len(cols), flat)
		Xc, yc, wc, _ := stats.CollapsePatterns(D, y, nil)
		res, err := stats.Logistic(Xc, yc, wc, stats.LogisticOptions{})
		var se *stats.SingularError
		if errors.As(err, &se) && len(se.Columns) > 0 {
			drop := map[int]bool{}
			for _, c := range se.Columns {
				drop[c] = true
			}
			var keep []int
			for i, j := range cols {
				if !drop[i] {
					keep = append(keep, j)
				}
			}
			cols = keep
			continue
		}
		if err != nil {
			return nan, nan, err
		}
		return res.LogLik, res.NullLogLik, nil
	}
	return nan, nan, errors.New("could not remove aliased columns")
}

// mcfadden is 1 − ℓ₁/ℓ₀ (McFadden 1974); NaN when ℓ₀ = 0.
func mcfadden(ll, ll0 float64) float64 {
	if ll0 == 0 || math.IsNaN(ll0) {
		return nan
	}
	return stats.McFadden(ll, ll0)
}
