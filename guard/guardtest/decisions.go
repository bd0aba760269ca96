// Package guardtest holds the tests every guard.Store must pass: the
// decisions of every policy, step by step, and the store's own contract
// (atomic updates, counts, purges, restarts). The tests of package guard
// run them on MemoryStore and those of guard/sqlitestore on SQLite files;
// a new store runs them too. It is imported by tests only.
package guardtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/guard"
)

// At is the virtual time s seconds after the Unix epoch.
func At(s float64) time.Time {
	return time.Unix(0, 0).UTC().Add(time.Duration(s * float64(time.Second)))
}

// testCalls are the calls of the decision tests: a charge, the same
// charge under another key, another charge under the first key, and the
// charge with no key.
func testCalls(t testing.TB) map[string]guard.Call {
	t.Helper()
	eff, err := guard.NewEffect(nil, "idempotency_key")
	if err != nil {
		t.Fatal(err)
	}
	fp := func(args map[string]any) string {
		f, err := eff.Fingerprint("billing_create_charge", args)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	ten := fp(map[string]any{"customer": "c1", "amount_cents": 1000, "idempotency_key": "k1"})
	twenty := fp(map[string]any{"customer": "c1", "amount_cents": 2000, "idempotency_key": "k1"})
	return map[string]guard.Call{
		"a":     {Tool: "billing_create_charge", Fingerprint: ten, Key: "k1"},
		"a2":    {Tool: "billing_create_charge", Fingerprint: ten, Key: "k2"},
		"b":     {Tool: "billing_create_charge", Fingerprint: twenty, Key: "k1"},
		"b2":    {Tool: "billing_create_charge", Fingerprint: twenty, Key: "k3"},
		"nokey": {Tool: "billing_create_charge", Fingerprint: ten},
	}
}

// step is one operation of a decision test at virtual time at seconds.
type step struct {
	do       string // begin, finish, resolve, issue, restart (a new guard over the restarted store), newguard (without a restart), purge
	call     string
	at       float64
	end      guard.End
	result   string // finish, resolve: the answer stored
	executed bool   // resolve
	n        int    // issue: authorisations; purge: records expected purged
	want     guard.Outcome
	wantRes  string // begin: the Result expected
	wantErr  error
}

// Opener returns a new, empty store for a test, and a function that
// models the store's process dying and a new one opening the same state:
// it returns the store to use from then on.
type Opener func(t *testing.T) (store guard.Store, restart func() guard.Store)

func runSteps(t *testing.T, open Opener, cfg guard.Config, steps []step) {
	t.Helper()
	ctx := context.Background()
	calls := testCalls(t)
	store, restart := open(t)
	g, err := guard.New(cfg, store)
	if err != nil {
		t.Fatal(err)
	}
	tickets := map[string][]guard.Ticket{} // live, by call, oldest first
	finished := map[string]guard.Ticket{}  // the last finished, by call
	stale := map[string]guard.Ticket{}     // the oldest live at a restart
	for i, s := range steps {
		c, ok := calls[s.call]
		if !ok && s.call != "" {
			t.Fatalf("step %d: no call %q", i, s.call)
		}
		now := At(s.at)
		var err error
		switch s.do {
		case "begin":
			var d guard.Decision
			d, err = g.Begin(ctx, c, now)
			if err == nil {
				if d.Outcome != s.want {
					t.Errorf("step %d: begin %s at %gs: %s, want %s", i, s.call, s.at, d.Outcome, s.want)
				}
				if string(d.Result) != s.wantRes {
					t.Errorf("step %d: begin %s: result %q, want %q", i, s.call, d.Result, s.wantRes)
				}
				if d.Outcome == guard.Forward {
					tickets[s.call] = append(tickets[s.call], d.Ticket)
				}
			}
		case "finish":
			if len(tickets[s.call]) == 0 {
				t.Fatalf("step %d: no ticket of %s to finish", i, s.call)
			}
			tk := tickets[s.call][0]
			tickets[s.call] = tickets[s.call][1:]
			err = g.Finish(ctx, tk, s.end, []byte(s.result), now)
			finished[s.call] = tk
		case "finishagain", "finishstale": // the ticket finished last, or one from before a restart
			tk, ok := finished[s.call]
			if s.do == "finishstale" {
				tk, ok = stale[s.call]
			}
			if !ok {
				t.Fatalf("step %d: no ticket of %s", i, s.call)
			}
			err = g.Finish(ctx, tk, s.end, nil, now)
		case "resolve":
			var d guard.Decision
			d, err = g.Resolve(ctx, c, s.executed, []byte(s.result), now)
			if err == nil {
				if d.Outcome != s.want || string(d.Result) != s.wantRes {
					t.Errorf("step %d: resolve %s at %gs: %s %q, want %s %q", i, s.call, s.at, d.Outcome, d.Result, s.want, s.wantRes)
				}
				if d.Outcome == guard.Forward {
					tickets[s.call] = append(tickets[s.call], d.Ticket)
				}
			}
		case "issue":
			err = g.Issue(ctx, c, s.n, now)
		case "restart", "newguard":
			if s.do == "restart" {
				store = restart()
			}
			g, err = guard.New(cfg, store)
			for c, ts := range tickets {
				if len(ts) > 0 {
					stale[c] = ts[0]
				}
			}
			tickets = map[string][]guard.Ticket{}
		case "purge":
			var n int
			n, err = g.Purge(ctx, now)
			if err == nil && n != s.n {
				t.Errorf("step %d: purged %d, want %d", i, n, s.n)
			}
		default:
			t.Fatalf("step %d: unknown op %q", i, s.do)
		}
		if !errors.Is(err, s.wantErr) {
			t.Errorf("step %d: %s %s: error %v, want %v", i, s.do, s.call, err, s.wantErr)
		}
	}
}

func begin(call string, t float64, want guard.Outcome) step {
	return step{do: "begin", call: call, at: t, want: want}
}

func replay(call string, t float64, want guard.Outcome, res string) step {
	return step{do: "begin", call: call, at: t, want: want, wantRes: res}
}

func finish(call string, t float64, end guard.End, res string) step {
	return step{do: "finish", call: call, at: t, end: end, result: res}
}

// resolve records a verification's finding, wanting the decision it
// returns (with the result res when it is a replay).
func resolve(call string, t float64, executed bool, res string, want guard.Outcome) step {
	s := step{do: "resolve", call: call, at: t, executed: executed, result: res, want: want}
	if want == guard.Replay || want == guard.Consumed {
		s.wantRes = res
	}
	return s
}

// Decisions runs every decision of every policy, one case per outcome and
// transition, over stores from open.
func Decisions(t *testing.T, open Opener) {
	keys := guard.Config{Policy: guard.Keys}
	F, W, R := guard.Forward, guard.Wait, guard.Replay
	cases := []struct {
		name  string
		cfg   guard.Config
		steps []step
	}{
		{"none forwards repeats", guard.Config{Policy: guard.None}, []step{
			begin("a", 0, F), begin("a", 1, F), finish("a", 2, guard.Succeeded, "x"), begin("a", 3, F)}},

		{"keys: new key forwards, repeat in flight waits", keys, []step{
			begin("a", 0, F), begin("a", 1, W)}},
		{"keys: repeat in flight refused", guard.Config{Policy: guard.Keys, InFlight: guard.InFlightRefuse}, []step{
			begin("a", 0, F), begin("a", 1, guard.RefuseInFlight)}},
		{"keys: completed key replays its result", keys, []step{
			begin("a", 0, F), finish("a", 1, guard.Succeeded, `{"id":"ch_1"}`), replay("a", 2, R, `{"id":"ch_1"}`)}},
		{"keys: other arguments under a used key conflict", keys, []step{
			begin("a", 0, F), begin("b", 1, guard.Conflict), finish("a", 2, guard.Succeeded, "x"), begin("b", 3, guard.Conflict)}},
		{"keys: same arguments under another key are another call", keys, []step{
			begin("a", 0, F), finish("a", 1, guard.Succeeded, "x"), begin("a2", 2, F)}},
		{"keys: no key is not guarded", keys, []step{
			begin("nokey", 0, F), begin("nokey", 1, F)}},
		{"keys: a definite error is cached and replayed", guard.Config{Policy: guard.Keys, CacheErrors: true}, []step{
			begin("a", 0, F), finish("a", 1, guard.Failed, "500"), replay("a", 2, guard.ReplayError, "500")}},
		{"keys: without caching, an error releases the key", keys, []step{
			begin("a", 0, F), finish("a", 1, guard.Failed, "500"), begin("a", 2, F)}},
		{"keys: not sent releases the key even when errors are cached", guard.Config{Policy: guard.Keys, CacheErrors: true}, []step{
			begin("a", 0, F), finish("a", 1, guard.NotSent, ""), begin("a", 2, F)}},
		{"keys: a lost answer is unknown, never replayed as success", keys, []step{
			begin("a", 0, F), finish("a", 30, guard.Lost, ""), begin("a", 35, guard.UnknownOutcome), begin("a", 36, guard.UnknownOutcome)}},
		{"keys: unknown verified executed replays", keys, []step{
			begin("a", 0, F), finish("a", 30, guard.Lost, ""), begin("a", 35, guard.UnknownOutcome),
			resolve("a", 36, true, "found", R), replay("a", 37, R, "found")}},
		{"keys: unknown verified absent forwards", keys, []step{
			begin("a", 0, F), finish("a", 30, guard.Lost, ""), resolve("a", 36, false, "", F), begin("a", 37, W), finish("a", 38, guard.Succeeded, "x"), replay("a", 39, R, "x")}},
		{"keys: absent before the in-flight bound is too early", guard.Config{Policy: guard.Keys, VerifyAfter: 120 * time.Second}, []step{
			begin("a", 0, F), finish("a", 30, guard.Lost, ""),
			{do: "resolve", call: "a", at: 60, wantErr: guard.ErrTooEarly},
			begin("a", 61, guard.UnknownOutcome),
			resolve("a", 120, false, "", F), begin("a", 121, W)}},
		{"keys: executed may be concluded at once", guard.Config{Policy: guard.Keys, VerifyAfter: 120 * time.Second}, []step{
			begin("a", 0, F), finish("a", 30, guard.Lost, ""), resolve("a", 31, true, "y", R), replay("a", 32, R, "y")}},
		{"keys: resolving a key that is not unknown", keys, []step{
			{do: "resolve", call: "a", at: 0, wantErr: guard.ErrNotUnknown},
			begin("a", 1, F), {do: "resolve", call: "a", at: 2, wantErr: guard.ErrNotUnknown},
			{do: "resolve", call: "nokey", at: 2, wantErr: guard.ErrNotUnknown}}},
		{"keys: an upstream that honours keys gets the unknown key again", guard.Config{Policy: guard.Keys, ReforwardUnknown: true}, []step{
			begin("a", 0, F), finish("a", 30, guard.Lost, ""), begin("a", 35, F), begin("a", 36, W),
			finish("a", 37, guard.Succeeded, "z"), replay("a", 38, R, "z")}},
		{"keys: a completed key expires after its TTL", guard.Config{Policy: guard.Keys, TTL: time.Hour}, []step{
			begin("a", 0, F), finish("a", 1, guard.Succeeded, "x"), replay("a", 3599, R, "x"), begin("b", 3600, F)}},
		{"keys: unknown keys do not expire", guard.Config{Policy: guard.Keys, TTL: time.Hour}, []step{
			begin("a", 0, F), finish("a", 1, guard.Lost, ""), begin("a", 7200, guard.UnknownOutcome),
			{do: "purge", at: 7200, n: 0}}},
		{"keys: a new key beyond capacity is refused, not evicted", guard.Config{Policy: guard.Keys, Capacity: 1}, []step{
			begin("a", 0, F), finish("a", 1, guard.Succeeded, "x"), begin("a2", 2, guard.AtCapacity), replay("a", 3, R, "x")}},
		{"keys: expired keys are purged to make room", guard.Config{Policy: guard.Keys, Capacity: 1, TTL: time.Minute}, []step{
			begin("a", 0, F), finish("a", 1, guard.Succeeded, "x"), begin("a2", 30, guard.AtCapacity), begin("a2", 60, F)}},
		{"keys: in flight at a restart is unknown", keys, []step{
			begin("a", 0, F), {do: "restart"}, begin("a", 5, guard.UnknownOutcome)}},
		{"keys: completed at a restart still replays", keys, []step{
			begin("a", 0, F), finish("a", 1, guard.Succeeded, "x"), {do: "restart"}, replay("a", 5, R, "x")}},
		{"keys: in flight with no live attempt is unknown", keys, []step{
			begin("a", 0, F), {do: "newguard"}, begin("a", 5, guard.UnknownOutcome)}},
		{"keys: a ticket finishes once", keys, []step{
			begin("a", 0, F), finish("a", 1, guard.Succeeded, "x"),
			{do: "finishagain", call: "a", end: guard.Lost, wantErr: guard.ErrStaleTicket}, replay("a", 2, R, "x")}},
		{"keys: a ticket from before a restart is stale", keys, []step{
			begin("a", 0, F), {do: "restart"}, {do: "finishstale", call: "a", end: guard.Succeeded, wantErr: guard.ErrStaleTicket},
			begin("a", 5, guard.UnknownOutcome)}},
		{"ledger: a ticket finishes once", guard.Config{Policy: guard.Ledger}, []step{
			{do: "issue", call: "a", n: 2}, begin("a", 0, F), begin("a", 0, F), finish("a", 1, guard.Succeeded, "x"),
			{do: "finishagain", call: "a", end: guard.Succeeded, wantErr: guard.ErrStaleTicket}, begin("a", 2, W)}},

		{"derived: an identical repeat replays within the TTL", guard.Config{Policy: guard.Derived, TTL: time.Hour}, []step{
			begin("nokey", 0, F), finish("nokey", 1, guard.Succeeded, "x"), replay("nokey", 600, R, "x"),
			replay("a2", 601, R, "x"), begin("nokey", 3600, F)}},
		{"derived: other arguments are another key", guard.Config{Policy: guard.Derived, TTL: time.Hour}, []step{
			begin("a", 0, F), finish("a", 1, guard.Succeeded, "x"), begin("b", 2, F)}},
		{"derived: in flight waits", guard.Config{Policy: guard.Derived}, []step{
			begin("a", 0, F), begin("a2", 1, W)}},
		{"derived: in flight refused", guard.Config{Policy: guard.Derived, InFlight: guard.InFlightRefuse}, []step{
			begin("a", 0, F), begin("a2", 1, guard.RefuseInFlight)}},
		{"derived: lost is unknown", guard.Config{Policy: guard.Derived}, []step{
			begin("a", 0, F), finish("a", 30, guard.Lost, ""), begin("a", 31, guard.UnknownOutcome)}},
		{"derived: cached error", guard.Config{Policy: guard.Derived, CacheErrors: true}, []step{
			begin("a", 0, F), finish("a", 1, guard.Failed, "e"), replay("a", 2, guard.ReplayError, "e")}},
		{"derived: at capacity", guard.Config{Policy: guard.Derived, Capacity: 1}, []step{
			begin("a", 0, F), begin("b", 1, guard.AtCapacity)}},

		{"ledger: an action never authorised is refused", guard.Config{Policy: guard.Ledger}, []step{
			begin("a", 0, guard.Unauthorised)}},
		{"ledger: one authorisation, used once, then consumed", guard.Config{Policy: guard.Ledger}, []step{
			{do: "issue", call: "a", n: 1}, begin("a", 0, F), begin("a2", 1, W),
			finish("a", 2, guard.Succeeded, "x"), replay("a", 3, guard.Consumed, "x"), replay("nokey", 4, guard.Consumed, "x")}},
		{"ledger: in flight refused", guard.Config{Policy: guard.Ledger, InFlight: guard.InFlightRefuse}, []step{
			{do: "issue", call: "a", n: 1}, begin("a", 0, F), begin("a", 1, guard.RefuseInFlight)}},
		{"ledger: two authorisations admit two executions", guard.Config{Policy: guard.Ledger}, []step{
			{do: "issue", call: "a", n: 2}, begin("a", 0, F), begin("a", 1, F), begin("a", 2, W),
			finish("a", 3, guard.Succeeded, "1"), finish("a", 4, guard.Succeeded, "2"), replay("a", 5, guard.Consumed, "2")}},
		{"ledger: a lost attempt is unknown until verified", guard.Config{Policy: guard.Ledger}, []step{
			{do: "issue", call: "a", n: 1}, begin("a", 0, F), finish("a", 30, guard.Lost, ""),
			begin("a", 31, guard.UnknownOutcome), resolve("a", 32, true, "found", guard.Consumed), replay("a", 33, guard.Consumed, "found")}},
		{"ledger: one of two lost attempts verified leaves the other unknown", guard.Config{Policy: guard.Ledger}, []step{
			{do: "issue", call: "a", n: 2}, begin("a", 0, F), begin("a", 1, F), finish("a", 30, guard.Lost, ""), finish("a", 31, guard.Lost, ""),
			begin("a", 32, guard.UnknownOutcome), resolve("a", 33, true, "found", guard.UnknownOutcome), resolve("a", 34, false, "", F)}},
		{"ledger: verified absent returns the authorisation", guard.Config{Policy: guard.Ledger}, []step{
			{do: "issue", call: "a", n: 1}, begin("a", 0, F), finish("a", 30, guard.Lost, ""),
			resolve("a", 32, false, "", F), begin("a", 33, W)}},
		{"ledger: a failure returns the authorisation", guard.Config{Policy: guard.Ledger}, []step{
			{do: "issue", call: "a", n: 1}, begin("a", 0, F), finish("a", 1, guard.Failed, "e"), begin("a", 2, F)}},
		{"ledger: other arguments are another action", guard.Config{Policy: guard.Ledger}, []step{
			{do: "issue", call: "a", n: 1}, begin("a", 0, F), begin("b", 1, guard.Unauthorised)}},
		{"ledger: issue on first call", guard.Config{Policy: guard.Ledger, IssueOnFirstCall: true}, []step{
			begin("a", 0, F), finish("a", 1, guard.Succeeded, "x"), replay("a", 2, guard.Consumed, "x")}},
		{"ledger: prepared at a restart is unknown", guard.Config{Policy: guard.Ledger}, []step{
			{do: "issue", call: "a", n: 2}, begin("a", 0, F), {do: "restart"}, begin("a", 1, F), begin("a", 2, guard.Wait),
			finish("a", 3, guard.Succeeded, "x"), begin("a", 4, guard.UnknownOutcome)}},
		{"ledger: issue beyond capacity", guard.Config{Policy: guard.Ledger, Capacity: 1}, []step{
			{do: "issue", call: "a", n: 1}, {do: "issue", call: "a", n: 1}, {do: "issue", call: "b", n: 1, wantErr: guard.ErrCapacity}}},
		{"ledger: first call beyond capacity", guard.Config{Policy: guard.Ledger, Capacity: 1, IssueOnFirstCall: true}, []step{
			begin("a", 0, F), begin("b", 1, guard.AtCapacity)}},
		{"ledger: issue under another policy", keys, []step{
			{do: "issue", call: "a", n: 1, wantErr: guard.ErrPolicy}}},

		{"verify: a success is not remembered", guard.Config{Policy: guard.Verify}, []step{
			begin("a", 0, F), finish("a", 1, guard.Succeeded, "x"), begin("a", 2, F)}},
		{"verify: a lost answer has the repeat verified first", guard.Config{Policy: guard.Verify}, []step{
			begin("a", 0, F), finish("a", 30, guard.Lost, ""), begin("a2", 31, guard.UnknownOutcome),
			resolve("a", 32, true, "found", R), replay("a", 33, R, "found")}},
		{"verify: absent forwards", guard.Config{Policy: guard.Verify, VerifyAfter: time.Minute}, []step{
			begin("a", 0, F), finish("a", 30, guard.Lost, ""), {do: "resolve", call: "a", at: 40, wantErr: guard.ErrTooEarly},
			resolve("a", 60, false, "", F), begin("a", 61, W)}},
		{"verify: in flight waits", guard.Config{Policy: guard.Verify}, []step{
			begin("a", 0, F), begin("a", 1, W)}},
		{"verify: in flight refused", guard.Config{Policy: guard.Verify, InFlight: guard.InFlightRefuse}, []step{
			begin("a", 0, F), begin("a", 1, guard.RefuseInFlight)}},
		{"verify: at capacity", guard.Config{Policy: guard.Verify, Capacity: 1}, []step{
			begin("a", 0, F), begin("b", 1, guard.AtCapacity), finish("a", 2, guard.Succeeded, "x"), begin("b", 3, F)}},
		{"verify: an error is not remembered", guard.Config{Policy: guard.Verify}, []step{
			begin("a", 0, F), finish("a", 1, guard.Failed, "e"), begin("a", 2, F)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) { runSteps(t, open, c.cfg, c.steps) })
	}
}
