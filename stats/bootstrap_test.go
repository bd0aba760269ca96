package stats

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// The percentile and BCa intervals match R's boot.ci on the same
// replicates (boot's norm.inter quantiles; BCa with the jackknife's
// influence values): stats/testdata/bootstrap/bootstrap.R.
func TestBootIntervalsR(t *testing.T) {
	dir := filepath.Join("testdata", "bootstrap")
	reps := readColumns(t, filepath.Join(dir, "replicates.csv"))
	jack := readColumns(t, filepath.Join(dir, "jackknife.csv"))
	b, err := os.ReadFile(filepath.Join(dir, "ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Name                         string
			T0                           float64
			R                            int
			Perc95, BCa95, Perc90, BCa90 [2]float64
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) != 3 {
		t.Fatalf("%d cases, want 3", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		r := reps[c.Name]
		if len(r) != c.R {
			t.Fatalf("%s: %d replicates, want %d", c.Name, len(r), c.R)
		}
		for _, lv := range []struct {
			level     float64
			perc, bca [2]float64
		}{{0.95, c.Perc95, c.BCa95}, {0.9, c.Perc90, c.BCa90}} {
			lo, hi := PercentileCI(r, lv.level)
			if !close(lo, lv.perc[0], 1e-12) || !close(hi, lv.perc[1], 1e-12) {
				t.Errorf("%s %v percentile [%.15g, %.15g], want %v", c.Name, lv.level, lo, hi, lv.perc)
			}
			ci := BCaCI(r, c.T0, jack[c.Name], lv.level)
			if !close(ci.Lo, lv.bca[0], 1e-12) || !close(ci.Hi, lv.bca[1], 1e-12) {
				t.Errorf("%s %v BCa [%.15g, %.15g], want %v", c.Name, lv.level, ci.Lo, ci.Hi, lv.bca)
			}
		}
	}
}

// close reports |a − b| ≤ tol·max(1, |b|).
func close(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b)) }

func TestBootQuantileEdges(t *testing.T) {
	for _, tc := range []struct {
		t     []float64
		alpha float64
		want  float64
	}{
		{[]float64{1, 2, 3}, 0.25, 1}, // (R+1)α = 1: the first order statistic
		{[]float64{1, 2, 3}, 0.1, 1},  // below 1: the smallest replicate
		{[]float64{1, 2, 3}, 0.99, 3}, // above R: the largest
		{[]float64{1, 2, 3}, 0.5, 2},  // (R+1)α = 2
		{nil, 0.5, math.NaN()},        // no replicates
		{[]float64{4}, math.NaN(), math.NaN()},
	} {
		got := BootQuantile(tc.t, tc.alpha)
		if !(got == tc.want || math.IsNaN(got) && math.IsNaN(tc.want)) {
			t.Errorf("BootQuantile(%v, %v) = %v, want %v", tc.t, tc.alpha, got, tc.want)
		}
	}
	// Between order statistics, the interpolation is monotone and stays
	// between the neighbours.
	x := []float64{1, 2, 3, 4}
	prev := math.Inf(-1)
	for a := 0.21; a < 0.79; a += 0.01 {
		q := BootQuantile(x, a)
		if q < prev || q < 1 || q > 4 {
			t.Fatalf("BootQuantile(%v) = %v after %v", a, q, prev)
		}
		prev = q
	}
}

// BCa is undefined when every replicate lies on one side of the
// estimate, and a jackknife without spread gives no acceleration.
func TestBCaDegenerate(t *testing.T) {
	if ci := BCaCI([]float64{2, 3, 4}, 1, nil, 0.95); !math.IsNaN(ci.Lo) || !math.IsInf(ci.Z0, -1) {
		t.Errorf("all replicates above θ̂: %+v, want NaN bounds", ci)
	}
	reps := []float64{0.5, 1.5, 1, 2, 0}
	ci := BCaCI(reps, 1, []float64{1, 1, 1}, 0.5)
	if ci.A != 0 {
		t.Errorf("constant jackknife: a = %v, want 0", ci.A)
	}
	// With a = 0 and z₀ = Φ⁻¹(2/5), BCa is the percentile interval at the
	// shifted levels: no acceleration.
	lo, hi := PercentileCI(reps, 0.5)
	if ci.Lo == lo && ci.Hi == hi {
		t.Errorf("BCa ignored its bias correction: %+v", ci)
	}
	if ci := BCaCI([]float64{0.5, 0.5, 0.5}, 0.5, []float64{0.5, 0.5}, 0.95); ci.Lo != 0.5 || ci.Hi != 0.5 {
		t.Errorf("no replicate moves: %+v, want [0.5, 0.5]", ci)
	}
	if ci := BCaCI([]float64{math.NaN(), math.Inf(1)}, 1, nil, 0.95); !math.IsNaN(ci.Lo) {
		t.Errorf("no finite replicate: %+v", ci)
	}
}

// A replicate's draws depend on (seed, replicate) only: the same matrix
// whatever the number of workers, and pinned values so that a change of
// stream shows.
func TestReplicatesDeterministic(t *testing.T) {
	stat := func(r int, rng *rand.Rand, out []float64) error {
		counts := make([]int, 7)
		ClusterCounts(rng, counts)
		for j := range out {
			out[j] = float64(counts[j]) + rng.Float64()
		}
		if r == 3 {
			return fmt.Errorf("replicate 3 fails")
		}
		return nil
	}
	want, failed := Replicates(40, 3, 11, 1, stat)
	if failed != 1 || !math.IsNaN(want[3*3]) {
		t.Fatalf("failed = %d, row 3 = %v; want 1 failure, NaN", failed, want[9:12])
	}
	for _, w := range []int{2, 4, 16} {
		got, _ := Replicates(40, 3, 11, w, stat)
		for i := range want {
			if !(got[i] == want[i] || math.IsNaN(got[i]) && math.IsNaN(want[i])) {
				t.Fatalf("%d workers: entry %d = %v, want %v", w, i, got[i], want[i])
			}
		}
	}
	// Adding replicates leaves the earlier ones as they were.
	more, _ := Replicates(80, 3, 11, 3, stat)
	for i := range want {
		if !(more[i] == want[i] || math.IsNaN(want[i])) {
			t.Fatalf("entry %d changed with more replicates", i)
		}
	}
	rng := ReplicateRand(11, 0)
	if got := rng.Uint64(); got != pinnedReplicate0 {
		t.Errorf("ReplicateRand(11, 0) first draw %#x, want %#x (the replicate streams changed)", got, pinnedReplicate0)
	}
}

// pinnedReplicate0 is ReplicateRand(11, 0)'s first Uint64.
const pinnedReplicate0 uint64 = 0xb31bdbae25f35f62

func TestClusterCounts(t *testing.T) {
	rng := ReplicateRand(1, 2)
	counts := make([]int, 50)
	seen := make([]int, 50)
	for range 400 {
		ClusterCounts(rng, counts)
		s := 0
		for c, k := range counts {
			s += k
			seen[c] += k
		}
		if s != 50 {
			t.Fatalf("counts sum to %d, want 50", s)
		}
	}
	// Each cluster is drawn 400 times on average (binomial SD ≈ 20).
	for c, k := range seen {
		if k < 300 || k > 500 {
			t.Errorf("cluster %d drawn %d times in 400 replicates of 50, want about 400", c, k)
		}
	}
}
