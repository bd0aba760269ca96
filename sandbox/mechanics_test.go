package sandbox

import (
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// The sandbox has a mechanic for exactly the catalogue's modes it can
// inject, and a store for each of the catalogue's services: adding a mode
// or a service to one side only fails here.
func TestMechanicsMatchCatalogue(t *testing.T) {
	for _, m := range ledger.Faults() {
		if has := mechanics[m.Name] != nil; has != m.InjectedBy(ledger.SiteSandbox) {
			t.Errorf("%s: mechanic %v, injected by the sandbox %v", m.Name, has, m.InjectedBy(ledger.SiteSandbox))
		}
	}
	for name := range mechanics {
		if _, ok := ledger.FaultByName(name); !ok {
			t.Errorf("mechanic for %q, a mode the catalogue lacks", name)
		}
	}
	for _, s := range ledger.Services() {
		if stores[s.Name] == nil {
			t.Errorf("service %s: no store", s.Name)
		}
	}
	if len(stores) != len(ledger.Services()) {
		t.Errorf("%d stores for %d services", len(stores), len(ledger.Services()))
	}
	for i := range defs {
		if defs[i].tool.Name != defs[i].name {
			t.Errorf("tool %d: %q has the catalogue entry of %q", i, defs[i].name, defs[i].tool.Name)
		}
	}
}

// A mode the sandbox has no mechanic for (one only the proxy injects) is
// refused with a message naming it, never simulated as something else.
func TestModeWithoutMechanic(t *testing.T) {
	task, err := NewTask("T03", 0)
	if err != nil {
		t.Fatal(err)
	}
	saved := mechanics[ledger.FaultTimeoutPost]
	delete(mechanics, ledger.FaultTimeoutPost)
	defer func() { mechanics[ledger.FaultTimeoutPost] = saved }()
	_, err = NewWorld(Spec{Task: task, Fault: ledger.FaultTimeoutPost, Seed: 1})
	if err == nil || !strings.Contains(err.Error(), "timeout_post is not injected by the sandbox") {
		t.Errorf("NewWorld without a mechanic: %v", err)
	}
}

// Each mode the sandbox injects answers with the outcome the catalogue
// says the agent observes.
func TestObservedFromCatalogue(t *testing.T) {
	for _, m := range ledger.Faults() {
		if !m.InjectedBy(ledger.SiteSandbox) {
			continue // the proxy's
		}
		tpl := "T03"
		if m.Batch {
			tpl = "T09"
		}
		task, err := NewTask(tpl, 0)
		if err != nil {
			t.Fatal(err)
		}
		w, err := NewWorld(Spec{Task: task, Fault: m.Name, DelayS: 120, Seed: 3})
		if err != nil {
			t.Fatalf("%s: %v", m.Name, err)
		}
		if o := w.Call(task.Steps[0].Tool, task.Steps[0].Args); o.Outcome != m.Observed {
			t.Errorf("%s: observed %s, the catalogue says %s", m.Name, o.Outcome, m.Observed)
		}
	}
}
