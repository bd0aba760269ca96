package design

import (
	"math/rand/v2"

	"github.com/limbo-toolkit/limbo/stats"
)

// TruncParetoQuantile is stats.TruncParetoQuantile, the quantile of the
// heavy tail (docs/simulation.md, Heavy-tailed delay, fits α = 0.181 on
// [40 s, 7200 s] to P(δ≤60) = 12% and P(δ≤300) = 50%, Table 6).
func TruncParetoQuantile(p, alpha, lo, hi float64) float64 {
	return stats.TruncParetoQuantile(p, alpha, lo, hi)
}

// TruncParetoCDF is stats.TruncParetoCDF.
func TruncParetoCDF(x, alpha, lo, hi float64) float64 { return stats.TruncParetoCDF(x, alpha, lo, hi) }

// StratifiedDelays returns n stratified quantiles δ_i = F⁻¹((i−0.5)/n) of the
// tail law, permuted by a PCG seeded with seed (docs/simulation.md, Heavy-tailed delay: stratified
// rather than independent draws, so that exactly 4/34 fall ≤ 60 s and 17/34
// ≤ 300 s; independent draws would give 4/34 with probability 0.21). The
// permutation assigns quantiles to focal writes without favouring any
// template.
func StratifiedDelays(n int, t Tail) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = TruncParetoQuantile((float64(i)+0.5)/float64(n), t.Alpha, t.LoS, t.HiS)
	}
	r := rand.New(rand.NewPCG(t.Seed, 0x7461696c)) // "tail"
	r.Shuffle(n, func(i, j int) { d[i], d[j] = d[j], d[i] })
	return d
}
