package stats

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"gonum.org/v1/gonum/stat/distuv"
)

// ReplicateRand returns the random stream of bootstrap replicate r under
// seed: a PCG keyed by the pair (seed, r), so that replicate r draws the
// same resample whichever worker runs it and in whatever order, and adding
// replicates never changes the earlier ones.
func ReplicateRand(seed uint64, r int) *rand.Rand {
	return rand.New(rand.NewPCG(splitMix64(seed^0x626f6f74), splitMix64(uint64(r)+0x9e3779b97f4a7c15))) // "boot"
}

// splitMix64 is Steele, Lea & Flood's (2014) SplitMix64 finaliser: nearby
// seeds (replicate 0, 1, 2, …) become unrelated PCG states.
func splitMix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// ClusterCounts draws the clusters of one cluster-bootstrap replicate:
// len(counts) clusters drawn with replacement, counts[c] the number of
// times cluster c is drawn (Σ counts = len(counts); Davison & Hinkley
// 1997, §3.8, strategy 1: resample whole clusters).
func ClusterCounts(rng *rand.Rand, counts []int) {
	clear(counts)
	n := len(counts)
	for range n {
		counts[rng.IntN(n)]++
	}
}

// Replicates evaluates stat on replicates 0..b−1 in parallel on workers
// goroutines (0: GOMAXPROCS) and returns the b×k matrix of statistics,
// replicate r in row r, and the number of replicates whose stat failed
// (their row is NaN). stat(r, rng, out) fills out (length k) for
// replicate r from its own stream ReplicateRand(seed, r); it must not
// share mutable state with other calls. Rows depend only on (seed, r), so
// the result is the same for any number of workers.
func Replicates(b, k int, seed uint64, workers int, stat func(r int, rng *rand.Rand, out []float64) error) ([]float64, int) {
	return parallelRows(b, k, workers, func(r int, out []float64) error { return stat(r, ReplicateRand(seed, r), out) })
}

// Jackknife evaluates stat with each of n units left out in turn
// (stat(i, out) for i = 0..n−1), in parallel, and returns the n×k matrix
// and the number of failures, as Replicates.
func Jackknife(n, k, workers int, stat func(i int, out []float64) error) ([]float64, int) {
	return parallelRows(n, k, workers, stat)
}

// parallelRows runs fn for rows 0..n−1 on workers goroutines, each row
// into its own slot of the n×k result.
func parallelRows(n, k, workers int, fn func(r int, out []float64) error) ([]float64, int) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, n))
	out := make([]float64, n*k)
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				r := int(next.Add(1) - 1)
				if r >= n {
					return
				}
				row := out[r*k : (r+1)*k]
				if err := fn(r, row); err != nil {
					for j := range row {
						row[j] = math.NaN()
					}
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	return out, int(failed.Load())
}

// Column returns column j of the n×k row-major matrix m.
func Column(m []float64, k, j int) []float64 {
	n := len(m) / k
	out := make([]float64, n)
	for r := range n {
		out[r] = m[r*k+j]
	}
	return out
}

// finite returns the finite values of x, sorted.
func finite(x []float64) []float64 {
	out := make([]float64, 0, len(x))
	for _, v := range x {
		if !math.IsNaN(v) && !math.IsInf(v, 0) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// BootSE is the bootstrap standard error: the sample standard deviation
// of the finite replicates (NaN with fewer than two).
func BootSE(reps []float64) float64 {
	t := finite(reps)
	if len(t) < 2 {
		return math.NaN()
	}
	var s float64
	for _, v := range t {
		s += v
	}
	mean := s / float64(len(t))
	var ss float64
	for _, v := range t {
		ss += (v - mean) * (v - mean)
	}
	return math.Sqrt(ss / float64(len(t)-1))
}

// BootQuantile is the α quantile of the sorted replicates t as R's boot
// takes it (norm.inter; Davison & Hinkley 1997, §5.2.1): the order
// statistic t₍(R+1)α₎, interpolated between its neighbours on the normal
// quantile scale when (R+1)α is not an integer, and the extreme
// replicate when it falls outside 1..R.
func BootQuantile(t []float64, alpha float64) float64 {
	r := len(t)
	if r == 0 || math.IsNaN(alpha) {
		return math.NaN()
	}
	rk := float64(r+1) * alpha
	k := int(math.Trunc(rk))
	switch {
	case k <= 0:
		return t[0]
	case k >= r:
		return t[r-1]
	case float64(k) == rk:
		return t[k-1]
	}
	q := distuv.UnitNormal.Quantile
	z, z1, z2 := q(alpha), q(float64(k)/float64(r+1)), q(float64(k+1)/float64(r+1))
	return t[k-1] + (z-z1)/(z2-z1)*(t[k]-t[k-1])
}

// PercentileCI is the bootstrap percentile interval at the given
// confidence level (Efron 1979; Davison & Hinkley 1997, eq. 5.18): the
// (1−level)/2 and (1+level)/2 quantiles of the finite replicates
// (BootQuantile). NaN without replicates.
func PercentileCI(reps []float64, level float64) (lo, hi float64) {
	t := finite(reps)
	a := (1 - level) / 2
	return BootQuantile(t, a), BootQuantile(t, 1-a)
}

// BCa is the bias-corrected and accelerated bootstrap interval and its
// constants.
type BCa struct {
	Lo, Hi float64
	Z0     float64 // bias correction Φ⁻¹(#{θ* < θ̂}/R)
	A      float64 // acceleration
}

// BCaCI is Efron's (1987, JASA 82:171–185) bias-corrected and accelerated
// interval from the replicates reps of the estimate theta and the
// jackknife values jack (the estimate with each unit — a cluster, for a
// cluster bootstrap — left out):
//
//	z₀ = Φ⁻¹(#{θ*_r < θ̂} / R),   a = Σ(θ̄₍.₎ − θ₍ᵢ₎)³ / (6 [Σ(θ̄₍.₎ − θ₍ᵢ₎)²]^{3/2}),
//	α₁,₂ = Φ(z₀ + (z₀ + z_α)/(1 − a(z₀ + z_α))),   z_α = Φ⁻¹((1 ∓ level)/2),
//
// the interval being the α₁ and α₂ quantiles of the replicates
// (BootQuantile), as R's boot.ci(type = "bca") with jackknife influence
// values (Davison & Hinkley 1997, §5.3.2). Non-finite replicates and
// jackknife values are left out. All replicates on one side of θ̂ make z₀
// infinite and the interval NaN, unless they all equal θ̂ (the interval
// is then [θ̂, θ̂]); a jackknife without spread gives a = 0.
func BCaCI(reps []float64, theta float64, jack []float64, level float64) BCa {
	t := finite(reps)
	out := BCa{Lo: math.NaN(), Hi: math.NaN(), Z0: math.NaN(), A: math.NaN()}
	if len(t) == 0 || math.IsNaN(theta) {
		return out
	}
	if t[0] == theta && t[len(t)-1] == theta {
		// No replicate moves (a rate of 0 or 1 in every resample): the
		// interval is the point, where z₀ would be infinite.
		out.Lo, out.Hi, out.Z0, out.A = theta, theta, 0, 0
		return out
	}
	below := 0
	for _, v := range t {
		if v < theta {
			below++
		}
	}
	q := distuv.UnitNormal.Quantile
	out.Z0 = q(float64(below) / float64(len(t)))
	j := finite(jack)
	out.A = 0
	if len(j) > 1 {
		var s float64
		for _, v := range j {
			s += v
		}
		mean := s / float64(len(j))
		var s2, s3 float64
		for _, v := range j {
			d := mean - v
			s2 += d * d
			s3 += d * d * d
		}
		if s2 > 0 {
			out.A = s3 / (6 * math.Pow(s2, 1.5))
		}
	}
	if math.IsInf(out.Z0, 0) {
		return out
	}
	a := (1 - level) / 2
	for i, za := range []float64{q(a), q(1 - a)} {
		adj := distuv.UnitNormal.CDF(out.Z0 + (out.Z0+za)/(1-out.A*(out.Z0+za)))
		v := BootQuantile(t, adj)
		if i == 0 {
			out.Lo = v
		} else {
			out.Hi = v
		}
	}
	return out
}
