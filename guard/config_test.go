package guard_test

import (
	"strings"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/guard"
)

// Options that do not apply to a policy are refused, so that no
// configuration silently ignores a setting.
func TestConfig(t *testing.T) {
	store := guard.NewMemoryStore()
	ok := []guard.Config{
		{Policy: guard.None},
		{Policy: guard.Keys, InFlight: guard.InFlightRefuse, CacheErrors: true, TTL: time.Hour, Capacity: 10, VerifyAfter: time.Minute, ReforwardUnknown: true},
		{Policy: guard.Derived, CacheErrors: true, TTL: time.Hour},
		{Policy: guard.Ledger, IssueOnFirstCall: true, Capacity: 5},
		{Policy: guard.Verify, VerifyAfter: time.Minute},
	}
	for _, c := range ok {
		if _, err := guard.New(c, store); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if _, err := guard.New(guard.Config{Policy: guard.None}, nil); err != nil {
		t.Errorf("none without a store: %v", err)
	}
	bad := []struct {
		cfg  guard.Config
		want string
	}{
		{guard.Config{}, "unknown policy"},
		{guard.Config{Policy: guard.None, CacheErrors: true}, "CacheErrors does not apply to policy none"},
		{guard.Config{Policy: guard.Ledger, TTL: time.Hour}, "TTL does not apply to policy ledger"},
		{guard.Config{Policy: guard.Verify, CacheErrors: true}, "CacheErrors does not apply to policy verify"},
		{guard.Config{Policy: guard.Derived, ReforwardUnknown: true}, "ReforwardUnknown does not apply"},
		{guard.Config{Policy: guard.Keys, IssueOnFirstCall: true}, "IssueOnFirstCall does not apply"},
		{guard.Config{Policy: guard.None, InFlight: guard.InFlightRefuse}, "InFlight refuse does not apply"},
		{guard.Config{Policy: guard.Keys, TTL: -1}, "must not be negative"},
		{guard.Config{Policy: guard.Keys, InFlight: 7}, "unknown in-flight rule"},
	}
	for _, b := range bad {
		if _, err := guard.New(b.cfg, store); err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("%+v: error %v, want %q", b.cfg, err, b.want)
		}
	}
	if _, err := guard.New(guard.Config{Policy: guard.Keys}, nil); err == nil {
		t.Error("keys without a store: want an error")
	}
}

func TestNames(t *testing.T) {
	for _, o := range guard.Outcomes() {
		b, err := o.MarshalText()
		var back guard.Outcome
		if err != nil || back.UnmarshalText(b) != nil || back != o || o.String() != string(b) {
			t.Errorf("outcome %d: %q, %v", o, b, err)
		}
	}
	if len(guard.Outcomes()) != 10 {
		t.Errorf("%d outcomes", len(guard.Outcomes()))
	}
	for _, p := range guard.Policies() {
		q, err := guard.ParsePolicy(p.String())
		if err != nil || q != p {
			t.Errorf("policy %s: %v", p, err)
		}
	}
	if _, err := guard.ParsePolicy("stripe"); err == nil || !strings.Contains(err.Error(), "none, keys, derived, ledger, verify") {
		t.Errorf("ParsePolicy(stripe): %v", err)
	}
	var f guard.InFlight
	if f.UnmarshalText([]byte("refuse")) != nil || f != guard.InFlightRefuse || f.String() != "refuse" {
		t.Errorf("in-flight rule: %v", f)
	}
	var s guard.State
	if s.UnmarshalText([]byte("unknown")) != nil || s != guard.StateUnknown {
		t.Errorf("state: %v", s)
	}
	if !guard.Wait.Retryable() || guard.Replay.Retryable() || guard.Conflict.Retryable() {
		t.Error("Retryable")
	}
}
