package sandbox

import (
	"reflect"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

func withKey(args map[string]any, key string) map[string]any {
	return withField(args, "idempotency_key", key)
}

func absorbed(raw *ledger.RawEpisode) (n int) {
	for _, e := range raw.Effects {
		if e.Absorbed {
			n++
		}
	}
	return n
}

// Stripe semantics (docs/simulation.md, Tool catalogue): same key and arguments return the
// stored first result as an absorbed effect; other arguments are rejected;
// a key still in flight answers 409; the window outlasts 2 h.
func TestKeySemantics(t *testing.T) {
	w := world(t, "T03", 0, ledger.FaultNone, ledger.ContractNative)
	s := w.Task().Steps[0]
	a := withKey(s.Args, "order-1")
	first := mustOK(t, w.Call(s.Tool, a), "first")
	again := mustOK(t, w.Call(s.Tool, a), "repeat")
	if !reflect.DeepEqual(first, again) {
		t.Errorf("same key, same args: %v then %v, want the stored first result", first, again)
	}
	other := withKey(w.Task().Steps[1].Args, "order-1")
	if o := w.Call(s.Tool, other); o.Outcome != ledger.OutcomeHTTP400 || o.Error != "invalid request: idempotency key reused with different arguments" {
		t.Errorf("same key, other args: %s %q, want http400", o.Outcome, o.Error)
	}
	// Past the window the key is forgotten: a repeat charges again.
	w.Advance(3*3600 + 60)
	mustOK(t, w.Call(s.Tool, a), "after window")
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	if absorbed(raw) != 1 {
		t.Errorf("absorbed effects %d, want 1", absorbed(raw))
	}
	ep, _ := Grade(raw)
	if ep.FocalCommits != 2 || !ep.Duplicated {
		t.Errorf("repeat after the 3 h window: focal commits %d, want 2", ep.FocalCommits)
	}
}

func TestKeyInFlight(t *testing.T) {
	task, _ := NewTask("T03", 0)
	w, _ := NewWorld(Spec{Task: task, Fault: ledger.FaultTimeoutLate, Oracles: []string{ToolOutcomeOracle}})
	s := task.Steps[0]
	a := withKey(s.Args, "order-1")
	if o := w.Call(s.Tool, a); o.Outcome != ledger.OutcomeTimeout {
		t.Fatalf("focal: %s, want timeout", o.Outcome)
	}
	if o := w.Call(s.Tool, a); o.Outcome != ledger.OutcomeHTTP409 {
		t.Errorf("same key while the original is in flight: %s, want http409", o.Outcome)
	}
	if st := mustOK(t, w.Call(ToolOutcomeOracle, map[string]any{"tool": s.Tool, "args": s.Args}), "oracle")["status"]; st != "in_flight" {
		t.Errorf("outcome_oracle: %v, want in_flight", st)
	}
	w.Advance(90)
	r := mustOK(t, w.Call(s.Tool, a), "after the late commit")
	if r["charge_id"] == nil {
		t.Errorf("stored result %v has no charge_id", r)
	}
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	ep, _ := Grade(raw)
	if ep.FocalCommits != 1 || ep.Duplicated || ep.Recovery != ledger.RecoveryKeyReuse {
		t.Errorf("focal commits %d dup %v recovery %s, want 1, false, key_reuse", ep.FocalCommits, ep.Duplicated, ep.Recovery)
	}
}

func TestKeysEverywhereAndIgnored(t *testing.T) {
	for _, c := range []struct {
		contract string
		want     int64
	}{{ledger.ContractNative, 2}, {ledger.ContractKeysEverywhere, 1}} {
		w := world(t, "T07", 0, ledger.FaultTimeoutPost, c.contract)
		s := w.Task().Steps[0]
		a := withKey(s.Args, "notice-1")
		w.Call(s.Tool, a)
		mustOK(t, w.Call(s.Tool, a), "re-issue with the same key")
		ep, _ := Grade(w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted}))
		if ep.FocalCommits != c.want {
			t.Errorf("%s: mail_send re-issued with its key: %d commits, want %d", c.contract, ep.FocalCommits, c.want)
		}
	}
}

func TestOracles(t *testing.T) {
	task, _ := NewTask("T07", 0)
	s := task.Steps[0]
	w, _ := NewWorld(Spec{Task: task, Fault: ledger.FaultTimeoutPost, Oracles: []string{ToolStateOracle, ToolOutcomeOracle}})
	w.Call(s.Tool, s.Args)
	st := mustOK(t, w.Call(ToolStateOracle, map[string]any{"tool": s.Tool, "args": s.Args}), "state")
	if st["committed"] != true {
		t.Errorf("state_oracle after a lost ack: %v, want committed (lags ignored)", st)
	}
	oc := mustOK(t, w.Call(ToolOutcomeOracle, map[string]any{"tool": s.Tool, "args": task.Steps[1].Args}), "outcome")
	if oc["status"] != "not_executed" {
		t.Errorf("outcome_oracle for an unsent write: %v", oc)
	}
	if o := w.Call(ToolStateOracle, map[string]any{"tool": "data_query", "args": map[string]any{}}); o.Outcome != ledger.OutcomeHTTP400 {
		t.Errorf("oracle on a read tool: %s, want http400", o.Outcome)
	}
	// State oracle cannot see in-flight requests.
	w2, _ := NewWorld(Spec{Task: task, Fault: ledger.FaultTimeoutLate, Oracles: []string{ToolStateOracle}})
	w2.Call(s.Tool, s.Args)
	if st := mustOK(t, w2.Call(ToolStateOracle, map[string]any{"tool": s.Tool, "args": s.Args}), "state"); st["committed"] != false {
		t.Errorf("state_oracle sees an in-flight request: %v", st)
	}
}
