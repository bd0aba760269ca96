package agent

import (
	"math/rand/v2"
	"testing"
)

// NewDraws reads its streams as rand.Rand reads PCG streams keyed by the
// run seed and the world's and the episode's keys (every ledger's draws
// depend on it), and makes two allocations: the draws and their episode
// stream's Rand.
func TestNewDraws(t *testing.T) {
	d := NewDraws(7, "world", "episode", 0)
	w := rand.New(rand.NewPCG(7, Hash64("world")))
	for i, u := range d.world {
		if want := w.Float64(); u != want {
			t.Fatalf("world slot %d: %v, want %v", i, u, want)
		}
	}
	ep := rand.New(rand.NewPCG(7^0x9e3779b97f4a7c15, Hash64("episode")))
	for i := range 4 {
		if got, want := d.own(), ep.Float64(); got != want {
			t.Fatalf("episode draw %d: %v, want %v", i, got, want)
		}
	}
	if testing.Short() {
		return // allocation counts: not under the race detector
	}
	if n := testing.AllocsPerRun(100, func() { NewDraws(7, "world", "episode", 0) }); n > 2 {
		t.Errorf("NewDraws allocates %v times, want 2", n)
	}
}
