package agent

import (
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// episode is one simulated episode with fixed propensities: the agent in
// condition cond on template tpl (instance 0), fault mode on write focal.
type episode struct {
	tpl      string
	focal    int
	mode     string
	contract string
	delay    float64
	cond     string
	set      func(*Params) // propensities 0 or 1 make the path deterministic
}

type outcome struct {
	rep    ledger.FinalReport
	ep     ledger.Episode
	calls  []ledger.Call
	focal  string // the focal write's tool
	others int    // calls to that tool by the task's other steps (sent once each)
}

func (e episode) run(t *testing.T) outcome {
	t.Helper()
	task, err := sandbox.NewTask(e.tpl, 0)
	if err != nil {
		t.Fatal(err)
	}
	cond, err := ParseCondition(e.cond)
	if err != nil {
		t.Fatal(err)
	}
	contract := e.contract
	if contract == "" {
		contract = ledger.ContractNative
	}
	w, err := sandbox.NewWorld(sandbox.Spec{Task: task, FocalIndex: e.focal, Fault: e.mode, Contract: contract,
		DelayS: e.delay, ClientTimeoutS: 30, Seed: 42, EpisodeID: "paths", Oracles: cond.Oracles()})
	if err != nil {
		t.Fatal(err)
	}
	prof := DefaultProfiles()
	p, err := prof.Effective("gpt-6-astra", "minimal", e.cond, ledger.CueDefault)
	if err != nil {
		t.Fatal(err)
	}
	// Deterministic defaults: no keys, always verify, never give up, skip
	// after a positive read-back, re-issue at once, no slips.
	p.KNat, p.KKe, p.VTo, p.V500, p.W, p.S, p.Pi, p.G, p.R, p.A, p.Eps, p.Abandon = 0, 0, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0
	p.Orc, p.Compl, p.Quiet = 1, 1, 1
	if e.set != nil {
		e.set(&p)
	}
	a := New(p, prof.Time, cond, NewDraws(7, "paths"+e.tpl, "ep", 0))
	rep := a.Run(cond.Wrap(w, task.ID, contract), w.Task(), w.Tools())
	calls := append([]ledger.Call(nil), w.Calls()...)
	ep, err := sandbox.Grade(w.Finish(rep))
	if err != nil {
		t.Fatal(err)
	}
	o := outcome{rep: rep, ep: ep, calls: calls, focal: task.Steps[e.focal].Tool}
	for i, st := range task.Steps {
		if i != e.focal && st.Tool == o.focal {
			o.others++
		}
	}
	return o
}

// sends returns how many times the focal write was sent.
func (o outcome) sends() int { return o.count(o.focal) - o.others }

// count returns how many calls went to tool.
func (o outcome) count(tool string) int {
	n := 0
	for _, c := range o.calls {
		if c.Tool == tool {
			n++
		}
	}
	return n
}

// TestOraclePaths drives the outcome and state oracles through the real
// sandbox: a committed write is not repeated, a not-executed one is sent
// again, the state oracle cannot see a write in flight, and giving up
// leaves a partial report.
func TestOraclePaths(t *testing.T) {
	const mail = "mail_send" // T07's focal write: unkeyed, irreversible
	for _, tc := range []struct {
		name    string
		e       episode
		oracle  string
		asks    int // oracle calls
		sends   int // focal tool calls
		dup, ts bool
		status  string
		listed  bool // the report lists the doubt about the mail
	}{
		{"outcome oracle, committed", episode{tpl: "T07", mode: ledger.FaultTimeoutPost, cond: "outcome-oracle"},
			sandbox.ToolOutcomeOracle, 1, 1, false, true, ledger.StatusCompleted, false},
		{"outcome oracle, not executed", episode{tpl: "T07", mode: ledger.FaultTimeoutPre, cond: "outcome-oracle"},
			sandbox.ToolOutcomeOracle, 1, 2, false, true, ledger.StatusCompleted, false},
		{"outcome oracle, in flight", episode{tpl: "T07", mode: ledger.FaultTimeoutLate, delay: 7000, cond: "outcome-oracle"},
			sandbox.ToolOutcomeOracle, 1, 1, false, true, ledger.StatusCompleted, false},
		{"state oracle, committed", episode{tpl: "T07", mode: ledger.FaultTimeoutPost, cond: "state-oracle"},
			sandbox.ToolStateOracle, 1, 1, false, true, ledger.StatusCompleted, false},
		{"state oracle, not executed", episode{tpl: "T07", mode: ledger.FaultTimeoutPre, cond: "state-oracle"},
			sandbox.ToolStateOracle, 1, 2, false, true, ledger.StatusCompleted, false},
		// In flight the state oracle sees nothing, the agent re-sends, and
		// the late original lands too. (The outcome oracle answers "in
		// flight" and the original lands once.)
		{"state oracle, in flight", episode{tpl: "T07", mode: ledger.FaultTimeoutLate, delay: 90, cond: "state-oracle"},
			sandbox.ToolStateOracle, 1, 2, true, true, ledger.StatusCompleted, false},
		{"state oracle, patient re-check", episode{tpl: "T07", mode: ledger.FaultTimeoutLate, delay: 90, cond: "state-oracle",
			set: func(p *Params) { p.Pi = 0 }},
			sandbox.ToolStateOracle, 2, 1, false, true, ledger.StatusCompleted, false},
		{"state oracle, gives up", episode{tpl: "T07", mode: ledger.FaultTimeoutPre, cond: "state-oracle",
			set: func(p *Params) { p.G = 1 }},
			sandbox.ToolStateOracle, 1, 1, false, false, ledger.StatusPartial, true},
		{"oracle not used", episode{tpl: "T07", mode: ledger.FaultTimeoutPost, cond: "outcome-oracle",
			set: func(p *Params) { p.Orc = 0; p.S = 0 }},
			sandbox.ToolOutcomeOracle, 0, 2, true, true, ledger.StatusCompleted, false},
		{"escalates instead of completed", episode{tpl: "T07", mode: ledger.FaultTimeoutPost, cond: "outcome-oracle",
			set: func(p *Params) { p.Compl = 0 }},
			sandbox.ToolOutcomeOracle, 1, 1, false, true, ledger.StatusEscalated, true},
		{"completed, listing the doubt", episode{tpl: "T07", mode: ledger.FaultTimeoutPost, cond: "outcome-oracle",
			set: func(p *Params) { p.Quiet = 0 }},
			sandbox.ToolOutcomeOracle, 1, 1, false, true, ledger.StatusCompleted, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.e.run(t)
			if got := o.count(tc.oracle); got != tc.asks {
				t.Errorf("%d calls to %s, want %d", got, tc.oracle, tc.asks)
			}
			if got := o.sends(); got != tc.sends {
				t.Errorf("%d sends of %s, want %d", got, mail, tc.sends)
			}
			if o.ep.Duplicated != tc.dup || o.ep.TaskSuccess != tc.ts {
				t.Errorf("duplicated %v, task success %v; want %v, %v", o.ep.Duplicated, o.ep.TaskSuccess, tc.dup, tc.ts)
			}
			if o.rep.Status != tc.status {
				t.Errorf("report status %q, want %q", o.rep.Status, tc.status)
			}
			if listed := strings.Contains(strings.Join(o.rep.Uncertainties, "\n"), mail); listed != tc.listed {
				t.Errorf("uncertainties %q, want the mail listed: %v", o.rep.Uncertainties, tc.listed)
			}
		})
	}
}
