package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Issue 37, case 10: no estimate depends on the weights' magnitude.
// Constant weights of 1e-200 or 1e200 gave n_eff NA and no interval (Σw²
// underflowed or overflowed) where weights of 1 give 36; weights that
// differ by a constant factor give the same rates, effective sizes,
// means, SDs and intervals, and the same Σw rescaled.
func TestWeightScaleInvariance(t *testing.T) {
	eps := meanEpisodes()
	scaled := func(k float64) []*ledger.Episode {
		out := make([]*ledger.Episode, len(eps))
		for i, e := range eps {
			c := *e
			c.Weight = e.Weight * k
			c.Duplicated = i%3 == 0
			out[i] = &c
		}
		return out
	}
	ref := scaled(1)
	rr, err := Rates(Query{Source: table.Episodes(ref), Weight: "weight"}, RatesSpec{Outcome: "duplicated", By: []string{"contract"}, Cluster: "task"})
	if err != nil {
		t.Fatal(err)
	}
	mr, err := Means(Query{Source: table.Episodes(ref), Weight: "weight"}, MeansSpec{Outcome: "agent_time_s", By: []string{"contract"}, Cluster: "task"})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []float64{1e-200, 1e-300, 3e-310, 1e200, 1e300, 0x1p-1000, 7} {
		eps := scaled(k)
		r, err := Rates(Query{Source: table.Episodes(eps), Weight: "weight"}, RatesSpec{Outcome: "duplicated", By: []string{"contract"}, Cluster: "task"})
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range r.Rows {
			want := rr.Rows[i]
			for _, f := range [][2]float64{{row.P, want.P}, {row.NEff, want.NEff}, {row.Lo, want.Lo}, {row.Hi, want.Hi}} {
				if !(math.Abs(f[0]-f[1]) <= 1e-12*math.Abs(f[1])) {
					t.Errorf("weights ×%g, rates %s: %v, want %v (weights ×1)", k, row.Levels, row, want)
					break
				}
			}
		}
		m, err := Means(Query{Source: table.Episodes(eps), Weight: "weight"}, MeansSpec{Outcome: "agent_time_s", By: []string{"contract"}, Cluster: "task"})
		if err != nil {
			t.Fatal(err)
		}
		for i, row := range m.Rows {
			want := mr.Rows[i]
			for _, f := range [][2]float64{{row.Mean, want.Mean}, {row.SD, want.SD}, {row.SE, want.SE}, {row.Lo, want.Lo}, {row.Hi, want.Hi}, {row.SumW, want.SumW * k}} {
				if !(math.Abs(f[0]-f[1]) <= 1e-12*math.Abs(f[1])) {
					t.Errorf("weights ×%g, means %s: %+v, want %+v (weights ×1; Σw ×%g)", k, row.Levels, row, want, k)
					break
				}
			}
		}
	}
}

// Values near the largest double: a finite mean and SD where the sums
// overflowed (mean NA, SD +Inf); an SD beyond the largest double is +Inf
// with a warning, never silently.
func TestMeansHugeValues(t *testing.T) {
	var eps []*ledger.Episode
	for i := range 11 {
		eps = append(eps, &ledger.Episode{EpisodeID: string(rune('a' + i)), Contract: "native", AgentTimeS: []float64{1e308, 1.5e308}[i%2], Weight: 1})
	}
	m, err := Means(Query{Source: table.Episodes(eps)}, MeansSpec{Outcome: "agent_time_s"})
	if err != nil {
		t.Fatal(err)
	}
	row := m.Rows[0]
	wantMean := 1e308*6/11 + 1.5e308*5/11
	// √(Σ(y−ȳ)²/(n−1)) with six at −5e307·5/11 and five at +5e307·6/11.
	wantSD := 5e307 * math.Sqrt((6*25.0/121+5*36.0/121)/10)
	if math.Abs(row.Mean-wantMean) > 1e-12*wantMean || math.Abs(row.SD-wantSD) > 1e-12*wantSD || math.IsInf(row.Hi, 0) || len(m.Warnings) != 0 {
		t.Errorf("mean %v SD %v (interval %v, %v; %v); want %v and %v", row.Mean, row.SD, row.Lo, row.Hi, m.Warnings, wantMean, wantSD)
	}
	// ±1.79e308: the mean is finite, the SD (1.9e308) is not a double.
	for i, e := range eps {
		e.AgentTimeS = []float64{1.79e308, -1.79e308}[i%2]
	}
	m, err = Means(Query{Source: table.Episodes(eps)}, MeansSpec{Outcome: "agent_time_s"})
	if err != nil {
		t.Fatal(err)
	}
	row = m.Rows[0]
	if math.Abs(row.Mean-1.79e308/11) > 1e-12*1.79e308/11 || !math.IsInf(row.SD, 1) {
		t.Errorf("±1.79e308: mean %v SD %v; want %v and +Inf", row.Mean, row.SD, 1.79e308/11)
	}
	found := false
	for _, w := range m.Warnings {
		found = found || strings.Contains(w.Msg, "beyond the largest number")
	}
	if !found {
		t.Errorf("an infinite SD without a warning: %v", m.Warnings)
	}
}
