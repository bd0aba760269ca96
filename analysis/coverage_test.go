package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Coverage of the cluster bootstrap's nominal 95% intervals over 1,000
// simulated ledgers with a known truth, for a rate, a paired difference
// and a contrast: the share of ledgers whose interval holds the truth
// must lie in [93.5%, 96.5%] (the Monte Carlo SE of a 95% coverage over
// 1,000 ledgers is 0.7 points). Each ledger has 120 task clusters of
// unequal size whose episodes are correlated within the task:
//
//   - rate: p_task ~ Beta(2, 6), y ~ Bernoulli(p_task); the truth is
//     E[p] = 0.25 (sizes are independent of p_task);
//   - paired: each world of a task is played under vanilla and guard with
//     one uniform U: vanilla fails-safe-duplicates when U < p_task, guard
//     when U < 0.6·p_task; the truth of gain_pp is 100·0.4·0.25 = 10;
//   - contrast: a logistic model duplicated ~ condition + model holds for
//     the mean, y = [U < expit(−0.6 + 1.1·guard + γ_model)], U the task's
//     uniform with probability 0.4 (else the episode's own), so that
//     episodes of a task are correlated while each one's probability is
//     the model's; the truth of the average risk difference is the mean
//     over the three models (drawn with equal probability) of
//     expit(−0.6 + 1.1 + γ) − expit(−0.6 + γ).
//
// Ledger s draws from PCG(20260604, s); its bootstrap has seed s. A long
// test: skipped under -short.
func TestBootstrapCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("long: 1,000 bootstrapped ledgers per estimator (run without -short)")
	}
	const (
		ledgers  = 1000
		clusters = 120
		reps     = 399
	)
	gamma := []float64{0, 0.5, -0.4}
	expit := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	var rdTruth float64
	for _, g := range gamma {
		rdTruth += (expit(-0.6+1.1+g) - expit(-0.6+g)) / 3
	}
	type result struct{ perc, bca int }
	cover := func(iv *BootInterval, truth float64, r *result) {
		if iv.PercLo <= truth && truth <= iv.PercHi {
			r.perc++
		}
		if iv.BCaLo <= truth && truth <= iv.BCaHi {
			r.bca++
		}
	}
	var rate, paired, contrast result
	start := time.Now()
	for s := range ledgers {
		rng := rand.New(rand.NewPCG(20260604, uint64(s)))
		beta := distuv.Beta{Alpha: 2, Beta: 6, Src: rng}
		var rateEps, pairEps, modelEps []*ledger.Episode
		for c := range clusters {
			task := fmt.Sprintf("t%02d", c)
			p := beta.Rand()
			uTask := rng.Float64()
			for i := range 4 + rng.IntN(13) {
				id := fmt.Sprintf("%s/%d", task, i)
				rateEps = append(rateEps, &ledger.Episode{EpisodeID: id, Task: task, Duplicated: rng.Float64() < p})
				u := rng.Float64()
				for _, arm := range []struct {
					cond string
					p    float64
				}{{"vanilla", p}, {"guard", 0.6 * p}} {
					pairEps = append(pairEps, &ledger.Episode{EpisodeID: id + "/" + arm.cond, Task: task, PairKey: id, Condition: arm.cond, Duplicated: u < arm.p})
				}
			}
			for i := range 10 + rng.IntN(21) {
				guard := rng.IntN(2)
				m := rng.IntN(3)
				u := rng.Float64()
				if rng.Float64() < 0.4 {
					u = uTask
				}
				cond := []string{"vanilla", "guard"}[guard]
				modelEps = append(modelEps, &ledger.Episode{EpisodeID: fmt.Sprintf("%s/m%d", task, i), Task: task, Condition: cond,
					Model: fmt.Sprintf("m%d", m), Duplicated: u < expit(-0.6+1.1*float64(guard)+gamma[m])})
			}
		}
		bs := BootstrapSpec{Replicates: reps, Cluster: "task", Seed: uint64(s)}
		rr, err := Rates(Query{Source: table.Episodes(rateEps)}, RatesSpec{Outcome: "duplicated", Bootstrap: bs})
		if err != nil {
			t.Fatal(err)
		}
		cover(rr.Rows[0].Boot, 0.25, &rate)
		pr, err := Paired(Query{Source: table.Episodes(pairEps)}, PairedSpec{Outcome: "duplicated", Arm: "condition", Base: "vanilla", PairBy: []string{"pair_key"}, Bootstrap: bs})
		if err != nil {
			t.Fatal(err)
		}
		cover(pr.Comparisons[0].GainBoot, 10, &paired) // gain_pp counts base-only pairs less other-only ones: vanilla − guard
		cr, err := Contrast(Query{Source: table.Episodes(modelEps)}, ContrastSpec{Variable: "condition", Base: "vanilla",
			Model: ModelSpec{Family: "binomial", Formula: "duplicated ~ condition + model"}, Bootstrap: bs})
		if err != nil {
			t.Fatal(err)
		}
		cover(cr.Contrasts[0].DiffBoot, rdTruth, &contrast)
	}
	t.Logf("%d ledgers of %d clusters, %d replicates each, in %v", ledgers, clusters, reps, time.Since(start).Round(time.Second))
	for _, c := range []struct {
		name string
		r    result
	}{{"rate", rate}, {"paired difference", paired}, {"contrast", contrast}} {
		perc, bca := 100*float64(c.r.perc)/ledgers, 100*float64(c.r.bca)/ledgers
		t.Logf("%s: coverage %.1f%% (percentile), %.1f%% (BCa)", c.name, perc, bca)
		for _, v := range []struct {
			kind string
			cov  float64
		}{{"percentile", perc}, {"BCa", bca}} {
			if v.cov < 93.5 || v.cov > 96.5 {
				t.Errorf("%s: %s coverage %.1f%%, want within [93.5%%, 96.5%%]", c.name, v.kind, v.cov)
			}
		}
	}
}
