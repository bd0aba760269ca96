package stats

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"testing"
)

// PassHatK against brute-force enumeration: over every k-subset of n
// attempts with outcomes y, the share whose attempts all succeed.
func TestPassHatKEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 0; n <= 9; n++ {
		for trial := range 6 {
			y := make([]bool, n)
			c := 0
			for i := range y {
				y[i] = rng.Float64() < float64(trial)/5
				if y[i] {
					c++
				}
			}
			for k := 0; k <= n+1; k++ {
				all, ok := 0, 0
				for mask := range 1 << n {
					if bits.OnesCount(uint(mask)) != k {
						continue
					}
					all++
					good := true
					for i := range n {
						if mask&(1<<i) != 0 && !y[i] {
							good = false
						}
					}
					if good {
						ok++
					}
				}
				got := PassHatK(n, c, k)
				if all == 0 {
					if !math.IsNaN(got) {
						t.Errorf("n=%d k=%d: %v, want NaN (no k-subset)", n, k, got)
					}
					continue
				}
				if want := float64(ok) / float64(all); math.Abs(got-want) > 1e-15 {
					t.Errorf("n=%d c=%d k=%d: %v, enumeration %v", n, c, k, got, want)
				}
			}
		}
	}
}

// PassHatK is unbiased for p^k: its mean over every outcome vector of n
// Bernoulli(p) attempts, weighted by their probabilities, is p^k.
func TestPassHatKUnbiased(t *testing.T) {
	for _, p := range []float64{0.1, 0.5, 0.83} {
		for n := 1; n <= 8; n++ {
			for k := 1; k <= n; k++ {
				var mean float64
				for c := 0; c <= n; c++ {
					mean += binomPMF(n, c, p) * PassHatK(n, c, k)
				}
				if want := math.Pow(p, float64(k)); math.Abs(mean-want) > 1e-12 {
					t.Errorf("p=%v n=%d k=%d: E = %v, want %v", p, n, k, mean, want)
				}
			}
		}
	}
}

// PairAgreement against the enumeration of every pair of attempts.
func TestPairAgreementEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 200 {
		n := rng.IntN(9)
		labels := make([]int, n)
		sizes := map[int]int{}
		for i := range labels {
			labels[i] = rng.IntN(3)
			sizes[labels[i]]++
		}
		var agree, pairs int
		for i := range n {
			for j := i + 1; j < n; j++ {
				pairs++
				if labels[i] == labels[j] {
					agree++
				}
			}
		}
		var s []int
		for _, m := range sizes {
			s = append(s, m)
		}
		got := PairAgreement(s)
		if pairs == 0 {
			if !math.IsNaN(got) {
				t.Errorf("n=%d: %v, want NaN", n, got)
			}
			continue
		}
		if want := float64(agree) / float64(pairs); math.Abs(got-want) > 1e-15 {
			t.Errorf("labels %v: %v, enumeration %v", labels, got, want)
		}
	}
}

func binomPMF(n, c int, p float64) float64 {
	lg := func(x int) float64 { v, _ := math.Lgamma(float64(x + 1)); return v }
	return math.Exp(lg(n) - lg(c) - lg(n-c) + float64(c)*math.Log(p) + float64(n-c)*math.Log1p(-p))
}
