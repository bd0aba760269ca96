package guard_test

import (
	"context"
	"fmt"
	"time"

	"github.com/limbo-toolkit/limbo/guard"
)

// A client key: the first call is forwarded and its result stored; a
// repeat is answered with that result; the key with other arguments is a
// conflict.
func Example() {
	ctx := context.Background()
	g, err := guard.New(guard.Config{Policy: guard.Keys}, guard.NewMemoryStore())
	if err != nil {
		panic(err)
	}
	effect, _ := guard.NewEffect(nil, "idempotency_key")
	call := func(args map[string]any) guard.Call {
		fp, _ := effect.Fingerprint("billing_create_charge", args)
		return guard.Call{Tool: "billing_create_charge", Fingerprint: fp, Key: args["idempotency_key"].(string)}
	}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

	charge := call(map[string]any{"customer": "c1", "amount_cents": 1250, "idempotency_key": "k1"})
	d, _ := g.Begin(ctx, charge, now)
	fmt.Println(d.Outcome)
	// ... the caller executes the charge, then records its result:
	g.Finish(ctx, d.Ticket, guard.Succeeded, []byte(`{"id":"ch_1"}`), now.Add(time.Second))

	d, _ = g.Begin(ctx, charge, now.Add(time.Minute))
	fmt.Println(d.Outcome, string(d.Result))

	other := call(map[string]any{"customer": "c1", "amount_cents": 9900, "idempotency_key": "k1"})
	d, _ = g.Begin(ctx, other, now.Add(time.Minute))
	fmt.Println(d.Outcome)
	// Output:
	// forward
	// replay {"id":"ch_1"}
	// conflict
}

// An execution whose answer was lost is never replayed as a success: the
// repeat is told to verify, and the caller records what a read-back found.
// With a bound on the time a request may stay in flight, a negative
// read-back before the bound is refused (Proposition 1).
func ExampleGuard_Resolve() {
	ctx := context.Background()
	g, _ := guard.New(guard.Config{Policy: guard.Keys, VerifyAfter: 3 * time.Minute}, guard.NewMemoryStore())
	charge := guard.Call{Tool: "billing_create_charge", Fingerprint: "f-c1-1250", Key: "k1"}
	t0 := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

	d, _ := g.Begin(ctx, charge, t0)
	g.Finish(ctx, d.Ticket, guard.Lost, nil, t0.Add(30*time.Second)) // the upstream timed out

	d, _ = g.Begin(ctx, charge, t0.Add(35*time.Second))
	fmt.Println(d.Outcome, "since", d.Since.Format(time.TimeOnly), "verify at", d.VerifyAt.Format(time.TimeOnly))

	_, err := g.Resolve(ctx, charge, false, nil, t0.Add(40*time.Second))
	fmt.Println(err)

	// At the bound the read-back still finds no charge: the key is
	// released and the call forwarded, in one step.
	d, _ = g.Resolve(ctx, charge, false, nil, t0.Add(3*time.Minute))
	fmt.Println(d.Outcome)
	// Output:
	// unknown_outcome since 12:00:00 verify at 12:03:00
	// guard: too early to conclude that the attempt was not executed: keys:0::k1
	// forward
}

// The action ledger executes an action only under an authorisation issued
// for it: two identical monthly charges need two, and a third call of the
// same action is refused.
func ExampleGuard_Issue() {
	ctx := context.Background()
	g, _ := guard.New(guard.Config{Policy: guard.Ledger}, guard.NewMemoryStore())
	effect, _ := guard.NewEffect([]string{"/customer", "/amount_cents"}, "")
	fp, _ := effect.Fingerprint("billing_create_charge", map[string]any{"customer": "c1", "amount_cents": 1250, "memo": "May"})
	charge := guard.Call{Tool: "billing_create_charge", Fingerprint: fp}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

	d, _ := g.Begin(ctx, charge, now)
	fmt.Println("before any authorisation:", d.Outcome)

	g.Issue(ctx, charge, 2, now)
	for range 3 {
		d, _ = g.Begin(ctx, charge, now)
		fmt.Println(d.Outcome)
		if d.Outcome == guard.Forward {
			g.Finish(ctx, d.Ticket, guard.Succeeded, []byte("charged"), now)
		}
	}
	// Output:
	// before any authorisation: unauthorised
	// forward
	// forward
	// consumed
}

// Fingerprints ignore member order, number spelling and the key, and see
// every other argument unless the effect names the ones that matter.
func ExampleEffect_Fingerprint() {
	all, _ := guard.NewEffect(nil, "idempotency_key")
	target, _ := guard.NewEffect([]string{"/customer", "/amount_cents"}, "")

	a := map[string]any{"customer": "c1", "amount_cents": 1250, "memo": "May", "idempotency_key": "k1"}
	b := []byte(`{"memo":"May","amount_cents":1.25e3,"customer":"c1","idempotency_key":"k2"}`)
	c := map[string]any{"customer": "c1", "amount_cents": 1250, "memo": "May invoice"}

	fa, _ := all.Fingerprint("billing_create_charge", a)
	fb, _ := all.FingerprintJSON("billing_create_charge", b)
	fc, _ := all.Fingerprint("billing_create_charge", c)
	ta, _ := target.Fingerprint("billing_create_charge", a)
	tc, _ := target.Fingerprint("billing_create_charge", c)
	fmt.Println(fa == fb, fa == fc, ta == tc)
	// Output:
	// true false true
}

func ExampleCanonicalJSON() {
	out, _ := guard.CanonicalJSON([]byte(`{"b": [1.0, 12.50, 1e21, 0.0000001], "a": "\u00e9\n"}`))
	fmt.Println(string(out))
	// Output:
	// {"a":"é\n","b":[1,12.5,1e+21,1e-7]}
}

// A repeat that arrives while the original is in flight waits for it and
// is answered with the original's answer.
func ExampleGuard_Await() {
	ctx := context.Background()
	g, _ := guard.New(guard.Config{Policy: guard.Keys}, guard.NewMemoryStore())
	charge := guard.Call{Tool: "billing_create_charge", Fingerprint: "f-c1-1250", Key: "k1"}
	now := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)

	original, _ := g.Begin(ctx, charge, now)
	repeat, _ := g.Begin(ctx, charge, now.Add(time.Second))
	fmt.Println(original.Outcome, repeat.Outcome)

	answer := make(chan string)
	go func() {
		// The repeat's handler: wait for the original, take its answer if
		// it succeeded, else decide again.
		end, result, _ := g.Await(ctx, charge)
		if end != guard.Succeeded {
			d, _ := g.Begin(ctx, charge, now.Add(time.Minute))
			result = d.Result
		}
		answer <- string(result)
	}()
	g.Finish(ctx, original.Ticket, guard.Succeeded, []byte(`{"id":"ch_1"}`), now.Add(2*time.Second))
	fmt.Println(<-answer)
	// Output:
	// forward wait
	// {"id":"ch_1"}
}
