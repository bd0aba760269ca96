package stats_test

import (
	"fmt"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/stats"
)

func ExampleWilson() {
	// 3 successes in 20 trials, 95% score interval.
	lo, hi := stats.Wilson(3.0/20, 20, stats.ZLevel(0.95))
	fmt.Printf("[%.6f, %.6f]\n", lo, hi)

	// Design-weighted: Kish effective n from the weights.
	w := []float64{1, 1, 2, 2, 4}
	y := []float64{1, 0, 1, 0, 1}
	p, neff := stats.WeightedProportion(y, w), stats.KishESS(w)
	lo, hi = stats.Wilson(p, neff, stats.ZLevel(0.95))
	fmt.Printf("p=%.2f n_eff=%.4f [%.6f, %.6f]\n", p, neff, lo, hi)
	// Output:
	// [0.052369, 0.360419]
	// p=0.70 n_eff=3.8462 [0.261057, 0.939065]
}

func ExampleMcNemarExact() {
	// 2 pairs where only the first arm succeeded, 9 where only the second did.
	fmt.Printf("exact p = %.10f\n", stats.McNemarExact(2, 9))
	fmt.Printf("mid-p   = %.11f\n", stats.McNemarMidP(2, 9))
	adj := stats.HolmAdjust([]float64{0.01, 0.04, 0.03})
	fmt.Printf("Holm    = %.2f\n", adj)
	// Output:
	// exact p = 0.0654296875
	// mid-p   = 0.03857421875
	// Holm    = [0.03 0.06 0.06]
}

func ExampleLogistic() {
	// Two groups of 40 (treatment coding): 10/40 and 20/40 successes,
	// collapsed to covariate patterns with frequency weights.
	X := mat.NewDense(4, 2, []float64{
		1, 0,
		1, 0,
		1, 1,
		1, 1,
	})
	y := []float64{1, 0, 1, 0}
	w := []float64{10, 30, 20, 20}
	res, err := stats.Logistic(X, y, w, stats.LogisticOptions{Names: []string{"(Intercept)", "arm[b]"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("β = %.4f, SE = %.4f, p = %.4f\n", res.Coef, res.SE, res.P)
	fmt.Printf("McFadden R² = %.4f, n = %d\n", stats.McFadden(res.LogLik, res.NullLogLik), res.N)
	// Output:
	// β = [-1.0986 1.0986], SE = [0.3651 0.4830], p = [0.0026 0.0229]
	// McFadden R² = 0.0511, n = 80
}

// A paired table with 0 against 2,000 discordant pairs: the exact p-value
// underflows float64, its log does not.
func ExampleMcNemarExactLog10() {
	lp := stats.McNemarExactLog10(0, 2000)
	p, below := stats.ReportP(lp)
	fmt.Printf("%v %.2f %v %v\n", stats.McNemarExact(0, 2000), lp, p, below)
	// Output: 0 -601.76 1e-300 true
}

// A difference of two rates with its Wald interval and TOST p-value
// against a margin of ±5 points (the sizes may be effective ones).
func ExampleRateDiffWald() {
	diff, se := stats.RateDiffWald(0.45, 100, 0.50, 100)
	lo, hi := stats.WaldInterval(diff, se, stats.ZLevel(0.90))
	fmt.Printf("Δ = %.4f, 90%% CI [%.4f, %.4f], p_TOST = %.4f\n", diff, lo, hi, stats.TOSTWaldP(diff, se, 0.05))
	// Output: Δ = -0.0500, 90% CI [-0.1660, 0.0660], p_TOST = 0.5000
}
