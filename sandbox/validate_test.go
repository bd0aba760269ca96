package sandbox

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

func TestBadInput(t *testing.T) {
	long := strings.Repeat("a", maxString+1)
	cases := []struct {
		name string
		tool string
		args map[string]any
		msg  string // substring of the error
	}{
		{"unknown tool", "social_post", map[string]any{}, "unknown tool"},
		{"missing arg", "social_publish", map[string]any{"platform": "mastodon"}, `missing required argument "text"`},
		{"extra arg", "social_publish", map[string]any{"platform": "mastodon", "text": "t", "visibility": "public"}, `unknown argument "visibility"`},
		{"key on a read", "data_query", map[string]any{"table": "t", "idempotency_key": "k"}, `unknown argument "idempotency_key"`},
		{"wrong type", "social_publish", map[string]any{"platform": "mastodon", "text": 3.0}, "must be a string"},
		{"bad enum", "social_publish", map[string]any{"platform": "myspace", "text": "t"}, "unknown value"},
		{"oversized", "mail_send", map[string]any{"to": "a@b", "subject": long, "body": "b"}, "longer than"},
		{"empty", "mail_send", map[string]any{"to": "", "subject": "s", "body": "b"}, "must not be empty"},
		{"negative amount", "billing_create_charge", map[string]any{"customer_id": "c", "amount_cents": -5.0, "description": "d"}, "must be positive"},
		{"zero amount", "billing_create_charge", map[string]any{"customer_id": "c", "amount_cents": 0, "description": "d"}, "must be positive"},
		{"fractional amount", "billing_create_charge", map[string]any{"customer_id": "c", "amount_cents": 1.5, "description": "d"}, "integer"},
		{"NaN amount", "billing_create_charge", map[string]any{"customer_id": "c", "amount_cents": math.NaN(), "description": "d"}, "integer"},
		{"huge amount", "billing_create_charge", map[string]any{"customer_id": "c", "amount_cents": 1e300, "description": "d"}, "out of range"},
		{"key type", "billing_create_charge", map[string]any{"customer_id": "c", "amount_cents": 5, "description": "d", "idempotency_key": 7}, "idempotency_key must be a string"},
		{"row without id", "data_insert", map[string]any{"table": "t", "row": map[string]any{"x": 1}}, "primary key"},
		{"nested row", "data_insert", map[string]any{"table": "t", "row": map[string]any{"id": "a", "x": map[string]any{}}}, "must be a string, number"},
		{"rows not array", "data_insert_many", map[string]any{"table": "t", "rows": "abc"}, "array of objects"},
		{"empty rows", "data_insert_many", map[string]any{"table": "t", "rows": []any{}}, "1–500 rows"},
		{"row not object", "data_insert_many", map[string]any{"table": "t", "rows": []any{1.0}}, "must be an object"},
		{"upsert id mismatch", "data_upsert", map[string]any{"table": "t", "key": "a", "row": map[string]any{"id": "b"}}, "row.id must equal key"},
		{"negative wait", "wait", map[string]any{"seconds": -1.0}, "between 0 and 86400"},
		{"nil args", "mail_send", nil, "missing required argument"},
	}
	for _, c := range cases {
		w := world(t, "T01", 0, ledger.FaultNone, ledger.ContractNative)
		o := w.Call(c.tool, c.args)
		if o.Outcome != ledger.OutcomeHTTP400 || !strings.Contains(o.Error, c.msg) {
			t.Errorf("%s: %s %q, want http400 with %q", c.name, o.Outcome, o.Error, c.msg)
		}
		raw := w.Finish(ledger.FinalReport{Status: ledger.StatusFailed})
		if len(raw.Effects) != 0 {
			t.Errorf("%s: %d effects, want none for a rejected call", c.name, len(raw.Effects))
		}
		if len(raw.Calls) != 1 || raw.Calls[0].Outcome != ledger.OutcomeHTTP400 {
			t.Errorf("%s: the rejected call is not recorded as http400", c.name)
		}
		if w.FaultFired() {
			t.Errorf("%s: a rejected call fired the fault", c.name)
		}
	}
}

// A rejected focal write does not consume the fault: the first valid issue gets it.
func TestRejectedFocalDoesNotFire(t *testing.T) {
	w := world(t, "T01", 0, ledger.FaultTimeoutPre, ledger.ContractNative)
	s := w.Task().Steps[0]
	bad := withKey(s.Args, "")
	if o := w.Call(s.Tool, bad); o.Outcome != ledger.OutcomeHTTP400 {
		t.Fatalf("empty key: %s, want http400", o.Outcome)
	}
	if o := w.Call(s.Tool, s.Args); o.Outcome != ledger.OutcomeTimeout {
		t.Errorf("first valid focal issue: %s, want timeout", o.Outcome)
	}
}

// FuzzCall feeds arbitrary JSON arguments to every tool: Call must never
// panic, and a rejected call must leave no effect.
func FuzzCall(f *testing.F) {
	f.Add(0, `{"platform":"mastodon","text":"hi"}`)
	f.Add(3, `{"customer_id":"c","amount_cents":-1,"description":"d"}`)
	f.Add(14, `{"table":"t","rows":[{"id":1},{"id":null},[],{"id":"x","y":{"z":1}}]}`)
	f.Add(15, `{"table":"t","key":"k","row":{"id":"k"},"idempotency_key":"a"}`)
	f.Add(21, `{"tool":"data_insert_many","args":{"table":"t","rows":[{"id":1}]}}`)
	f.Add(20, `{"seconds":1e308}`)
	task, _ := NewTask("T05", 0)
	f.Fuzz(func(t *testing.T, tool int, js string) {
		var args map[string]any
		if json.Unmarshal([]byte(js), &args) != nil {
			return
		}
		name := "no_such_tool"
		if tool >= 0 && tool < nTools {
			name = defs[tool].name
		}
		w, _ := NewWorld(Spec{Task: task, Oracles: []string{ToolStateOracle, ToolOutcomeOracle}})
		o := w.Call(name, args)
		raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
		if o.Outcome == ledger.OutcomeHTTP400 && len(raw.Effects) != 0 {
			t.Fatalf("%s %s: rejected but %d effects", name, js, len(raw.Effects))
		}
		if _, err := Grade(raw); err != nil {
			t.Fatalf("grade: %v", err)
		}
	})
}
