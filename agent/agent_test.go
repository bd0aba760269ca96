package agent

import (
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

func TestDefaultProfiles(t *testing.T) {
	p := DefaultProfiles()
	if len(p.Models) != 9 {
		t.Fatalf("%d models, want the paper's nine", len(p.Models))
	}
	for _, m := range p.Models {
		// Every model attaches a natively offered key under the default
		// cue (redelivery 25/34 for every model; docs/simulation.md, Behavioural parameters).
		if m.KNat != 1 {
			t.Errorf("%s: k_nat = %v, want 1", m.Name, m.KNat)
		}
	}
	e, err := p.Effective("gpt-6-sol", "minimal", "vanilla", ledger.CuePlain)
	if err != nil {
		t.Fatal(err)
	}
	if want := 1 - 0.125; e.KNat != want {
		t.Errorf("plain-cue k_nat = %v, want %v", e.KNat, want)
	}
	if e.VTo >= 1 {
		t.Errorf("plain cue should lower v_to, got %v", e.VTo)
	}
	if _, err := p.Effective("nobody", "minimal", "vanilla", "default"); err == nil {
		t.Error("unknown model accepted")
	}
	if _, err := p.Effective("gpt-6-sol", "jupyter", "vanilla", "default"); err == nil {
		t.Error("unknown harness accepted")
	}
}

func TestDecodeProfilesErrors(t *testing.T) {
	base := `{"version":1,"noise":0,"time":{"think_min_s":1,"think_max_s":2,"jitter_mean_s":1,"patience_min_s":1,"patience_max_s":2,"in_progress_wait_s":1,"oracle_poll_s":1,"max_polls":1},"report":{"completed":1,"silent":1},`
	for _, c := range []struct{ in, want string }{
		{base + `"models":[{"name":"m","v_to":1.5}]}`, `models[0] (m).v_to: probability must be in [0,1]`},
		{base + `"models":[{"name":"m"},{"name":"m"}]}`, `duplicate model "m"`},
		{base + `"conditions":{"aware":{"zeta":0.1}},"models":[{"name":"m"}]}`, `conditions.aware: unknown parameter "zeta"`},
		{base + `"models":[]}`, `models: empty`},
		{"{\n\"version\": 1,,\n}", "p.json: line 2"},
	} {
		_, err := DecodeProfiles(strings.NewReader(c.in), "p.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

func TestParseCondition(t *testing.T) {
	for _, c := range []struct {
		in   string
		kind int
		wait float64
		ok   bool
	}{
		{"vanilla", KindPrompt, 0, true}, {"vbr", KindPrompt, 0, true}, {"sdk-retry", KindSDK, 0, true},
		{"guard", KindGuard, 0, true}, {"state-oracle", KindState, 0, true}, {"outcome-oracle", KindOutcome, 0, true},
		{"wait-0", KindWait, 0, true}, {"wait-3600", KindWait, 3600, true}, {"wait-x", 0, 0, false}, {"magic", 0, 0, false},
	} {
		got, err := ParseCondition(c.in)
		if (err == nil) != c.ok || (c.ok && (got.Kind != c.kind || got.WaitS != c.wait)) {
			t.Errorf("ParseCondition(%q) = %+v, %v", c.in, got, err)
		}
	}
}

func world(t *testing.T, tpl string, focal int, mode, contract string, delay float64) *sandbox.World {
	t.Helper()
	task, err := sandbox.NewTask(tpl, 0)
	if err != nil {
		t.Fatal(err)
	}
	w, err := sandbox.NewWorld(sandbox.Spec{Task: task, FocalIndex: focal, Fault: mode, Contract: contract,
		DelayS: delay, ClientTimeoutS: 30, Seed: 42, EpisodeID: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// The guard answers a re-issue of a lost-ack mail from the read-back, after
// the documented lag, instead of sending a second message.
func TestGuardLostAck(t *testing.T) {
	w := world(t, "T07", 0, ledger.FaultTimeoutPost, ledger.ContractNative, 0)
	task := w.Task()
	g := NewGuard(w, task.ID, ledger.ContractNative)
	st := task.Steps[0]
	if obs := g.Call(st.Tool, st.Args); obs.Outcome != ledger.OutcomeTimeout {
		t.Fatalf("first send: %s, want timeout", obs.Outcome)
	}
	obs := g.Call(st.Tool, st.Args)
	if obs.Outcome != ledger.OutcomeOK || obs.Result["status"] != "already_committed" {
		t.Fatalf("re-issue through the guard: %+v", obs)
	}
	if w.Now() < 120 {
		t.Errorf("guard read back at %.0f s, before the documented 120 s lag", w.Now())
	}
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	ep, err := sandbox.Grade(raw)
	if err != nil {
		t.Fatal(err)
	}
	if ep.Duplicated {
		t.Error("duplicated despite the guard")
	}
}

// Under keys everywhere the guard fills a derived key, the same for a
// re-issue, so a redelivered or late copy is absorbed.
func TestGuardFillsKey(t *testing.T) {
	w := world(t, "T11", 0, ledger.FaultTimeoutLate, ledger.ContractKeysEverywhere, 90)
	task := w.Task()
	g := NewGuard(w, task.ID, ledger.ContractKeysEverywhere)
	st := task.Steps[0]
	g.Call(st.Tool, st.Args)
	g.Call(st.Tool, st.Args) // strong read path: absent, so forwarded with the same key
	calls := w.Calls()
	var keys []string
	for _, c := range calls {
		if c.Tool == st.Tool {
			keys = append(keys, c.IdempotencyKey)
		}
	}
	if len(keys) != 2 || keys[0] == "" || keys[0] != keys[1] || !strings.HasPrefix(keys[0], "guard-") {
		t.Fatalf("keys sent: %q", keys)
	}
	ep, err := sandbox.Grade(w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted}))
	if err != nil {
		t.Fatal(err)
	}
	if ep.Duplicated || ep.FocalCommits != 1 {
		t.Errorf("duplicated=%v focal_commits=%d, want one commit", ep.Duplicated, ep.FocalCommits)
	}
}

// The SDK retry client hides a not-executed timeout from the agent.
func TestRetryClient(t *testing.T) {
	w := world(t, "T11", 1, ledger.FaultTimeoutPre, ledger.ContractNative, 0)
	st := w.Task().Steps[1]
	c := &RetryClient{Next: w}
	if obs := c.Call(st.Tool, st.Args); obs.Outcome != ledger.OutcomeOK {
		t.Fatalf("agent saw %s", obs.Outcome)
	}
	if n := len(w.Calls()); n != 2 {
		t.Errorf("%d calls recorded, want 2 (the timeout and the retry)", n)
	}
}

// Proposition 1 as an invariant: for an unkeyed write, a not-executed world
// and a late world whose original lands after the episode give the agent
// identical observations, so its calls are identical, call by call. (With
// an honoured key the server's 409 "still being processed" tells them
// apart, which is the point of keys.)
func TestObservationEquivalence(t *testing.T) {
	prof := DefaultProfiles()
	for _, model := range []string{"gpt-6-astra", "mai-code-1.1-flash"} {
		for _, c := range []struct {
			tpl   string
			focal int
		}{{"T01", 1}, {"T01", 2}, {"T07", 0}, {"T10", 0}} {
			tpl := c.tpl
			trace := func(mode string, delay float64) []ledger.Call {
				w := world(t, tpl, c.focal, mode, ledger.ContractNative, delay)
				p, err := prof.Effective(model, "minimal", "vanilla", "default")
				if err != nil {
					t.Fatal(err)
				}
				c, _ := ParseCondition("vanilla")
				a := New(p, prof.Time, c, NewDraws(9, model+tpl, "ep", 0))
				a.Run(w, w.Task(), w.Tools())
				return w.Calls()
			}
			pre, late := trace(ledger.FaultTimeoutPre, 0), trace(ledger.FaultTimeoutLate, 7000)
			if len(pre) != len(late) {
				t.Fatalf("%s %s: %d calls in W_absent, %d in W_late", model, tpl, len(pre), len(late))
			}
			for i := range pre {
				a, b := pre[i], late[i]
				if a.Tool != b.Tool || a.Args != b.Args || a.Outcome != b.Outcome || a.TS != b.TS {
					t.Fatalf("%s %s call %d differs: %+v vs %+v", model, tpl, i, a, b)
				}
			}
		}
	}
}

// The abandon propensity acts only on what the agent saw: after a positive
// read-back of an unkeyed write hit by a timeout (W_post) it hands the rest
// of the task over, so later required effects are missing; after an empty
// one (W_pre) it re-issues and finishes, so task success in not-executed
// worlds is untouched; at 0 nothing changes.
func TestAbandonAfterConfirmation(t *testing.T) {
	prof := DefaultProfiles()
	run := func(mode string, abandon float64) (ledger.FinalReport, ledger.Episode) {
		w := world(t, "T07", 0, mode, ledger.ContractNative, 0)
		if len(w.Task().Steps) < 2 {
			t.Fatal("T07 needs a step after the focal write")
		}
		p, err := prof.Effective("gpt-6-astra", "minimal", "vanilla", "default")
		if err != nil {
			t.Fatal(err)
		}
		p.Abandon = abandon
		c, _ := ParseCondition("vanilla")
		rep := New(p, prof.Time, c, NewDraws(3, "abandon", "ep", 0)).Run(w, w.Task(), w.Tools())
		ep, err := sandbox.Grade(w.Finish(rep))
		if err != nil {
			t.Fatal(err)
		}
		return rep, ep
	}
	for _, c := range []struct {
		mode      string
		abandon   float64
		status    string
		success   bool
		duplicate bool
	}{
		{ledger.FaultTimeoutPost, 1, ledger.StatusEscalated, false, false},
		{ledger.FaultTimeoutPost, 0, "", true, false},
		{ledger.FaultTimeoutPre, 1, "", true, false},
	} {
		rep, ep := run(c.mode, c.abandon)
		if ep.TaskSuccess != c.success || ep.Duplicated != c.duplicate || (c.status != "" && rep.Status != c.status) {
			t.Errorf("%s abandon=%v: status %s, task success %v, duplicated %v; want %q, %v, %v",
				c.mode, c.abandon, rep.Status, ep.TaskSuccess, ep.Duplicated, c.status, c.success, c.duplicate)
		}
	}
}
