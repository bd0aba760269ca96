package analysis

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// pass^k of Repeats against brute force on synthetic ledgers: per world
// the share of its k-subsets of runs that all succeed (enumerated), the
// mean over worlds with at least k runs, and the cluster-robust SE of
// that mean computed here from the cluster sums (CR1).
func TestRepeatsPassKEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	var eps []*ledger.Episode
	type w struct {
		runs    []bool
		cluster string
	}
	var worlds []w
	for i := range 30 {
		n := 1 + rng.IntN(6)
		p := rng.Float64()
		x := w{cluster: fmt.Sprintf("t%d", i%7)}
		for r := range n {
			ok := rng.Float64() < p
			x.runs = append(x.runs, ok)
			eps = append(eps, &ledger.Episode{EpisodeID: fmt.Sprintf("w%d/epoch-%d", i, r), Task: x.cluster, PairKey: fmt.Sprintf("w%d", i),
				Condition: "vanilla", TaskSuccess: ok, EOS: ok && r%2 == 0})
		}
		worlds = append(worlds, x)
	}
	res, err := Repeats(Query{Source: table.Episodes(eps)}, RepeatsSpec{Outcomes: []string{"task_success"}, K: []int{1, 2, 3, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Worlds != 30 || len(res.PassK) != 4 {
		t.Fatalf("%d worlds, %d rows; want 30 and 4", res.Worlds, len(res.PassK))
	}
	for _, row := range res.PassK {
		k := row.K
		var vals []float64
		var clusters []string
		for _, x := range worlds {
			n := len(x.runs)
			if n < k {
				continue
			}
			all, good := 0, 0
			for mask := range 1 << n {
				if bits.OnesCount(uint(mask)) != k {
					continue
				}
				all++
				ok := true
				for i := range n {
					if mask&(1<<i) != 0 && !x.runs[i] {
						ok = false
					}
				}
				if ok {
					good++
				}
			}
			vals = append(vals, float64(good)/float64(all))
			clusters = append(clusters, x.cluster)
		}
		var mean float64
		for _, v := range vals {
			mean += v
		}
		mean /= float64(len(vals))
		sums := map[string]float64{}
		for i, v := range vals {
			sums[clusters[i]] += v - mean
		}
		var meat float64
		for _, s := range sums {
			meat += s * s
		}
		g := float64(len(sums))
		se := math.Sqrt(g / (g - 1) * meat / float64(len(vals)*len(vals)))
		if row.Worlds != len(vals) || math.Abs(row.Estimate-mean) > 1e-12 || math.Abs(row.SE-se) > 1e-12 {
			t.Errorf("k=%d: %d worlds, estimate %v (SE %v); enumeration %d, %v (%v)", k, row.Worlds, row.Estimate, row.SE, len(vals), mean, se)
		}
		if row.Lo < 0 || row.Hi > 1 || row.Lo > row.Estimate || row.Hi < row.Estimate {
			t.Errorf("k=%d: interval [%v, %v] around %v", k, row.Lo, row.Hi, row.Estimate)
		}
	}
}

// A By or Cluster column that varies within a world is an error naming
// the world; so are k < 1 and a non-binary outcome.
func TestRepeatsErrors(t *testing.T) {
	eps := []*ledger.Episode{
		{EpisodeID: "a", PairKey: "w1", Task: "t1", Model: "m1", ToolCalls: 3},
		{EpisodeID: "b", PairKey: "w1", Task: "t2", Model: "m2"},
	}
	q := Query{Source: table.Episodes(eps)}
	for _, tc := range []struct {
		spec RepeatsSpec
		want string
	}{
		{RepeatsSpec{By: []string{"model"}}, "world"},
		{RepeatsSpec{}, "Cluster task: world"},
		{RepeatsSpec{K: []int{0}}, "K 0: want k ≥ 1"},
		{RepeatsSpec{Outcomes: []string{"tool_calls"}, Cluster: "pair_key"}, "Outcomes tool_calls is not binary (a value 3)"},
	} {
		_, err := Repeats(q, tc.spec)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: error %v, want one containing %q", tc.spec, err, tc.want)
		}
	}
}
