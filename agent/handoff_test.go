package agent

import (
	"encoding/json"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// handoffRun runs an agent with deterministic propensities (always verify
// and wait out the lag, skip after a positive read-back, re-issue at once
// after an empty one, never give up) on instance inst of tpl, with the focal
// write and fault given, under contract and condition cond; keyed says
// whether the agent attaches keys it is offered.
func handoffRun(t *testing.T, tpl string, inst, focal int, mode, contract, cond string, keyed bool) (ledger.Episode, ledger.FinalReport, []ledger.Call) {
	t.Helper()
	task, err := sandbox.NewTask(tpl, inst)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseCondition(cond)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sandbox.NewWorld(sandbox.Spec{Task: task, FocalIndex: focal, Fault: mode, Contract: contract,
		DelayS: 90, ClientTimeoutS: 30, Seed: 42, EpisodeID: "handoff", Oracles: c.Oracles()})
	if err != nil {
		t.Fatal(err)
	}
	p := Params{VTo: 1, V500: 1, W: 1, S: 1, Pi: 1, G: 0, R: 1, Orc: 1, Compl: 1, Quiet: 1}
	if keyed {
		p.KNat, p.KKe = 1, 1
	}
	rep := New(p, DefaultProfiles().Time, c, NewDraws(3, "handoff", "ep", 0)).Run(c.Wrap(w, task.ID, contract), w.Task(), w.Tools())
	calls := append([]ledger.Call(nil), w.Calls()...)
	ep, err := sandbox.Grade(w.Finish(rep))
	if err != nil {
		t.Fatal(err)
	}
	return ep, rep, calls
}

// Hand-offs in isolation (sandbox.Step.Needs): on instance 1 of the deploy
// pipeline (T11) the staging deploy must quote the build deploy's receipt,
// which only the build's response carries. After a lost acknowledgement a
// careful agent reads back, finds the build run and skips the re-issue (no
// duplicate), but holds no receipt: without a key it cannot go on and hands
// the task over, so the task fails without a duplicate. Instance 0 has no
// hand-off and completes exactly once; a same-key repeat returns the stored
// result (receipt included), so under keys-everywhere the task completes
// exactly once, also behind the guard; and a not-executed world completes
// either way (the re-issue brings a receipt).
func TestHandoffNeedsReceipt(t *testing.T) {
	for _, c := range []struct {
		name      string
		inst      int
		mode      string
		contract  string
		cond      string
		keyed     bool
		eos       bool
		escalated bool
	}{
		{"instance 0, no hand-off", 0, ledger.FaultTimeoutPost, ledger.ContractNative, "vanilla", false, true, false},
		{"instance 1, lost ack, no key", 1, ledger.FaultTimeoutPost, ledger.ContractNative, "vanilla", false, false, true},
		{"instance 1, misleading 500, no key", 1, ledger.FaultHTTP500Post, ledger.ContractNative, "vanilla", false, false, true},
		{"instance 1, lost ack, guard, native (no key honoured)", 1, ledger.FaultTimeoutPost, ledger.ContractNative, "guard", false, false, true},
		{"instance 1, lost ack, keys everywhere", 1, ledger.FaultTimeoutPost, ledger.ContractKeysEverywhere, "vanilla", true, true, false},
		{"instance 1, lost ack, keys everywhere, guard", 1, ledger.FaultTimeoutPost, ledger.ContractKeysEverywhere, "guard", true, true, false},
		{"instance 1, late commit, keys everywhere", 1, ledger.FaultTimeoutLate, ledger.ContractKeysEverywhere, "vanilla", true, true, false},
		{"instance 1, not executed, no key", 1, ledger.FaultTimeoutPre, ledger.ContractNative, "vanilla", false, true, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ep, rep, calls := handoffRun(t, "T11", c.inst, 0, c.mode, c.contract, c.cond, c.keyed)
			if ep.Duplicated {
				t.Errorf("duplicated")
			}
			if ep.EOS != c.eos || (rep.Status == ledger.StatusEscalated) != c.escalated {
				t.Errorf("eos %v, report %s; want eos %v, escalated %v", ep.EOS, rep.Status, c.eos, c.escalated)
			}
			if c.escalated {
				// Nothing after the build was sent: the hand-over is
				// before the staging deploy.
				for _, cl := range calls {
					if cl.Tool == "deploy_trigger" && !jsonHas(t, cl.Args, "env", "build") {
						t.Errorf("sent %s after handing over", cl.Args)
					}
				}
			}
		})
	}
}

// Without the hand-offs in the task data the same instance-1 world
// completes exactly once: the failure above comes from the task structure,
// not from the instance's other values.
func TestHandoffFromData(t *testing.T) {
	var f map[string]any
	if err := json.Unmarshal(sandbox.DefaultTaskData(), &f); err != nil {
		t.Fatal(err)
	}
	for _, tm := range f["templates"].([]any) {
		delete(tm.(map[string]any), "handoffs")
	}
	js, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	restore, err := sandbox.UseTaskData(js)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	ep, rep, _ := handoffRun(t, "T11", 1, 0, ledger.FaultTimeoutPost, ledger.ContractNative, "vanilla", false)
	if !ep.EOS || rep.Status == ledger.StatusEscalated {
		t.Errorf("without hand-offs: eos %v, report %s; want exactly once, completed", ep.EOS, rep.Status)
	}
}

func jsonHas(t *testing.T, args, k, v string) bool {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(args), &m); err != nil {
		t.Fatal(err)
	}
	return m[k] == v
}
