package design

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
	"github.com/limbo-toolkit/limbo/stats"
)

// table3Widths returns, per Table 3 column, the width of this run's 95%
// interval over the paper's, averaged over the five models. Intervals
// follow the tables' conventions: Wilson on n_eff = n/(1 + (m̄−1)ρ̂), m̄ the
// cell's episodes per template, ρ̂ the one-way ANOVA ICC over templates
// pooled across models per column (per-column, the default), or with
// pooled (`--icc pooled`) the mean of the columns' ρ̂ weighted by their
// template counts, for every column.
func table3Widths(eps []ledger.Episode, pooled bool) [5]float64 {
	type col struct {
		in func(*ledger.Episode) bool
		y  func(*ledger.Episode) bool
	}
	dup := func(e *ledger.Episode) bool { return e.Duplicated }
	mode := func(ms ...string) func(*ledger.Episode) bool {
		return func(e *ledger.Episode) bool {
			for _, m := range ms {
				if e.FaultFired && e.FaultMode == m {
					return true
				}
			}
			return false
		}
	}
	cols := [5]col{
		{mode(ledger.FaultTimeoutPost, ledger.FaultHTTP500Post, ledger.FaultPartialBatch), dup},
		{mode(ledger.FaultTimeoutLate, ledger.FaultTimeoutLateTail), dup},
		{mode(ledger.FaultRedelivery), dup},
		{mode(ledger.FaultTimeoutPre, ledger.FaultHTTP500Pre), func(e *ledger.Episode) bool { return e.TaskSuccess }},
		{func(e *ledger.Episode) bool { return e.Experiment == "E1" && e.FaultMode != ledger.FaultNone }, func(e *ledger.Episode) bool { return e.EOS }},
	}
	type cell struct {
		n, k float64
		tmpl map[string]bool
	}
	var rhos [5]float64
	var cellsOf [5]map[string]*cell
	var wsum, rsum float64
	for j, c := range cols {
		var y []float64
		var cl []int
		tid := map[string]int{}
		cells := map[string]*cell{}
		for i := range eps {
			e := &eps[i]
			if (e.Experiment != "E1" && e.Experiment != "E1s") || !c.in(e) {
				continue
			}
			if _, ok := tid[e.Template]; !ok {
				tid[e.Template] = len(tid)
			}
			v := 0.0
			if c.y(e) {
				v = 1
			}
			y = append(y, v)
			cl = append(cl, tid[e.Template])
			ce := cells[e.Model]
			if ce == nil {
				ce = &cell{tmpl: map[string]bool{}}
				cells[e.Model] = ce
			}
			ce.n++
			ce.k += v
			ce.tmpl[e.Template] = true
		}
		rhos[j], cellsOf[j] = stats.ICCANOVA(y, cl), cells
		if !math.IsNaN(rhos[j]) {
			rsum += rhos[j] * float64(len(tid))
			wsum += float64(len(tid))
		}
	}
	var out [5]float64
	for j := range cols {
		rho := rhos[j]
		if pooled {
			rho = rsum / wsum
		}
		if math.IsNaN(rho) {
			rho = 0
		}
		var sum float64
		for m, iv := range table3 {
			ce := cellsOf[j][m]
			neff := stats.ClusterNEff(ce.n, ce.n/float64(len(ce.tmpl)), rho)
			lo, hi := stats.Wilson(ce.k/ce.n, neff, 1.959963984540054)
			sum += 100 * (hi - lo) / (iv[j].hi - iv[j].lo)
		}
		out[j] = sum / float64(len(table3))
	}
	return out
}

// TestFidelitySeeds regenerates the paper design at seeds 1–3 and checks the
// mechanical identities at every seed (redelivery 25/34 per model; sdk-retry
// EOS 104/205 and outcome-oracle 180/205 for the frontier E2 models; EOS =
// ¬duplicated in every late world) and Table 3's interval widths against
// the paper's, averaged over the seeds. The late and redelivery columns meet
// the 0.7–1.3 target; resolvable, TS and EOS are held at floors just below
// what the simulator gives today (docs/simulation.md, "Fidelity over
// seeds"), so a change that narrows them further fails.
func TestFidelitySeeds(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("regenerates the paper design at three seeds")
	}
	p, err := Compile(Paper())
	if err != nil {
		t.Fatal(err)
	}
	var widths, pooledW [5]float64
	seeds := []uint64{1, 2, 3}
	for _, seed := range seeds {
		sim := NewSimulator(p, agent.DefaultProfiles(), seed)
		var eps []ledger.Episode
		for i := range p.Len() {
			raw, err := sim.Episode(i)
			if err != nil {
				t.Fatal(err)
			}
			g, err := sandbox.Grade(raw)
			if err != nil {
				t.Fatal(err)
			}
			eps = append(eps, g)
		}
		red := map[string][2]int{}
		cond := map[string][2]int{}
		for i := range eps {
			e := &eps[i]
			// A late world whose focal write hands its receipt on (T11/T12
			// instances ≥ 1) can fail without a duplicate: an agent that
			// waited, re-checked and found the original holds no receipt.
			if (e.FaultMode == ledger.FaultTimeoutLate || e.FaultMode == ledger.FaultTimeoutLateTail) && e.EOS == e.Duplicated && !handsOn(t, e) {
				t.Errorf("seed %d %s: late world with eos=%v duplicated=%v", seed, e.EpisodeID, e.EOS, e.Duplicated)
			}
			if e.FaultMode == ledger.FaultRedelivery && e.Instance == 0 && e.Contract == ledger.ContractNative &&
				e.Condition == "vanilla" && e.Cue == ledger.CueDefault && e.Harness == "minimal" && e.Experiment == "E1" {
				r := red[e.Model]
				r[0]++
				if e.Duplicated {
					r[1]++
				}
				red[e.Model] = r
			}
			if e.Experiment == "E2" && e.FaultMode != ledger.FaultNone && (e.Condition == "sdk-retry" || e.Condition == "outcome-oracle") {
				k := e.Condition + "/" + e.Model
				r := cond[k]
				r[0]++
				if e.EOS {
					r[1]++
				}
				cond[k] = r
			}
		}
		for m, r := range red {
			if r[0] == 34 && r[1] != 25 {
				t.Errorf("seed %d %s: redelivery duplicates %d/34, want 25/34", seed, m, r[1])
			}
		}
		for _, c := range []struct {
			cond string
			want int
		}{{"sdk-retry", 104}, {"outcome-oracle", 180}} {
			for _, m := range []string{"gpt-6-sol", "claude-opus-5.5", "gemini-3.8-flash"} {
				if r := cond[c.cond+"/"+m]; r != [2]int{205, c.want} {
					t.Errorf("seed %d %s/%s: EOS %d/%d, want %d/205", seed, c.cond, m, r[1], r[0], c.want)
				}
			}
		}
		w, wp := table3Widths(eps, false), table3Widths(eps, true)
		for j := range widths {
			widths[j] += w[j] / float64(len(seeds))
			pooledW[j] += wp[j] / float64(len(seeds))
		}
	}
	for j, c := range []struct {
		name     string
		lo, hi   float64
		plo, phi float64 // with one ICC pooled across the columns
	}{
		{"resolvable", 0.45, 1.3, 0.7, 1.3},
		{"late", 0.7, 1.3, 0.7, 1.3},
		{"redelivery", 0.7, 1.3, 0.7, 1.3},
		{"TS not executed", 0.2, 1.3, 0.7, 1.3},
		{"EOS", 0.7, 1.3, 0.7, 1.3},
	} {
		t.Logf("Table 3 %s: interval width %.2f of the paper's (%.2f with the ICC pooled across columns)", c.name, widths[j], pooledW[j])
		if widths[j] < c.lo || widths[j] > c.hi {
			t.Errorf("Table 3 %s: interval width %.2f of the paper's, want %.2f–%.2f", c.name, widths[j], c.lo, c.hi)
		}
		if pooledW[j] < c.plo || pooledW[j] > c.phi {
			t.Errorf("Table 3 %s, pooled ICC: interval width %.2f of the paper's, want %.2f–%.2f", c.name, pooledW[j], c.plo, c.phi)
		}
	}
}

// handsOn reports whether an episode's focal write is one whose receipt a
// later step of its task needs (sandbox.Step.Receipt).
func handsOn(t *testing.T, e *ledger.Episode) bool {
	t.Helper()
	task, err := sandbox.NewTask(e.Template, int(e.Instance))
	if err != nil {
		t.Fatal(err)
	}
	return task.Steps[e.FocalIndex].Receipt
}

// The hand-offs live in instances ≥ 1 only (sandbox data "handoffs"): with
// or without them in the task data, every episode of the instance-0
// experiments (E2, E2k, E5, E6) is simulated to the same bytes, so their
// cells and identities are untouched by them.
func TestHandoffsLeaveInstance0(t *testing.T) {
	// Not parallel: it swaps the sandbox's global task data.
	if testing.Short() {
		t.Skip("simulates the instance-0 experiments twice")
	}
	run := func() map[string][]byte {
		p, err := Compile(Paper())
		if err != nil {
			t.Fatal(err)
		}
		sim := NewSimulator(p, agent.DefaultProfiles(), 1)
		out := map[string][]byte{}
		for i := range p.Len() {
			ep := p.Episode(i)
			switch ep.Experiment {
			case "E2", "E2k", "E5", "E6":
			default:
				continue
			}
			raw, err := sim.Episode(i)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(raw)
			if err != nil {
				t.Fatal(err)
			}
			out[ep.ID()] = b
		}
		return out
	}
	with := run()
	var f map[string]any
	if err := json.Unmarshal(sandbox.DefaultTaskData(), &f); err != nil {
		t.Fatal(err)
	}
	removed := 0
	for _, tm := range f["templates"].([]any) {
		if _, ok := tm.(map[string]any)["handoffs"]; ok {
			delete(tm.(map[string]any), "handoffs")
			removed++
		}
	}
	if removed == 0 {
		t.Fatal("the task data has no hand-offs to remove")
	}
	js, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	restore, err := sandbox.UseTaskData(js)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	without := run()
	if len(with) < 10000 || len(with) != len(without) {
		t.Fatalf("%d episodes with hand-offs, %d without", len(with), len(without))
	}
	for id, b := range with {
		if !bytes.Equal(b, without[id]) {
			t.Fatalf("%s: differs with and without the hand-offs", id)
		}
	}
}
