package paper

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/analysis/table"
)

// outcome is the graded part of an episode, moved as a unit so shuffled
// rows stay internally consistent (eos ⇒ task_success ∧ ¬duplicated).
type outcome struct {
	dup, ts, eos, rep, unc, over bool
	calls                        int64
	time                         float64
	cost                         *float64
	rec, move                    string
}

// shuffleOutcomes permutes the outcomes across all rows of d.
func shuffleOutcomes(d *table.Data, seed uint64) *table.Data {
	out := &table.Data{}
	var os []outcome
	for _, e := range d.Episodes() {
		os = append(os, outcome{e.Duplicated, e.TaskSuccess, e.EOS, e.ReportedSuccess, e.UncertaintyListed, e.Overclaim, e.ToolCalls, e.AgentTimeS, e.CostUSD, e.Recovery, e.FirstMove})
	}
	r := rand.New(rand.NewPCG(seed, 1))
	r.Shuffle(len(os), func(i, j int) { os[i], os[j] = os[j], os[i] })
	for i, e := range d.Episodes() {
		c := *e
		o := os[i]
		c.Duplicated, c.TaskSuccess, c.EOS, c.ReportedSuccess, c.UncertaintyListed, c.Overclaim = o.dup, o.ts, o.eos, o.rep, o.unc, o.over
		c.ToolCalls, c.AgentTimeS, c.CostUSD, c.Recovery, c.FirstMove = o.calls, o.time, o.cost, o.rec, o.move
		out.Append(&c)
	}
	return out
}

// cellsEqual compares everything a computed cell reports.
func cellsEqual(a, b Cell) bool {
	eq := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
	return a.Text == b.Text && eq(a.Value, b.Value) && eq(a.Lo, b.Lo) && eq(a.Hi, b.Hi) && eq(a.NEff, b.NEff)
}

// TestShuffledOutcomesMoveEveryCell shows that no computed number is a
// constant (the paper's numbers live only in paper.json): the outcomes are
// permuted across the rows of the sample ledger, and every defined cell
// that rests on outcomes must change under at least one of a few
// permutations (a cell of two episodes at 0% can stay at 0% under one
// permutation by chance, never under all). Design cells (episode counts,
// P(δ ≤ Δ), the hypotheses' predictions, tool descriptions) and verdicts
// (categorical) are exempt.
func TestShuffledOutcomesMoveEveryCell(t *testing.T) {
	d := loadSample(t)
	before := Analyze(d, Options{})
	var afters []*Results
	for seed := uint64(1); seed <= 8; seed++ {
		afters = append(afters, Analyze(shuffleOutcomes(d, seed), Options{}))
	}
	checked := 0
	byID := func(r *Results, id string) *Table {
		for _, t := range append(slices.Clone(r.Tables), r.Figures.Tables()...) {
			if t.ID() == id {
				return t
			}
		}
		return nil
	}
	for _, tb := range append(slices.Clone(before.Tables), before.Figures.Tables()...) {
		for i, r := range tb.Rows {
			for j, c := range r.Cells {
				col := tb.Columns[j].Key
				if c.Design || !c.Defined() || col == "verdict" {
					continue
				}
				checked++
				moved := false
				for _, a := range afters {
					ta := byID(a, tb.ID())
					if ta == nil {
						t.Fatalf("%s missing after shuffle", tb.ID())
					}
					moved = moved || !cellsEqual(c, ta.Rows[i].Cells[j])
				}
				if !moved {
					t.Errorf("%s, row %s, column %s did not move under shuffled outcomes (%v)", tb.ID(), r.Key, col, c.Value)
				}
			}
		}
	}
	for i, h := range before.Hypotheses {
		for k, s := range h.Stats {
			if math.IsNaN(s.Value) {
				continue
			}
			checked++
			moved := false
			for _, a := range afters {
				s2 := a.Hypotheses[i].Stats[k]
				moved = moved || s2.Value != s.Value
			}
			if !moved {
				t.Errorf("%s statistic %s did not move (%v)", h.ID, s.Name, s.Value)
			}
		}
	}
	if checked < 300 {
		t.Fatalf("only %d cells checked", checked)
	}
	t.Logf("%d computed cells all moved", checked)
}

// The sample covers every table without warnings about missing data, so
// the goldens exercise every code path.
func TestSampleCoversEveryTable(t *testing.T) {
	res := Analyze(loadSample(t), Options{Tools: []Tool{{Name: "x_write", Write: true, Description: "d"}}})
	var got []int
	for _, tb := range res.Tables {
		got = append(got, tb.Number)
	}
	if !slices.Equal(got, TableNumbers) {
		t.Fatalf("tables %v, want %v (warnings %v)", got, TableNumbers, res.Warnings)
	}
	if len(res.Hypotheses) != 6 {
		t.Fatalf("%d hypotheses", len(res.Hypotheses))
	}
	for i, h := range res.Hypotheses {
		if want := fmt.Sprintf("H%d", i+1); h.ID != want {
			t.Errorf("hypothesis %d is %s", i, h.ID)
		}
		if h.Verdict == prereg.NotComputable {
			t.Errorf("%s not computable on the sample: %v", h.ID, h.Warnings)
		}
	}
}
