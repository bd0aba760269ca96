package guardtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/guard"
)

// Store checks a store's own contract over stores from open: records
// round-trip whole, an update sees the count of records and applies its
// change atomically, purges delete exactly the expired records, a restart
// turns attempts in flight into unknown outcomes, and a closed store
// refuses.
func Store(t *testing.T, open Opener) {
	ctx := context.Background()
	full := guard.Record{
		Tool: "billing_create_charge", Fingerprint: "f1", State: guard.StateSucceeded, Attempt: 3,
		Began: At(0), Updated: At(1.5), Expires: At(3600), Result: []byte(`{"id":"ch_1","note":"é\u0000"}`),
		Issued: 4, Committed: 2, Pending: []guard.Attempt{{N: 2, Sent: At(1), Lost: true}, {N: 3, Sent: At(0.000000001), Lost: true}},
	}
	t.Run("records round-trip", func(t *testing.T) {
		s, _ := open(t)
		for i, r := range []guard.Record{full, {Tool: "t", Fingerprint: "f", State: guard.StateInFlight, Attempt: 1}, {State: guard.StateIssued, Result: []byte{}}} {
			key := fmt.Sprintf("k%d", i)
			put(t, s, key, r)
			got, found, err := s.Get(ctx, key)
			r.Key = key
			if err != nil || !found || !sameRecord(got, r) {
				t.Errorf("record %d: got %+v, %v, %v; want %+v", i, got, found, err, r)
			}
		}
		if _, found, err := s.Get(ctx, "absent"); found || err != nil {
			t.Errorf("absent key: found %v, %v", found, err)
		}
	})
	t.Run("updates see the count and apply their change", func(t *testing.T) {
		s, _ := open(t)
		counts := []int{}
		for i, change := range []guard.Change{guard.Put, guard.Put, guard.Keep, guard.Delete, guard.Put} {
			key := []string{"a", "b", "c", "a", "c"}[i]
			if err := s.Update(ctx, key, func(cur guard.Record, found bool, held int) (guard.Record, guard.Change) {
				counts = append(counts, held)
				return guard.Record{Tool: "t", Fingerprint: "f", State: guard.StateUnknown, Attempt: 1}, change
			}); err != nil {
				t.Fatal(err)
			}
		}
		if want := []int{0, 1, 2, 2, 1}; fmt.Sprint(counts) != fmt.Sprint(want) {
			t.Errorf("held counts %v, want %v", counts, want)
		}
		for key, want := range map[string]bool{"a": false, "b": true, "c": true} {
			if _, found, err := s.Get(ctx, key); found != want || err != nil {
				t.Errorf("key %s: found %v (%v), want %v", key, found, err, want)
			}
		}
	})
	t.Run("purge deletes exactly the expired records", func(t *testing.T) {
		s, _ := open(t)
		recs := map[string]guard.Record{
			"expired":           {Tool: "t", State: guard.StateSucceeded, Attempt: 1, Expires: At(10)},
			"expired failed":    {Tool: "t", State: guard.StateFailed, Attempt: 1, Expires: At(10)},
			"expires later":     {Tool: "t", State: guard.StateSucceeded, Attempt: 1, Expires: At(100)},
			"never":             {Tool: "t", State: guard.StateSucceeded, Attempt: 1},
			"in flight":         {Tool: "t", State: guard.StateInFlight, Attempt: 1, Expires: At(10)},
			"unknown":           {Tool: "t", State: guard.StateUnknown, Attempt: 1, Expires: At(10)},
			"ledger unresolved": {Tool: "t", State: guard.StateUnknown, Attempt: 1, Expires: At(10), Issued: 1, Pending: []guard.Attempt{{N: 1, Sent: At(0), Lost: true}}},
		}
		for k, r := range recs {
			put(t, s, k, r)
		}
		n, err := s.Purge(ctx, At(10))
		if err != nil || n != 2 {
			t.Fatalf("purged %d, %v; want 2", n, err)
		}
		for k := range recs {
			_, found, _ := s.Get(ctx, k)
			if want := k != "expired" && k != "expired failed"; found != want {
				t.Errorf("%s: held %v, want %v", k, found, want)
			}
		}
		var held int
		s.Update(ctx, "probe", func(_ guard.Record, _ bool, h int) (guard.Record, guard.Change) {
			held = h
			return guard.Record{}, guard.Keep
		})
		if held != len(recs)-2 {
			t.Errorf("after the purge the store counts %d records, want %d", held, len(recs)-2)
		}
	})
	t.Run("a restart leaves attempts in flight unknown", func(t *testing.T) {
		s, restart := open(t)
		put(t, s, "flying", guard.Record{Tool: "t", State: guard.StateInFlight, Attempt: 2, Began: At(5), Result: []byte("x")})
		put(t, s, "done", full)
		put(t, s, "prepared", guard.Record{Tool: "t", State: guard.StateInFlight, Attempt: 3, Issued: 3, Committed: 1,
			Pending: []guard.Attempt{{N: 1, Sent: At(1), Lost: true}, {N: 3, Sent: At(3)}}})
		s = restart()
		want := map[string]guard.Record{
			"flying": {Key: "flying", Tool: "t", State: guard.StateUnknown, Attempt: 2, Began: At(5)},
			"done":   func() guard.Record { r := full; r.Key = "done"; return r }(),
			"prepared": {Key: "prepared", Tool: "t", State: guard.StateUnknown, Attempt: 3, Issued: 3, Committed: 1,
				Pending: []guard.Attempt{{N: 1, Sent: At(1), Lost: true}, {N: 3, Sent: At(3), Lost: true}}},
		}
		for k, w := range want {
			got, found, err := s.Get(ctx, k)
			if err != nil || !found || !sameRecord(got, w) {
				t.Errorf("%s after a restart: %+v (%v, %v), want %+v", k, got, found, err, w)
			}
		}
	})
	t.Run("concurrent updates of one key are atomic", func(t *testing.T) {
		s, _ := open(t)
		const workers, each = 16, 20
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for range each {
					if err := s.Update(ctx, "counter", func(cur guard.Record, _ bool, _ int) (guard.Record, guard.Change) {
						cur.Issued++
						cur.State = guard.StateIssued
						return cur, guard.Put
					}); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		r, _, err := s.Get(ctx, "counter")
		if err != nil || r.Issued != workers*each {
			t.Errorf("counter %d (%v), want %d", r.Issued, err, workers*each)
		}
	})
	t.Run("concurrent first calls: one forwards", func(t *testing.T) {
		s, _ := open(t)
		ConcurrentFirstCalls(t, s, 32)
	})
	t.Run("an ended context is not applied", func(t *testing.T) {
		s, _ := open(t)
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		called := false
		err := s.Update(cctx, "k", func(guard.Record, bool, int) (guard.Record, guard.Change) {
			called = true
			return guard.Record{State: guard.StateUnknown}, guard.Put
		})
		if !errors.Is(err, context.Canceled) || called {
			t.Errorf("Update with an ended context: %v, fn called %v", err, called)
		}
	})
	t.Run("a closed store refuses", func(t *testing.T) {
		s, _ := open(t)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		noop := func(guard.Record, bool, int) (guard.Record, guard.Change) { return guard.Record{}, guard.Keep }
		if err := s.Update(ctx, "k", noop); !errors.Is(err, guard.ErrClosed) {
			t.Errorf("Update: %v", err)
		}
		if _, _, err := s.Get(ctx, "k"); !errors.Is(err, guard.ErrClosed) {
			t.Errorf("Get: %v", err)
		}
		if _, err := s.Purge(ctx, At(0)); !errors.Is(err, guard.ErrClosed) {
			t.Errorf("Purge: %v", err)
		}
	})
}

// ConcurrentFirstCalls begins one keyed call from n goroutines at once
// under each policy that guards it, and checks that exactly one forwards
// and every other waits; then that, once the one finishes, every waiter
// has its result.
func ConcurrentFirstCalls(t *testing.T, s guard.Store, n int) {
	t.Helper()
	ctx := context.Background()
	for _, cfg := range []guard.Config{{Policy: guard.Keys}, {Policy: guard.Derived}, {Policy: guard.Ledger, IssueOnFirstCall: true}, {Policy: guard.Verify}} {
		g, err := guard.New(cfg, s)
		if err != nil {
			t.Fatal(err)
		}
		call := guard.Call{Tool: "charge", Fingerprint: "fp-" + cfg.Policy.String(), Key: "k-" + cfg.Policy.String()}
		var (
			mu       sync.Mutex
			outcomes = map[guard.Outcome]int{}
			ticket   guard.Ticket
			start    = make(chan struct{})
			wg       sync.WaitGroup
		)
		for range n {
			wg.Go(func() {
				<-start
				d, err := g.Begin(ctx, call, At(0))
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				outcomes[d.Outcome]++
				if d.Outcome == guard.Forward {
					ticket = d.Ticket
				}
				mu.Unlock()
			})
		}
		close(start)
		wg.Wait()
		if outcomes[guard.Forward] != 1 || outcomes[guard.Wait] != n-1 {
			t.Errorf("%s: %d concurrent first calls: %v, want 1 forward and %d waits", cfg.Policy, n, outcomes, n-1)
			continue
		}
		// The waiters wait, then see the result. Under Verify, which does
		// not remember a success, each forwards in turn (and finishes).
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		var waited sync.WaitGroup
		after := make(chan guard.Outcome, n)
		for range n - 1 {
			waited.Go(func() {
				for {
					end, result, err := g.Await(wctx, call)
					if err != nil {
						t.Error(err)
						return
					}
					if end == guard.Succeeded {
						// The original's answer is this call's answer.
						if string(result) != "r" {
							t.Errorf("%s: a waiter got %q", cfg.Policy, result)
						}
						after <- guard.Replay
						return
					}
					d, err := g.Begin(ctx, call, At(2))
					if err != nil {
						t.Error(err)
						return
					}
					if d.Outcome == guard.Wait {
						continue
					}
					if d.Outcome == guard.Forward {
						if err := g.Finish(ctx, d.Ticket, guard.Succeeded, []byte("r"), At(3)); err != nil {
							t.Error(err)
						}
					}
					after <- d.Outcome
					return
				}
			})
		}
		if err := g.Finish(ctx, ticket, guard.Succeeded, []byte("r"), At(1)); err != nil {
			t.Fatal(err)
		}
		waited.Wait()
		cancel()
		close(after)
		// Every waiter either had the original's answer from Await or,
		// having started to wait after it ended, had it replayed by Begin
		// (under the ledger: refused as consumed; under Verify, which
		// does not remember a success: forwarded).
		late := map[guard.Policy]guard.Outcome{guard.Keys: guard.Replay, guard.Derived: guard.Replay, guard.Ledger: guard.Consumed, guard.Verify: guard.Forward}
		for o := range after {
			if o != guard.Replay && o != late[cfg.Policy] {
				t.Errorf("%s: a waiter then saw %s, want replay or %s", cfg.Policy, o, late[cfg.Policy])
			}
		}
	}
}

func put(t *testing.T, s guard.Store, key string, r guard.Record) {
	t.Helper()
	if err := s.Update(context.Background(), key, func(guard.Record, bool, int) (guard.Record, guard.Change) { return r, guard.Put }); err != nil {
		t.Fatal(err)
	}
}

// sameRecord compares records, times by instant.
func sameRecord(a, b guard.Record) bool {
	return a.Key == b.Key && a.Tool == b.Tool && a.Fingerprint == b.Fingerprint && a.State == b.State && a.Attempt == b.Attempt &&
		a.Began.Equal(b.Began) && a.Updated.Equal(b.Updated) && a.Expires.Equal(b.Expires) && bytes.Equal(a.Result, b.Result) &&
		(a.Result == nil) == (b.Result == nil) &&
		a.Issued == b.Issued && a.Committed == b.Committed && slices.EqualFunc(a.Pending, b.Pending, func(x, y guard.Attempt) bool {
		return x.N == y.N && x.Sent.Equal(y.Sent) && x.Lost == y.Lost
	})
}
