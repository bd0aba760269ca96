package proxy

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/ledger"
)

// withGuard deploys a guard over a memory store. Late copies land when
// the session ends, after any retry, whatever the machine's speed.
func withGuard(cfg guard.Config) func(*Options) {
	return func(o *Options) {
		o.Guard = &GuardOptions{Config: cfg, Store: guard.NewMemoryStore()}
		o.LateDelay = time.Hour
	}
}

// TestGuardKeysWorlds: with the keys guard and a client that re-sends a
// failed write under the same key, no world duplicates in front of the
// upstream: a lost answer is settled by the contract's read-back (replayed
// when the write took effect, forwarded when it did not); a late commit
// still duplicates unless the in-flight bound holds the retry off
// (Proposition 1); a redelivery below the guard is beyond it.
func TestGuardKeysWorlds(t *testing.T) {
	keys := guard.Config{Policy: guard.Keys}
	bound := guard.Config{Policy: guard.Keys, VerifyAfter: time.Hour}
	for _, c := range []struct {
		mode    string
		cfg     guard.Config
		rows    int
		dup     bool
		refused bool // the retry was refused (outcome unknown, in the bound)
	}{
		{ledger.FaultNone, keys, 1, false, false},
		{ledger.FaultTimeoutPre, keys, 1, false, false},
		{ledger.FaultHTTP500Pre, keys, 1, false, false},
		{ledger.FaultTimeoutPost, keys, 1, false, false},
		{ledger.FaultHTTP500Post, keys, 1, false, false},
		{ledger.FaultTimeoutLate, keys, 2, true, false},
		{ledger.FaultTimeoutLate, bound, 1, false, true},
		{ledger.FaultRedelivery, keys, 2, true, false},
	} {
		t.Run(c.mode+map[bool]string{true: "-bound"}[c.cfg.VerifyAfter > 0], func(t *testing.T) {
			eachPath(t, func(t *testing.T, connect func(testing.TB) (*store, *Upstream)) {
				st, up := connect(t)
				f := startProxy(t, up, storeContract, Episode{Tool: "insert", FaultMode: c.mode, Task: "store"}, withGuard(c.cfg))
				args := map[string]any{"name": "a", "idempotency_key": "k1"}
				first, failed := callText(t, f.cs, "insert", args)
				var second string
				if failed {
					second, _ = callText(t, f.cs, "insert", args)
				}
				g := f.close(t)
				if st.count("a") != c.rows || g.ep.Duplicated != c.dup {
					t.Errorf("rows %d duplicated %v, want %d %v (answers %q, %q)", st.count("a"), g.ep.Duplicated, c.rows, c.dup, first, second)
				}
				if c.refused != strings.Contains(second, "is unknown") {
					t.Errorf("retry answered %q", second)
				}
				if g.ep.Contract != ledger.ContractKeysEverywhere || g.ep.WriteClass != ledger.ClassKeyed || g.raw.Calls[0].IdempotencyKey != "k1" {
					t.Errorf("contract %s class %s key %q", g.ep.Contract, g.ep.WriteClass, g.raw.Calls[0].IdempotencyKey)
				}
			})
		})
	}
}

// TestGuardKeysListing: the keys guard lists each non-idempotent write
// with the optional key and says what it does; the upstream never sees
// the key; a replay is an absorbed effect in the ledger.
func TestGuardKeysListing(t *testing.T) {
	eachPath(t, func(t *testing.T, connect func(testing.TB) (*store, *Upstream)) {
		st, up := connect(t)
		f := startProxy(t, up, storeContract, Episode{FaultMode: ledger.FaultNone}, withGuard(guard.Config{Policy: guard.Keys}))
		tl, err := f.cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range tl.Tools {
			props := mapOf(schemaMap(tool.InputSchema)["properties"])
			_, has := props[KeyArg]
			want := tool.Name == "insert" || tool.Name == "slow_insert" || tool.Name == "insert_many" || tool.Name == "boom"
			if has != want || has != strings.Contains(tool.Description, "idempotency_key") {
				t.Errorf("%s: key argument %v, want %v (%q)", tool.Name, has, want, tool.Description)
			}
		}
		callText(t, f.cs, "insert", map[string]any{"name": "a", "idempotency_key": "k1"})
		text, isErr := callText(t, f.cs, "insert", map[string]any{"name": "a", "idempotency_key": "k1"})
		if isErr || !strings.HasPrefix(text, "inserted a (1 rows)") {
			t.Errorf("replay: %q %v", text, isErr)
		}
		text, isErr = callText(t, f.cs, "insert", map[string]any{"name": "b", "idempotency_key": "k1"})
		if !isErr || !strings.Contains(text, "idempotency key reused with different arguments") {
			t.Errorf("conflict: %q %v", text, isErr)
		}
		// A legitimate second write, under its own key, is not suppressed.
		if text, isErr := callText(t, f.cs, "insert", map[string]any{"name": "b", "idempotency_key": "k2"}); isErr {
			t.Errorf("a new key refused: %q", text)
		}
		g := f.close(t)
		if st.count("a") != 1 || st.count("b") != 1 || g.ep.Duplicated || len(g.raw.Effects) != 3 || !g.raw.Effects[1].Absorbed {
			t.Errorf("rows %v, effects %+v", st.rows, g.raw.Effects)
		}
	})
}

// TestGuardInFlight: a repeat while the original is in flight waits for
// it and gets its answer, or is refused retryably; either way the write
// is executed once.
func TestGuardInFlight(t *testing.T) {
	eachPath(t, func(t *testing.T, connect func(testing.TB) (*store, *Upstream)) {
		for _, rule := range []guard.InFlight{guard.InFlightWait, guard.InFlightRefuse} {
			st, up := connect(t)
			f := startProxy(t, up, storeContract, Episode{FaultMode: ledger.FaultNone}, withGuard(guard.Config{Policy: guard.Keys, InFlight: rule}))
			var wg sync.WaitGroup
			answers := make([]string, 2)
			errs := make([]bool, 2)
			for i := range 2 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					time.Sleep(time.Duration(i) * 100 * time.Millisecond)
					res, err := f.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "slow_insert", Arguments: map[string]any{"name": "a", "idempotency_key": "k"}})
					if err != nil {
						t.Error(err)
						return
					}
					answers[i], errs[i] = resultText(res), res.IsError
				}()
			}
			wg.Wait()
			f.close(t)
			if st.count("a") != 1 {
				t.Errorf("%v: %d rows", rule, st.count("a"))
			}
			switch rule {
			case guard.InFlightWait:
				if errs[1] || answers[1] != answers[0] {
					t.Errorf("wait: the repeat got %q, the original %q", answers[1], answers[0])
				}
			case guard.InFlightRefuse:
				if !errs[1] || !strings.Contains(answers[1], "still being processed") {
					t.Errorf("refuse: the repeat got %q", answers[1])
				}
			}
		}
	})
}

// TestGuardDerived: the derived guard catches an exact repeat without a
// key, and so also suppresses a legitimate identical one (its limit).
func TestGuardDerived(t *testing.T) {
	eachPath(t, func(t *testing.T, connect func(testing.TB) (*store, *Upstream)) {
		st, up := connect(t)
		f := startProxy(t, up, storeContract, Episode{Tool: "insert", FaultMode: ledger.FaultTimeoutPost}, withGuard(guard.Config{Policy: guard.Derived, TTL: time.Hour}))
		blindRetry(t, f.cs, "insert", map[string]any{"name": "a"})
		callText(t, f.cs, "insert", map[string]any{"name": "a"})
		g := f.close(t)
		if st.count("a") != 1 || g.ep.Duplicated || g.ep.Contract != ledger.ContractNative {
			t.Errorf("rows %d duplicated %v contract %s", st.count("a"), g.ep.Duplicated, g.ep.Contract)
		}
	})
}

// TestGuardReforward: under the keys guard, a tool whose upstream honours
// the key itself (the contract's key) is sent again with the same key when
// its outcome is unknown (Proposition 2): the upstream absorbs the copy, so
// the retry succeeds and the charge is made once; the key reaches the
// upstream. A tool whose key is the guard's own is not sent again blind
// (TestGuardKeysWorlds).
func TestGuardReforward(t *testing.T) {
	eachPath(t, func(t *testing.T, connect func(testing.TB) (*store, *Upstream)) {
		st, up := connect(t)
		f := startProxy(t, up, storeContract, Episode{Tool: "charge", FaultMode: ledger.FaultTimeoutPost, Task: "store"}, withGuard(guard.Config{Policy: guard.Keys}))
		args := map[string]any{"customer": "c1", "amount": 5, "key": "k1"}
		first, failed := callText(t, f.cs, "charge", args)
		if !failed || !strings.Contains(first, `"outcome":"timeout"`) {
			t.Fatalf("first answer %q", first)
		}
		second, isErr := callText(t, f.cs, "charge", args)
		if isErr || !strings.Contains(second, "already, under key k1") {
			t.Errorf("the retry was answered %q (error %v), want the upstream's absorbed copy", second, isErr)
		}
		g := f.close(t)
		st.mu.Lock()
		defer st.mu.Unlock()
		if len(st.charges) != 1 || st.delivered["k1"] != 2 {
			t.Errorf("charges %v, deliveries %v: want one charge from two deliveries", st.charges, st.delivered)
		}
		if g.ep.Duplicated || g.ep.FocalCommits != 1 || g.raw.Calls[1].Outcome != ledger.OutcomeOK {
			t.Errorf("duplicated %v, focal commits %d, calls %+v", g.ep.Duplicated, g.ep.FocalCommits, g.raw.Calls)
		}
	})
}
