package agent

import (
	"os"
	"path/filepath"
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

// TestBatchPaths covers a batch write (T09's data_insert_many, four rows)
// that failed part-way: the agent completes it with only the missing rows
// when it knows which ones are there, and duplicates rows when it re-sends
// the whole batch.
func TestBatchPaths(t *testing.T) {
	for _, tc := range []struct {
		name  string
		e     episode
		sends int
		dup   bool
		rows  int // rows in the last send
	}{
		{"read-back, missing rows only", episode{tpl: "T09", mode: ledger.FaultPartialBatch, cond: "vanilla"}, 2, false, 2},
		{"read-back, whole batch again", episode{tpl: "T09", mode: ledger.FaultPartialBatch, cond: "vanilla",
			set: func(p *Params) { p.S = 0 }}, 2, true, 4},
		{"blind re-send", episode{tpl: "T09", mode: ledger.FaultPartialBatch, cond: "vanilla",
			set: func(p *Params) { p.V500 = 0 }}, 2, true, 4},
		{"outcome oracle, partial", episode{tpl: "T09", mode: ledger.FaultPartialBatch, cond: "outcome-oracle"}, 2, false, 2},
		{"outcome oracle, committed", episode{tpl: "T09", mode: ledger.FaultTimeoutPost, cond: "outcome-oracle"}, 1, false, 4},
		{"state oracle, partial", episode{tpl: "T09", mode: ledger.FaultPartialBatch, cond: "state-oracle"}, 2, false, 2},
		{"state oracle, committed", episode{tpl: "T09", mode: ledger.FaultTimeoutPost, cond: "state-oracle"}, 1, false, 4},
		// Keys everywhere, no guard, after a read-back showed the batch
		// in part: under the same key the agent repeats the request as
		// it was and the service inserts only the missing rows; under a
		// fresh key it sends the rows it read as missing, unless it did
		// not believe the read (s = 0).
		{"keys, read-back, same key", episode{tpl: "T09", mode: ledger.FaultPartialBatch, cond: "vanilla", contract: ledger.ContractKeysEverywhere,
			set: func(p *Params) { p.KNat, p.KKe = 1, 1 }}, 2, false, 4},
		{"keys, read-back, fresh key", episode{tpl: "T09", mode: ledger.FaultPartialBatch, cond: "vanilla", contract: ledger.ContractKeysEverywhere,
			set: func(p *Params) { p.KNat, p.KKe, p.R = 1, 1, 0 }}, 2, false, 2},
		{"keys, read-back not believed, fresh key", episode{tpl: "T09", mode: ledger.FaultPartialBatch, cond: "vanilla", contract: ledger.ContractKeysEverywhere,
			set: func(p *Params) { p.KNat, p.KKe, p.R, p.S = 1, 1, 0, 0 }}, 2, true, 4},
		// Keys everywhere with the guard, blind re-send: under the same
		// key the guard forwards the whole batch and the service inserts
		// only the missing rows; under a fresh key the guard sends only
		// the missing rows itself.
		{"guard, same key", episode{tpl: "T09", mode: ledger.FaultPartialBatch, cond: "guard", contract: ledger.ContractKeysEverywhere,
			set: func(p *Params) { p.KNat, p.KKe, p.V500 = 1, 1, 0 }}, 2, false, 4},
		{"guard, fresh key", episode{tpl: "T09", mode: ledger.FaultPartialBatch, cond: "guard", contract: ledger.ContractKeysEverywhere,
			set: func(p *Params) { p.KNat, p.KKe, p.V500, p.R = 1, 1, 0, 0 }}, 2, false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.e.run(t)
			if got := o.sends(); got != tc.sends {
				t.Fatalf("%d sends, want %d", got, tc.sends)
			}
			last := ""
			for _, c := range o.calls {
				if c.Tool == "data_insert_many" {
					last = c.Args
				}
			}
			if got := strings.Count(last, `"sku"`); got != tc.rows {
				t.Errorf("last send has %d rows, want %d: %s", got, tc.rows, last)
			}
			if o.ep.Duplicated != tc.dup || !o.ep.TaskSuccess {
				t.Errorf("duplicated %v, task success %v; want %v, true", o.ep.Duplicated, o.ep.TaskSuccess, tc.dup)
			}
		})
	}
}

// TestKeyedAndDriftPaths covers re-issues: a same-key repeat of a write
// still in flight gets 409 "in progress", waits and is absorbed; a fresh
// key defeats the server's protection; an unkeyed re-issue may drift its
// arguments; a residual slip sends once more after success.
func TestKeyedAndDriftPaths(t *testing.T) {
	keyed := func(p *Params) { p.KNat, p.KKe, p.VTo, p.V500 = 1, 1, 0, 0 }
	for _, tc := range []struct {
		name     string
		e        episode
		sends    int
		conflict bool // a 409 was observed
		dup      bool
		drifted  bool // the re-issue's arguments (with its key) differ from the original's
	}{
		{"same key, in progress", episode{tpl: "T09", mode: ledger.FaultTimeoutLate, delay: 90, contract: ledger.ContractKeysEverywhere, cond: "vanilla", set: keyed},
			3, true, false, false},
		{"fresh key", episode{tpl: "T09", mode: ledger.FaultTimeoutLate, delay: 90, contract: ledger.ContractKeysEverywhere, cond: "vanilla",
			set: func(p *Params) { keyed(p); p.R = 0 }}, 2, false, true, true},
		{"drifted mail", episode{tpl: "T07", mode: ledger.FaultTimeoutPost, cond: "vanilla",
			set: func(p *Params) { p.VTo, p.A = 0, 1 }}, 2, false, true, true},
		{"drifted charge", episode{tpl: "T03", mode: ledger.FaultTimeoutPost, cond: "vanilla",
			set: func(p *Params) { p.KNat, p.VTo, p.A = 0, 0, 1 }}, 2, false, true, true},
		{"drifted post", episode{tpl: "T01", mode: ledger.FaultTimeoutPost, cond: "vanilla",
			set: func(p *Params) { p.VTo, p.A = 0, 1 }}, 2, false, true, true},
		{"drifted ticket", episode{tpl: "T05", mode: ledger.FaultTimeoutPost, cond: "vanilla",
			set: func(p *Params) { p.VTo, p.A = 0, 1 }}, 2, false, true, true},
		{"drifted row", episode{tpl: "T10", mode: ledger.FaultTimeoutPost, cond: "vanilla",
			set: func(p *Params) { p.VTo, p.A = 0, 1 }}, 2, false, true, true},
		{"slip after success", episode{tpl: "T07", mode: ledger.FaultTimeoutPre, cond: "vanilla",
			set: func(p *Params) { p.VTo, p.Eps = 0, 1 }}, 3, false, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.e.run(t)
			if got := o.sends(); got != tc.sends {
				t.Errorf("%d sends, want %d", got, tc.sends)
			}
			conflict := false
			var args []string
			for _, c := range o.calls {
				if c.Tool != o.focal {
					continue
				}
				conflict = conflict || c.Outcome == ledger.OutcomeHTTP409
				args = append(args, c.Args)
			}
			if conflict != tc.conflict {
				t.Errorf("409 observed: %v, want %v", conflict, tc.conflict)
			}
			if o.ep.Duplicated != tc.dup {
				t.Errorf("duplicated %v, want %v", o.ep.Duplicated, tc.dup)
			}
			// The focal write is step 0 here, so the second send of its
			// tool is the re-issue.
			if drifted := len(args) > 1 && args[1] != args[0]; drifted != tc.drifted {
				t.Errorf("re-issue arguments differ: %v, want %v (%q)", drifted, tc.drifted, args)
			}
		})
	}
}

// TestLoadProfiles reads the embedded profiles back from a file, and names
// the file when it is missing.
func TestLoadProfiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "profiles.json")
	if err := os.WriteFile(path, ProfilesJSON(), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadProfiles(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(p.Models), len(DefaultProfiles().Models); got != want {
		t.Errorf("%d models loaded, want %d", got, want)
	}
	missing := filepath.Join(t.TempDir(), "none.json")
	if _, err := LoadProfiles(missing); err == nil || !strings.Contains(err.Error(), "none.json") {
		t.Errorf("missing file: error %v, want one naming none.json", err)
	}
}

// TestWrapConditions runs whole episodes through the sdk-retry and guard
// middlewares: the retry client hides a not-executed timeout (one clean
// send after the hidden retry), the guard turns a blind re-issue of a
// committed mail into its stored answer.
func TestWrapConditions(t *testing.T) {
	o := episode{tpl: "T07", mode: ledger.FaultTimeoutPre, cond: "sdk-retry"}.run(t)
	if o.sends() != 2 || o.ep.Duplicated || !o.ep.TaskSuccess || o.rep.Status != ledger.StatusCompleted {
		t.Errorf("sdk-retry: %d sends, duplicated %v, success %v, status %s", o.sends(), o.ep.Duplicated, o.ep.TaskSuccess, o.rep.Status)
	}
	o = episode{tpl: "T07", mode: ledger.FaultTimeoutPost, cond: "guard", set: func(p *Params) { p.VTo = 0 }}.run(t)
	if o.sends() != 1 || o.ep.Duplicated {
		t.Errorf("guard: %d sends, duplicated %v; want 1, false", o.sends(), o.ep.Duplicated)
	}
}
