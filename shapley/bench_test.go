package shapley_test

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/shapley"
	"github.com/limbo-toolkit/limbo/stats"
)

// benchU is the splitmix64 row hash of stats' benchmark data (and of
// testdata/stats/bench_statsmodels.py): four six-level factors, 26 000 rows.
func benchU(i, j uint64) float64 {
	z := i*0x9E3779B97F4A7C15 + j*0xBF58476D1CE4E5B9
	z ^= z >> 31
	z *= 0x94D049BB133111EB
	z ^= z >> 29
	return float64(z>>11) / (1 << 53)
}

func benchFactors() (*mat.Dense, []float64) {
	const n = 26000
	x := mat.NewDense(n, 21, nil)
	y := make([]float64, n)
	for i := range n {
		ui := uint64(i)
		x.Set(i, 0, 1)
		cluster := int(benchU(ui, 77) * 36)
		eta := -0.5
		for g := range 4 {
			l := int(benchU(ui, uint64(g+1)) * 6)
			if l > 0 {
				x.Set(i, 1+5*g+l-1, 1)
			}
			eta += 0.15 * float64(l*(g+1)%4)
		}
		eta += 0.3 * (float64(cluster%5) - 2) / 2
		if benchU(ui, 99) < stats.Expit(eta) {
			y[i] = 1
		}
	}
	return x, y
}

// BenchmarkExact4Groups decomposes McFadden's R² over four factor groups
// (16 logistic fits) on 26 000 rows: the rows are collapsed to covariate
// patterns once, and each subset model is fitted on the patterns with
// frequency weights (exact for the log-likelihood).
func BenchmarkExact4Groups(b *testing.B) {
	x, y := benchFactors()
	c0 := cpuSeconds()
	for b.Loop() {
		xc, yc, wc, _ := stats.CollapsePatterns(x, y, nil)
		npat, _ := xc.Dims()
		v := func(s []int) (float64, error) {
			if len(s) == 0 {
				return 0, nil
			}
			cols := []int{0}
			for _, g := range s {
				for l := range 5 {
					cols = append(cols, 1+5*g+l)
				}
			}
			xs := mat.NewDense(npat, len(cols), nil)
			for i := range npat {
				for j, c := range cols {
					xs.Set(i, j, xc.At(i, c))
				}
			}
			r, err := stats.Logistic(xs, yc, wc, stats.LogisticOptions{})
			if err != nil {
				return 0, err
			}
			return stats.McFadden(r.LogLik, r.NullLogLik), nil
		}
		if _, err := shapley.Exact(4, v); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric((cpuSeconds()-c0)*1000/float64(b.N), "cpu-ms/op")
}
