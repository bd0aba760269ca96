package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// TTest is a one-sample t test of a mean (of paired differences, for a
// paired test).
type TTest struct {
	N      int
	Mean   float64 // the mean difference
	SD     float64 // its sample SD (n − 1)
	SE     float64 // SD/√n
	T      float64 // Mean/SE
	DF     float64 // n − 1
	P      float64 // two-sided, against 0
	Lo, Hi float64 // Mean ∓ t_{DF,(1+level)/2}·SE
}

// PairedT is Student's paired t test of the differences d = x − y against
// 0 (Student 1908), the value of R's t.test(x, y, paired = TRUE,
// conf.level = level): t = d̄/(s_d/√n) on n − 1 degrees of freedom, a
// two-sided p and the t interval of the mean difference. Fields other
// than N and Mean are NaN when n < 2; T and P are NaN when every
// difference is the same (R stops with "data are essentially constant").
func PairedT(d []float64, level float64) TTest {
	nan := math.NaN()
	r := TTest{N: len(d), Mean: nan, SD: nan, SE: nan, T: nan, DF: nan, P: nan, Lo: nan, Hi: nan}
	if len(d) == 0 {
		return r
	}
	var s float64
	for _, v := range d {
		s += v
	}
	n := float64(len(d))
	mean := s / n
	var se, ss float64
	for _, v := range d {
		e := v - mean
		se += e
		ss += e * e
	}
	mean += se / n
	r.Mean = mean
	if len(d) < 2 {
		return r
	}
	r.DF = n - 1
	r.SD = math.Sqrt((ss - se*se/n) / r.DF)
	r.SE = r.SD / math.Sqrt(n)
	dist := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: r.DF}
	q := dist.Quantile((1 + level) / 2)
	r.Lo, r.Hi = mean-q*r.SE, mean+q*r.SE
	if r.SE > 0 {
		r.T = mean / r.SE
		r.P = 2 * dist.CDF(-math.Abs(r.T))
	}
	return r
}
