package analysis

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// bruteBoot recomputes a bootstrap the slow way, by its definition: each
// replicate copies every episode of a drawn cluster as often as the
// cluster is drawn (copies get ids of their own and, with relabel, a
// cluster of their own) and runs the analysis on the copies; the
// jackknife drops one cluster's episodes. The clusters are numbered as
// the analyses number them (levels sorted), and replicate r draws from
// stats.ReplicateRand(seed, r), so the intervals must agree with the
// analysis's own to rounding.
type bruteBoot struct {
	eps      []*ledger.Episode
	clusters []string
	of       func(*ledger.Episode) string
	relabel  bool
}

func newBruteBoot(eps []*ledger.Episode, of func(*ledger.Episode) string, relabel bool) *bruteBoot {
	b := &bruteBoot{eps: eps, of: of, relabel: relabel}
	for _, e := range eps {
		if c := of(e); !slices.Contains(b.clusters, c) {
			b.clusters = append(b.clusters, c)
		}
	}
	slices.Sort(b.clusters)
	return b
}

// sample returns the episodes of counts.
func (b *bruteBoot) sample(counts []int) []*ledger.Episode {
	var out []*ledger.Episode
	for _, e := range b.eps {
		c := slices.Index(b.clusters, b.of(e))
		for k := range counts[c] {
			x := *e
			if k > 0 {
				x.EpisodeID = fmt.Sprintf("%s#%d", e.EpisodeID, k)
				if b.relabel {
					x.Task = fmt.Sprintf("%s#%d", e.Task, k)
				}
			}
			out = append(out, &x)
		}
	}
	return out
}

// intervals runs stat on reps replicates and the jackknife and returns,
// per statistic, the percentile and BCa intervals.
func (b *bruteBoot) intervals(t *testing.T, reps int, seed uint64, theta []float64, stat func([]*ledger.Episode) []float64) []BootInterval {
	t.Helper()
	k := len(theta)
	all := make([]float64, 0, reps*k)
	for r := range reps {
		counts := make([]int, len(b.clusters))
		stats.ClusterCounts(stats.ReplicateRand(seed, r), counts)
		all = append(all, stat(b.sample(counts))...)
	}
	var jack []float64
	for i := range b.clusters {
		counts := slices.Repeat([]int{1}, len(b.clusters))
		counts[i] = 0
		jack = append(jack, stat(b.sample(counts))...)
	}
	out := make([]BootInterval, k)
	for j := range k {
		out[j] = *bootInterval(all, k, j, theta[j], jack, 0.95)
	}
	return out
}

// sameInterval compares a bootstrap interval with the brute force's.
func sameInterval(t *testing.T, what string, got *BootInterval, want BootInterval) {
	t.Helper()
	if got == nil {
		t.Fatalf("%s: no bootstrap interval", what)
	}
	for _, c := range []struct {
		name string
		g, w float64
	}{{"se", got.SE, want.SE}, {"perc lo", got.PercLo, want.PercLo}, {"perc hi", got.PercHi, want.PercHi}, {"bca lo", got.BCaLo, want.BCaLo}, {"bca hi", got.BCaHi, want.BCaHi}} {
		if !(math.Abs(c.g-c.w) <= 1e-9*math.Max(1, math.Abs(c.w)) || math.IsNaN(c.g) && math.IsNaN(c.w)) {
			t.Errorf("%s %s = %.12g, brute force %.12g", what, c.name, c.g, c.w)
		}
	}
}

func byTask(e *ledger.Episode) string { return e.Task }

// Rates' bootstrap, computed on cluster sums, equals Rates run on every
// resampled ledger (weighted, by group).
func TestRatesBootstrapBruteForce(t *testing.T) {
	eps := ledgertest.ReadEpisodes(t, cliLedger)
	spec := RatesSpec{Outcome: "eos", By: []string{"condition"}}
	q := Query{Source: table.Episodes(eps), Weight: "w_alt"}
	bs := BootstrapSpec{Replicates: 80, Cluster: "task", Seed: 5}
	got, err := Rates(q, RatesSpec{Outcome: spec.Outcome, By: spec.By, Bootstrap: bs})
	if err != nil {
		t.Fatal(err)
	}
	var theta []float64
	for _, r := range got.Rows {
		theta = append(theta, r.P)
	}
	want := newBruteBoot(eps, byTask, false).intervals(t, bs.Replicates, bs.Seed, theta, func(s []*ledger.Episode) []float64 {
		r, err := Rates(Query{Source: table.Episodes(s), Weight: "w_alt"}, spec)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float64, len(theta))
		for i := range out {
			out[i] = math.NaN()
		}
		for _, row := range r.Rows {
			out[slices.IndexFunc(got.Rows, func(g RateRow) bool { return slices.Equal(g.Levels, row.Levels) })] = row.P
		}
		return out
	})
	for i, r := range got.Rows {
		sameInterval(t, "rate "+r.Levels[0], r.Boot, want[i])
	}
	if got.Bootstrap == nil || got.Bootstrap.Clusters != 8 || got.Bootstrap.Kind != "cluster" {
		t.Errorf("bootstrap info %+v, want 8 task clusters", got.Bootstrap)
	}
}

// Paired's bootstrap of the gains (binary) and of the mean differences
// (numeric) equals Paired run on every resampled ledger.
func TestPairedBootstrapBruteForce(t *testing.T) {
	eps := ledgertest.ReadEpisodes(t, cliLedger)
	bs := BootstrapSpec{Replicates: 60, Cluster: "task", Seed: 9}
	for _, spec := range []PairedSpec{
		{Outcome: "eos", Arm: "condition", Base: "vanilla", PairBy: []string{"pair_key", "contract"}},
		{Outcome: "agent_time_s", Arm: "condition", Base: "vanilla", PairBy: []string{"pair_key", "contract"}, Test: stats.PairedStudentT},
	} {
		t.Run(spec.Outcome, func(t *testing.T) {
			est := func(r *PairedResult) []float64 {
				var out []float64
				for _, c := range r.Comparisons {
					out = append(out, c.GainPP)
				}
				for _, d := range r.Differences {
					out = append(out, d.Mean)
				}
				return out
			}
			withBoot := spec
			withBoot.Bootstrap = bs
			got, err := Paired(Query{Source: table.Episodes(eps)}, withBoot)
			if err != nil {
				t.Fatal(err)
			}
			want := newBruteBoot(eps, byTask, false).intervals(t, bs.Replicates, bs.Seed, est(got), func(s []*ledger.Episode) []float64 {
				r, err := Paired(Query{Source: table.Episodes(s)}, spec)
				if err != nil {
					t.Fatal(err)
				}
				return est(r)
			})
			var ivs []*BootInterval
			for _, c := range got.Comparisons {
				ivs = append(ivs, c.GainBoot)
			}
			for _, d := range got.Differences {
				ivs = append(ivs, d.MeanBoot)
			}
			if len(ivs) != 2 {
				t.Fatalf("%d comparisons, want 2", len(ivs))
			}
			for i, iv := range ivs {
				sameInterval(t, fmt.Sprint("comparison ", i), iv, want[i])
			}
		})
	}
}

// A contrast's cluster bootstrap refits the model on each replicate:
// it equals Contrast run on every resampled ledger, a GEE's copies of a
// cluster being distinct clusters.
func TestContrastBootstrapBruteForce(t *testing.T) {
	eps := ledgertest.ReadEpisodes(t, cliLedger)
	bs := BootstrapSpec{Replicates: 50, Cluster: "task", Seed: 2}
	for _, tc := range []struct {
		name    string
		spec    ContrastSpec
		relabel bool
	}{
		{"glm", ContrastSpec{Variable: "condition", Base: "vanilla", By: []string{"contract"}, Model: ModelSpec{Family: "binomial", Formula: "eos ~ condition * contract"}}, false},
		{"gee", ContrastSpec{Variable: "condition", Base: "vanilla", Model: ModelSpec{Fit: FitGEE, Group: "task", Formula: "eos ~ condition + contract"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			withBoot := tc.spec
			withBoot.Bootstrap = bs
			got, err := Contrast(Query{Source: table.Episodes(eps)}, withBoot)
			if err != nil {
				t.Fatal(err)
			}
			_, theta := contrastStats(got.Means, got.Contrasts)
			want := newBruteBoot(eps, byTask, tc.relabel).intervals(t, bs.Replicates, bs.Seed, theta, func(s []*ledger.Episode) []float64 {
				r, err := Contrast(Query{Source: table.Episodes(s)}, tc.spec)
				if err != nil {
					t.Fatal(err)
				}
				_, v := contrastStats(r.Means, r.Contrasts)
				return v
			})
			j := 0
			for _, m := range got.Means {
				sameInterval(t, "mean "+m.Level, m.Boot, want[j])
				j++
			}
			for _, c := range got.Contrasts {
				sameInterval(t, "diff "+c.Level, c.DiffBoot, want[j])
				sameInterval(t, "ratio "+c.Level, c.RatioBoot, want[j+1])
				j += 2
			}
		})
	}
}
