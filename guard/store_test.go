package guard_test

import (
	"context"
	"slices"
	"strconv"
	"testing"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/guard/guardtest"
)

func openMemory(t *testing.T) (guard.Store, func() guard.Store) {
	m := guard.NewMemoryStore()
	return m, func() guard.Store { m.Restart(); return m }
}

func TestDecisionsMemory(t *testing.T) { guardtest.Decisions(t, openMemory) }

func TestMemoryStore(t *testing.T) { guardtest.Store(t, openMemory) }

// opaque hides a MemoryStore's type, so that a Guard goes through the
// Store interface as with any other store.
type opaque struct{ guard.Store }

// The answers a guard stores and hands out are its own copies, whether it
// calls a MemoryStore directly (handing its transitions the stored
// record, not a copy) or through the interface: a caller changing the
// answer it finished with, or one it was replayed, changes no later
// answer.
func TestAnswersAreCopies(t *testing.T) {
	ctx := context.Background()
	for _, via := range []string{"direct", "interface"} {
		for _, cfg := range []guard.Config{{Policy: guard.Keys}, {Policy: guard.Ledger, IssueOnFirstCall: true}, {Policy: guard.Derived}} {
			t.Run(via+"/"+cfg.Policy.String(), func(t *testing.T) {
				var s guard.Store = guard.NewMemoryStore()
				if via == "interface" {
					s = opaque{s}
				}
				g, err := guard.New(cfg, s)
				if err != nil {
					t.Fatal(err)
				}
				want := guard.Replay
				if cfg.Policy == guard.Ledger {
					want = guard.Consumed
				}
				// One call finished, one settled by a read-back.
				for i, settle := range []bool{false, true} {
					c := guard.Call{Tool: "charge", Fingerprint: "f" + strconv.Itoa(i), Key: "k" + strconv.Itoa(i)}
					d, err := g.Begin(ctx, c, guardtest.At(0))
					if err != nil || d.Outcome != guard.Forward {
						t.Fatal(d.Outcome, err)
					}
					answer := []byte("answer")
					end := guard.Succeeded
					if settle {
						end = guard.Lost
					}
					if err := g.Finish(ctx, d.Ticket, end, answer, guardtest.At(1)); err != nil {
						t.Fatal(err)
					}
					if settle {
						if d, err = g.Begin(ctx, c, guardtest.At(2)); err != nil || d.Outcome != guard.UnknownOutcome {
							t.Fatal(d.Outcome, err)
						}
						d, err := g.Resolve(ctx, c, true, answer, guardtest.At(3))
						if err != nil || d.Outcome != want || string(d.Result) != "answer" {
							t.Fatalf("resolved: %s %q %v", d.Outcome, d.Result, err)
						}
						copy(d.Result, "XXXXXX")
					}
					copy(answer, "YYYYYY")
					for range 2 {
						d, err := g.Begin(ctx, c, guardtest.At(4))
						if err != nil || d.Outcome != want || string(d.Result) != "answer" {
							t.Fatalf("repeat: %s %q %v, want %s \"answer\"", d.Outcome, d.Result, err, want)
						}
						copy(d.Result, "ZZZZZZ")
					}
					if r, _, err := g.Get(ctx, c); err != nil || string(r.Result) != "answer" {
						t.Fatalf("stored %q %v", r.Result, err)
					}
				}
			})
		}
	}
}

// A store that is Reset holds nothing and is open again, and serves a
// guard as a new one does: more records than its preallocated storage,
// then reset, then the same decisions as on a fresh store.
func TestMemoryStoreReset(t *testing.T) {
	ctx := context.Background()
	decide := func(s *guard.MemoryStore) []guard.Outcome {
		g, err := guard.New(guard.Config{Policy: guard.Keys}, s)
		if err != nil {
			t.Fatal(err)
		}
		var out []guard.Outcome
		for i := range 6 {
			c := guard.Call{Tool: "charge", Fingerprint: "f", Key: "k" + strconv.Itoa(i%3)}
			d, err := g.Begin(ctx, c, guardtest.At(float64(i)))
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, d.Outcome)
			if d.Outcome == guard.Forward {
				if err := g.Finish(ctx, d.Ticket, guard.Succeeded, []byte("ok"), guardtest.At(float64(i))); err != nil {
					t.Fatal(err)
				}
			}
		}
		return out
	}
	fresh := decide(guard.NewMemoryStore())
	s := guard.NewMemoryStore()
	for i := range 9 {
		k := "x" + strconv.Itoa(i)
		if err := s.Update(ctx, k, func(r guard.Record, _ bool, _ int) (guard.Record, guard.Change) { return r, guard.Put }); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s.Reset()
	if n := s.Len(); n != 0 {
		t.Fatalf("after Reset the store holds %d records", n)
	}
	if _, ok, err := s.Get(ctx, "x0"); ok || err != nil {
		t.Fatalf("after Reset: Get found %v, err %v", ok, err)
	}
	if got := decide(s); !slices.Equal(got, fresh) {
		t.Fatalf("decisions on a reset store %v, on a new one %v", got, fresh)
	}
	var zero guard.MemoryStore // a zero store is usable once Reset
	zero.Reset()
	if got := decide(&zero); !slices.Equal(got, fresh) {
		t.Fatalf("decisions on a reset zero store %v, on a new one %v", got, fresh)
	}
}
