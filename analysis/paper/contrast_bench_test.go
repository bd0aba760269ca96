package paper

import (
	"sync"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/table"
)

var (
	paperOnce sync.Once
	paperData *table.Data
	paperErr  error
)

// paperRun is the paper's simulated ledger (seed 1, 25,930 episodes),
// simulated once per test binary.
func paperRun(b *testing.B) *table.Data {
	paperOnce.Do(func() { paperData, paperErr = Simulate(1) })
	if paperErr != nil {
		b.Fatal(paperErr)
	}
	return paperData
}

// BenchmarkContrastE2 compares a contrast with the fit it rests on, on
// the paper's E2 ledger (7,812 episodes, nine conditions): the GEE of
// duplicated on condition and model with task clusters (fit) and its
// average contrasts of every condition against vanilla (contrast); the
// target is at most twice the fit. bootstrap is 100 cluster-bootstrap
// replicates of the contrast (and its 46-cluster jackknife).
func BenchmarkContrastE2(b *testing.B) {
	q := analysis.Query{Source: table.Held(paperRun(b), nil), Where: `experiment == "E2"`}
	spec := analysis.ModelSpec{Fit: analysis.FitGEE, Group: "task", Formula: "duplicated ~ condition + model"}
	b.Run("fit", func(b *testing.B) {
		for b.Loop() {
			if _, err := analysis.Model(q, spec); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("contrast", func(b *testing.B) {
		for b.Loop() {
			if _, err := analysis.Contrast(q, analysis.ContrastSpec{Model: spec, Variable: "condition", Base: "vanilla"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("bootstrap", func(b *testing.B) {
		for b.Loop() {
			if _, err := analysis.Contrast(q, analysis.ContrastSpec{Model: spec, Variable: "condition", Base: "vanilla",
				Bootstrap: analysis.BootstrapSpec{Replicates: 100, Cluster: "task", Seed: 1}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
