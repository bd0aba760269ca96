package guard_test

import (
	"context"
	"testing"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/guard/guardtest"
)

// A Guard over a MemoryStore calls it directly, so that its transitions'
// functions stay on the stack: a repeat answered from the store makes its
// key and the copy of the answer it hands out, nothing else. (Through
// the Store interface it made four.)
func TestMemoryReplayAllocations(t *testing.T) {
	if testing.Short() {
		t.Skip("allocation counts: not under -short, the race detector's run")
	}
	g, err := guard.New(guard.Config{Policy: guard.Keys}, guard.NewMemoryStore())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	c := guard.Call{Tool: "charge", Fingerprint: "f", Key: "k"}
	d, err := g.Begin(ctx, c, guardtest.At(0))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Finish(ctx, d.Ticket, guard.Succeeded, []byte("r"), guardtest.At(0)); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(100, func() {
		if d, err := g.Begin(ctx, c, guardtest.At(1)); err != nil || d.Outcome != guard.Replay {
			t.Fatal(d.Outcome, err)
		}
	})
	if allocs > 1 {
		t.Errorf("a replayed repeat allocates %v times, want at most 1 (its answer)", allocs)
	}
}
