package sandbox

import (
	"fmt"
	"maps"
	"math"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// verifyClient is a scripted client: it runs every step; after a failed
// write it waits (Retry-After if given, else 5 s), reads back through the
// documented read path and re-issues only if the effect is absent.
func verifyClient(w *World) (focal Observation) {
	task := w.Task()
	receipts := map[int]string{} // a hand-off's receipt, by step
	for _, s := range task.Steps {
		args := s.Args
		if len(s.Needs) > 0 {
			args = maps.Clone(s.Args)
			if r, ok := receipts[s.Needs[0]]; ok {
				args["receipt"] = r
			}
		}
		o := w.Call(s.Tool, args)
		if r, ok := o.Result["receipt"].(string); ok {
			receipts[s.Index] = r
		}
		if s.Index == w.spec.FocalIndex {
			focal = o
		}
		if o.Outcome == ledger.OutcomeOK {
			continue
		}
		w.Call(ToolWait, map[string]any{"seconds": math.Max(o.RetryAfterS, 5)})
		rt, ra, ok := ReadArgsFor(s.Tool, s.Args)
		if ok && Present(s.Tool, s.Args, w.Call(rt, ra).Result) {
			continue
		}
		if o := w.Call(s.Tool, args); o.Result["receipt"] != nil {
			receipts[s.Index] = o.Result["receipt"].(string)
		}
	}
	return focal
}

func TestFaultModes(t *testing.T) {
	cases := []struct {
		mode     string
		delay    float64
		observe  string
		commits  int64 // focal commits after drain
		sources  []string
		recovery string
	}{
		{ledger.FaultNone, 0, ledger.OutcomeOK, 1, []string{"agent"}, ledger.RecoveryNone},
		{ledger.FaultTimeoutPre, 0, ledger.OutcomeTimeout, 1, []string{"agent"}, ledger.RecoveryWaitThenVerify},
		{ledger.FaultTimeoutPost, 0, ledger.OutcomeTimeout, 1, []string{"agent"}, ledger.RecoveryWaitThenVerify},
		{ledger.FaultTimeoutLate, 0, ledger.OutcomeTimeout, 2, []string{"agent", "late"}, ledger.RecoveryWaitThenVerify},
		{ledger.FaultTimeoutLateTail, 600, ledger.OutcomeTimeout, 2, []string{"agent", "late"}, ledger.RecoveryWaitThenVerify},
		{ledger.FaultHTTP500Pre, 0, ledger.OutcomeHTTP500, 1, []string{"agent"}, ledger.RecoveryWaitThenVerify},
		{ledger.FaultHTTP500Post, 0, ledger.OutcomeHTTP500, 1, []string{"agent"}, ledger.RecoveryWaitThenVerify},
		{ledger.FaultRedelivery, 0, ledger.OutcomeOK, 2, []string{"agent", "redelivery"}, ledger.RecoveryNone},
		{ledger.FaultHTTP429Pre, 0, ledger.OutcomeHTTP429, 1, []string{"agent"}, ledger.RecoveryWaitThenVerify},
		{ledger.FaultConnRefusedPre, 0, ledger.OutcomeConnRefused, 1, []string{"agent"}, ledger.RecoveryWaitThenVerify},
		{ledger.FaultStaleRead, 0, ledger.OutcomeOK, 1, []string{"agent"}, ledger.RecoveryNone},
	}
	task, _ := NewTask("T01", 0) // focal: linkedin publish (strong read path, no native key)
	for _, c := range cases {
		w, err := NewWorld(Spec{Task: task, FocalIndex: 1, Fault: c.mode, DelayS: c.delay, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		t0 := 0.0
		o := verifyClient(w)
		for _, call := range w.calls {
			if call.Seq == w.focalSeq {
				t0 = call.TS
			}
		}
		if o.Outcome != c.observe {
			t.Errorf("%s: observed %s, want %s", c.mode, o.Outcome, c.observe)
		}
		switch c.mode {
		case ledger.FaultTimeoutPre, ledger.FaultTimeoutPost, ledger.FaultTimeoutLate, ledger.FaultTimeoutLateTail:
			if o.LatencyS != 30 {
				t.Errorf("%s: timeout after %v s, want the client timeout 30", c.mode, o.LatencyS)
			}
		case ledger.FaultHTTP429Pre:
			if o.RetryAfterS != 30 {
				t.Errorf("429: Retry-After %v, want 30", o.RetryAfterS)
			}
		case ledger.FaultConnRefusedPre:
			if o.LatencyS != 0 {
				t.Errorf("conn_refused: latency %v, want 0 (at once)", o.LatencyS)
			}
		}
		raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
		ep, err := Grade(raw)
		if err != nil {
			t.Fatal(err)
		}
		if !ep.FaultFired {
			t.Errorf("%s: fault did not fire", c.mode)
		}
		if ep.FocalCommits != c.commits || ep.Duplicated != (c.commits > 1) || !ep.TaskSuccess {
			t.Errorf("%s: focal commits %d (dup %v, ts %v), want %d", c.mode, ep.FocalCommits, ep.Duplicated, ep.TaskSuccess, c.commits)
		}
		var sources []string
		for _, e := range raw.Effects {
			if e.Focal {
				sources = append(sources, e.Source)
				if e.Source == ledger.SourceLate {
					delay := c.delay
					if delay == 0 {
						delay = 90
					}
					if e.CommittedAtS != t0+delay || e.IssuedAtS != t0 {
						t.Errorf("%s: late effect issued %v committed %v, want %v and %v", c.mode, e.IssuedAtS, e.CommittedAtS, t0, t0+delay)
					}
				}
			}
		}
		if fmt.Sprint(sources) != fmt.Sprint(c.sources) {
			t.Errorf("%s: focal effect sources %v, want %v", c.mode, sources, c.sources)
		}
		if ep.Recovery != c.recovery {
			t.Errorf("%s: recovery %s, want %s", c.mode, ep.Recovery, c.recovery)
		}
	}
}

func TestStaleReadHides(t *testing.T) {
	w := world(t, "T01", 1, ledger.FaultStaleRead, ledger.ContractNative)
	s := w.Task().Steps[1]
	mustOK(t, w.Call(s.Tool, s.Args), "publish")
	rt, ra, _ := ReadArgsFor(s.Tool, s.Args)
	if Present(s.Tool, s.Args, w.Call(rt, ra).Result) {
		t.Error("stale_read: the write is visible at once on a strong path")
	}
	w.Advance(300)
	if Present(s.Tool, s.Args, w.Call(rt, ra).Result) {
		t.Error("stale_read: visible after 300 s; want hidden for 10 min")
	}
	w.Advance(300)
	if !Present(s.Tool, s.Args, w.Call(rt, ra).Result) {
		t.Error("stale_read: still hidden after 10 min")
	}
}

func TestPartialBatch(t *testing.T) {
	for _, contract := range ledger.Contracts.Values {
		task, _ := NewTask("T09", 0)
		s := task.Steps[0]
		// A client that looks, then re-issues the whole batch anyway.
		w, _ := NewWorld(Spec{Task: task, Fault: ledger.FaultPartialBatch, Contract: contract, Seed: 2})
		if o := w.Call(s.Tool, s.Args); o.Outcome != ledger.OutcomeHTTP500 {
			t.Fatalf("partial batch: %s, want http500", o.Outcome)
		}
		q := mustOK(t, w.Call("data_query", map[string]any{"table": "inventory"}), "query")
		if n := listLen(q, "rows"); n != 2 {
			t.Errorf("%s: %d rows after the failure, want ⌈4/2⌉ = 2", contract, n)
		}
		mustOK(t, w.Call(s.Tool, s.Args), "blind retry")
		ep, _ := Grade(w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted}))
		if !ep.Duplicated || !ep.TaskSuccess || ep.FocalCommits != 6 || ep.ExpectedCommits != 4 {
			t.Errorf("%s blind retry: dup %v ts %v focal commits %d expected %d; want dup, 6 of 4", contract, ep.Duplicated, ep.TaskSuccess, ep.FocalCommits, ep.ExpectedCommits)
		}
		if ep.Recovery != ledger.RecoveryVerifyThenRetry {
			t.Errorf("recovery %s, want verify_then_retry (it queried first)", ep.Recovery)
		}

		// Same-key retry: only the missing rows under keys-everywhere.
		w, _ = NewWorld(Spec{Task: task, Fault: ledger.FaultPartialBatch, Contract: contract, Seed: 2})
		args := map[string]any{"table": s.Args["table"], "rows": s.Args["rows"], "idempotency_key": "batch-1"}
		w.Call(s.Tool, args)
		mustOK(t, w.Call(s.Tool, args), "keyed retry")
		ep, _ = Grade(w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted}))
		wantDup := contract == ledger.ContractNative
		if ep.Duplicated != wantDup || !ep.TaskSuccess {
			t.Errorf("%s keyed retry: dup %v ts %v, want dup %v", contract, ep.Duplicated, ep.TaskSuccess, wantDup)
		}
	}
	task, _ := NewTask("T01", 0)
	if _, err := NewWorld(Spec{Task: task, Fault: ledger.FaultPartialBatch}); err == nil {
		t.Error("partial_batch on a publish: want error")
	}
}

// obsTrace runs a scripted client that issues the focal write, then (on a
// failure) reads back at fixed times after the send without re-issuing, and
// finishes the task. It returns the observations with their start times.
func obsTrace(t *testing.T, task *Task, focal int, mode string, delay float64) ([]traceItem, float64) {
	w, err := NewWorld(Spec{Task: task, FocalIndex: focal, Fault: mode, DelayS: delay, Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	var tr []traceItem
	call := traced(w, &tr)
	t0 := 0.0
	for _, s := range task.Steps {
		if s.Index == focal {
			t0 = w.Now()
		}
		call(s.Tool, s.Args)
		if s.Index != focal {
			continue
		}
		rt, ra, ok := ReadArgsFor(s.Tool, s.Args)
		for _, at := range []float64{35, 100, 200, 250, 700, 800} {
			if rest := t0 + at - w.Now(); rest > 0 {
				call(ToolWait, map[string]any{"seconds": rest})
			}
			if ok {
				call(rt, ra)
			}
		}
	}
	return tr, t0
}

// Paper Table 2: modes in the same group look the same to the agent until
// the hidden outcome becomes visible on the read path.
func TestObservationEquivalence(t *testing.T) {
	type world struct {
		mode   string
		delay  float64
		commit float64 // when the hidden effect commits, after t0 (+Inf: never)
	}
	inf := math.Inf(1)
	groups := [][]world{
		{{ledger.FaultTimeoutPre, 0, inf}, {ledger.FaultTimeoutPost, 0, 0}, {ledger.FaultTimeoutLate, 0, 90}, {ledger.FaultTimeoutLateTail, 600, 600}},
		{{ledger.FaultHTTP500Pre, 0, inf}, {ledger.FaultHTTP500Post, 0, 0}},
		{{ledger.FaultNone, 0, inf}, {ledger.FaultRedelivery, 0, redeliveryDelayS}},
	}
	for _, fw := range FocalWrites() {
		task, _ := NewTask(fw.Template, 0)
		step := task.Steps[fw.FocalIndex]
		lag := defs[step.tool].documentedLag(step.Platform)
		for _, g := range groups {
			traces := make([][]traceItem, len(g))
			var t0 float64
			for i, wd := range g {
				traces[i], t0 = obsTrace(t, task, fw.FocalIndex, wd.mode, wd.delay)
			}
			for i := range g {
				for j := i + 1; j < len(g); j++ {
					// Identical until the earlier of the two hidden effects is
					// visible; the focal observation itself always agrees.
					until := t0 + math.Min(g[i].commit, g[j].commit) + lag
					until = math.Max(until, t0+1e-9)
					if !sameTrace(traces[i], traces[j], until) {
						t.Errorf("%s step %d: %s and %s differ before t0+%g", fw.Task, fw.FocalIndex, g[i].mode, g[j].mode, until-t0)
					}
				}
			}
			// And the groups are not trivially identical: the hidden outcome
			// does show eventually (every instance-0 focal write has a read path).
			if g[0].mode == ledger.FaultTimeoutPre && sameTrace(traces[0], traces[1], inf) {
				t.Errorf("%s step %d: timeout_pre and timeout_post never differ", fw.Task, fw.FocalIndex)
			}
		}
	}
}
