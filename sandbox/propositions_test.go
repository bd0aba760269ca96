package sandbox

import (
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

func TestProposition1(t *testing.T) {
	r := CheckProposition1(DefaultReadBackGrid)
	if !r.Pass {
		t.Fatalf("Proposition 1 fails: %v", r.Failures)
	}
	if len(r.Rows) != 34 {
		t.Errorf("%d focal writes, want 34", len(r.Rows))
	}
	natural := 0
	for _, row := range r.Rows {
		if row.Natural {
			natural++
		}
	}
	// Only naturally idempotent writes escape (refund ×2, update_status ×2,
	// upsert): the N class of docs/simulation.md, Contract classes.
	if natural != 5 {
		t.Errorf("%d naturally idempotent focal writes, want 5", natural)
	}
}

func TestProposition2(t *testing.T) {
	r := CheckProposition2(DefaultTailDelays)
	if !r.Pass {
		t.Fatalf("Proposition 2 fails: %v", r.Failures)
	}
	var native, keys int
	for _, row := range r.Rows {
		if row.Contract == ledger.ContractNative {
			native++
		} else {
			keys++
		}
	}
	if native != 4 || keys != 34 {
		t.Errorf("rows: %d native (want the 4 keyed writes), %d keys-everywhere (want 34)", native, keys)
	}
}

// Without key deduplication Proposition 2 must fail: the check runs the
// real mechanics, not a restatement of them.
func TestProposition2NeedsDedup(t *testing.T) {
	restore := DisableKeyDedupForTesting()
	defer restore()
	if r := CheckProposition2(DefaultTailDelays); r.Pass {
		t.Error("Proposition 2 passes with key deduplication off")
	}
}
