package guard_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/guard/guardtest"
)

// The ledger names the oldest lost attempt in an unknown outcome, and
// measures the in-flight bound from when that attempt was sent, not from
// the latest attempt's send.
func TestLedgerNamesTheLostAttempt(t *testing.T) {
	ctx := context.Background()
	g, err := guard.New(guard.Config{Policy: guard.Ledger, VerifyAfter: 100 * time.Second}, guard.NewMemoryStore())
	if err != nil {
		t.Fatal(err)
	}
	c := guard.Call{Tool: "charge", Fingerprint: "f"}
	if err := g.Issue(ctx, c, 2, guardtest.At(0)); err != nil {
		t.Fatal(err)
	}
	first, _ := g.Begin(ctx, c, guardtest.At(0))
	second, _ := g.Begin(ctx, c, guardtest.At(10))
	if err := g.Finish(ctx, second.Ticket, guard.Succeeded, []byte("2"), guardtest.At(11)); err != nil {
		t.Fatal(err)
	}
	if err := g.Finish(ctx, first.Ticket, guard.Lost, nil, guardtest.At(30)); err != nil {
		t.Fatal(err)
	}
	d, err := g.Begin(ctx, c, guardtest.At(40))
	if err != nil || d.Outcome != guard.UnknownOutcome || !d.Since.Equal(guardtest.At(0)) || !d.VerifyAt.Equal(guardtest.At(100)) {
		t.Fatalf("%s since %v verify at %v (%v); want unknown_outcome since 0 s, verify at 100 s", d.Outcome, d.Since, d.VerifyAt, err)
	}
	if _, err := g.Resolve(ctx, c, false, nil, guardtest.At(99)); !errors.Is(err, guard.ErrTooEarly) {
		t.Errorf("resolve at 99 s: %v, want too early", err)
	}
	d, err = g.Resolve(ctx, c, false, nil, guardtest.At(100))
	if err != nil || d.Outcome != guard.Forward {
		t.Fatalf("resolve at 100 s: %s %v, want forward (the authorisation returned)", d.Outcome, err)
	}
	r, _, _ := g.Get(ctx, c)
	if r.Issued != 2 || r.Committed != 1 || r.Prepared() != 1 || r.Unresolved() != 0 || r.State != guard.StateInFlight {
		t.Errorf("record %+v", r)
	}
}
