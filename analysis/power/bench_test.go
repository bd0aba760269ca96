package power

import (
	"runtime"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/design"
)

// BenchmarkPaper200 is the speed goal of issue 15: 200 replications of the
// paper's H1–H6 at the paper's size (25,930 episodes, of which the 11,388
// of E1, E1s and E3 are simulated), on every CPU. Goal: ≤ 2 minutes on 2
// cores. Run: go test -run '^$' -bench Paper200 -benchtime 1x ./analysis/power/
func BenchmarkPaper200(b *testing.B) {
	if testing.Short() {
		b.Skip("long")
	}
	f, err := prereg.Paper()
	if err != nil {
		b.Fatal(err)
	}
	o := Options{Prereg: f, Manifest: design.Paper(), Scale: design.ScaleEpisodes, Sizes: []float64{1},
		Reps: 200, Target: 0.8, Seed: 1, Jobs: runtime.GOMAXPROCS(0)}
	for b.Loop() {
		if _, err := Run(o); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReplication is one replication of the paper's preregistration
// at the paper's size: simulation of the needed episodes and evaluation.
func BenchmarkReplication(b *testing.B) {
	f, err := prereg.Paper()
	if err != nil {
		b.Fatal(err)
	}
	g, err := newSimulation(design.Paper(), (&Options{}).profiles(), f, design.ScaleEpisodes, 1)
	if err != nil {
		b.Fatal(err)
	}
	r := 0
	for b.Loop() {
		if _, err := evalOne(f, g, 1, r); err != nil {
			b.Fatal(err)
		}
		r++
	}
}
