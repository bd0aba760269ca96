package sandbox

import (
	"maps"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Hand-offs live in instances ≥ 1 only: instance 0 of every template (the
// E2, E5 and E6 task set) has no step that needs a receipt, so those
// experiments keep their structure and identities; the deploy pipelines'
// later instances chain every stage to the previous one.
func TestHandoffsOnlyFromInstance1(t *testing.T) {
	for _, tpl := range Templates() {
		for inst := 0; inst < Instances(tpl); inst++ {
			task, err := NewTask(tpl, inst)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, s := range task.Steps {
				n += len(s.Needs)
				if inst == 0 && (s.Receipt || len(s.Needs) > 0) {
					t.Errorf("%s: step %d has a hand-off in instance 0", task.ID, s.Index)
				}
			}
			if (tpl == "T11" || tpl == "T12") && inst >= 1 {
				if n != 3 || !strings.Contains(task.Instruction, "receipt") {
					t.Errorf("%s: %d hand-offs (want 3), instruction %q", task.ID, n, task.Instruction)
				}
			}
		}
	}
}

// A receipt is in the response of the write a later step needs, and
// nowhere else: not in the listing a read-back shows, not in the response
// of a write nobody needs. A same-key repeat returns the stored result,
// receipt included.
func TestReceiptOnlyInResponse(t *testing.T) {
	task, err := NewTask("T11", 1)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorld(Spec{Task: task, FocalIndex: 3, Fault: ledger.FaultNone, Contract: ledger.ContractKeysEverywhere,
		ClientTimeoutS: 30, Seed: 9, EpisodeID: "receipt"})
	if err != nil {
		t.Fatal(err)
	}
	args := func(i int) map[string]any {
		a := map[string]any{"idempotency_key": "k" + string(rune('0'+i))}
		for k, v := range task.Steps[i].Args {
			a[k] = v
		}
		return a
	}
	first := w.Call("deploy_trigger", args(0))
	r, ok := first.Result["receipt"].(string)
	if first.Outcome != ledger.OutcomeOK || !ok || !strings.HasPrefix(r, "rcpt_") {
		t.Fatalf("build deploy: %+v, want a receipt", first)
	}
	if again := w.Call("deploy_trigger", args(0)); again.Result["receipt"] != r {
		t.Errorf("same-key repeat: receipt %v, want the stored %s", again.Result["receipt"], r)
	}
	list := w.Call("deploy_list_runs", map[string]any{"service": task.Steps[0].Args["service"]})
	if list.Outcome != ledger.OutcomeOK || strings.Contains(canonString(list.Result), "rcpt_") {
		t.Errorf("listing shows a receipt: %+v", list)
	}
	for i := 1; i <= 3; i++ {
		a := args(i)
		a["receipt"] = r
		o := w.Call("deploy_trigger", a)
		if o.Outcome != ledger.OutcomeOK {
			t.Fatalf("step %d quoting step %d's receipt: %+v", i+1, i, o)
		}
		if i == 3 {
			if o.Result["receipt"] != nil {
				t.Errorf("prod deploy (nobody needs its receipt): %+v", o)
			}
			break
		}
		r, _ = o.Result["receipt"].(string)
	}
}

// The sandbox enforces the hand-off: a gated write that omits the receipt,
// quotes one no earlier write returned, or quotes another step's is
// rejected with a 400 that says what is missing and which earlier write
// carries it, and commits nothing, so the step is graded not done. The
// receipt argument is listed in the gated tools' specs of such a world
// only; in instance 0 it stays an unknown argument.
func TestReceiptEnforced(t *testing.T) {
	task, err := NewTask("T12", 1)
	if err != nil {
		t.Fatal(err)
	}
	w, err := NewWorld(Spec{Task: task, FocalIndex: 0, Fault: ledger.FaultNone, Seed: 4, EpisodeID: "enforce"})
	if err != nil {
		t.Fatal(err)
	}
	for _, sp := range w.Tools() {
		has := false
		for _, p := range sp.Params {
			has = has || p.Name == "receipt"
		}
		if want := sp.Name == "deploy_trigger" || sp.Name == "mail_send"; has != want {
			t.Errorf("T12#1 spec of %s lists receipt: %v, want %v", sp.Name, has, want)
		}
	}
	with := func(i int, r any) map[string]any {
		a := maps.Clone(task.Steps[i].Args)
		if r != nil {
			a["receipt"] = r
		}
		return a
	}
	staging := w.Call("deploy_trigger", with(0, nil))
	r0, _ := staging.Result["receipt"].(string)
	if staging.Outcome != ledger.OutcomeOK || r0 == "" {
		t.Fatalf("staging (first stage, nothing to quote): %+v", staging)
	}
	for _, c := range []struct {
		name string
		r    any
		want []string
	}{
		{"omitted", nil, []string{`missing argument "receipt"`, "step 2", "deploy_trigger of step 1", `env "staging"`}},
		{"misquoted", "rcpt_forged", []string{`receipt "rcpt_forged" was not returned`, "deploy_trigger of step 1", `env "staging"`}},
		{"not a string", 7.0, []string{"receipt must be a string"}},
	} {
		o := w.Call("deploy_trigger", with(1, c.r))
		if o.Outcome != ledger.OutcomeHTTP400 {
			t.Errorf("canary, receipt %s: outcome %s, want http400", c.name, o.Outcome)
		}
		for _, s := range c.want {
			if !strings.Contains(o.Error, s) {
				t.Errorf("canary, receipt %s: error %q lacks %q", c.name, o.Error, s)
			}
		}
	}
	canary := w.Call("deploy_trigger", with(1, r0))
	r1, _ := canary.Result["receipt"].(string)
	if canary.Outcome != ledger.OutcomeOK || r1 == "" {
		t.Fatalf("canary quoting staging's receipt: %+v", canary)
	}
	// Quoting staging's receipt for prod is quoting the wrong write.
	if o := w.Call("deploy_trigger", with(2, r0)); o.Outcome != ledger.OutcomeHTTP400 || !strings.Contains(o.Error, `env "canary"`) {
		t.Errorf("prod quoting staging's receipt: %+v, want a 400 naming canary", o)
	}
	// Stop before prod: the rejected calls committed nothing, so prod and
	// the summary mail are not done.
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted, Uncertainties: []string{}})
	ep, err := Grade(raw)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw.Effects) != 2 || ep.TaskSuccess || ep.Duplicated {
		t.Errorf("effects %d (want 2: staging, canary), task success %v, duplicated %v", len(raw.Effects), ep.TaskSuccess, ep.Duplicated)
	}

	// Instance 0 has no hand-off: receipt is an unknown argument there.
	task0, _ := NewTask("T12", 0)
	w0, _ := NewWorld(Spec{Task: task0, FocalIndex: 0, Fault: ledger.FaultNone, Seed: 4, EpisodeID: "plain"})
	a := maps.Clone(task0.Steps[1].Args)
	a["receipt"] = "rcpt_x"
	if o := w0.Call("deploy_trigger", a); o.Outcome != ledger.OutcomeHTTP400 || !strings.Contains(o.Error, `unknown argument "receipt"`) {
		t.Errorf("instance 0 with a receipt: %+v, want unknown argument", o)
	}
	if o := w0.Call("deploy_trigger", maps.Clone(task0.Steps[1].Args)); o.Outcome != ledger.OutcomeOK {
		t.Errorf("instance 0 without a receipt: %+v", o)
	}
}

func TestHandoffDataErrors(t *testing.T) {
	const steps = `"steps":[{"tool":"deploy_trigger","args":{"service":"s","env":"build","ref":"r"}},{"tool":"deploy_trigger","args":{"service":"s","env":"prod","ref":"r"}}]`
	for _, c := range []struct{ handoffs, want string }{
		{`{"from_instance":0,"pairs":[[0,1]],"note":"n"}`, "from_instance"},
		{`{"from_instance":1,"pairs":[],"note":"n"}`, "needs pairs"},
		{`{"from_instance":1,"pairs":[[0,1]],"note":""}`, "needs pairs"},
		{`{"from_instance":1,"pairs":[[1,0]],"note":"n"}`, "pairs[0]"},
		{`{"from_instance":1,"pairs":[[0,2]],"note":"n"}`, "pairs[0]"},
	} {
		js := `{"templates":[{"id":"X","service":"deploy","instances":2,"instruction":"i","handoffs":` + c.handoffs + `,` + steps + `}]}`
		_, err := UseTaskData([]byte(js))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "(X)") {
			t.Errorf("handoffs %s: error %v, want one naming the template and %q", c.handoffs, err, c.want)
		}
	}
	if len(Templates()) != 12 {
		t.Error("a rejected data file must leave the suite unchanged")
	}
}

// TestBelowDataErrors: an instruction that says "given below" must name
// the arguments to list, every step must have them, and a list without
// the words is refused; each error names the template and field below.
func TestBelowDataErrors(t *testing.T) {
	const steps = `"steps":[{"tool":"social_publish","args":{"platform":"x","text":"a"}},{"tool":"social_publish","args":{"platform":"weibo","body":"b"}}]`
	for _, c := range []struct{ instruction, below, want string }{
		{"post the texts given below", `[]`, `says "given below"`},
		{"post two texts", `["text"]`, `does not say "given below"`},
		{"post the texts given below", `["text"]`, `steps[1] has no argument "text"`},
	} {
		js := `{"templates":[{"id":"X","service":"social","instances":1,"instruction":"` + c.instruction + `","below":` + c.below + `,` + steps + `}]}`
		_, err := UseTaskData([]byte(js))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "(X): field below") {
			t.Errorf("%q below %s: error %v, want one naming the template, field below and %q", c.instruction, c.below, err, c.want)
		}
	}
	if len(Templates()) != 12 {
		t.Error("a rejected data file must leave the suite unchanged")
	}
}
