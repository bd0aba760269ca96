package sandbox

import (
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
	if last := w.Call("deploy_trigger", args(3)); last.Outcome != ledger.OutcomeOK || last.Result["receipt"] != nil {
		t.Errorf("prod deploy (nobody needs its receipt): %+v", last)
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
