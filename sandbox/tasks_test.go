package sandbox

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// docs/simulation.md, Task suite: instance 0 has 34 focal writes, K 4, N 5, S 13, E 11, B 1.
func TestSuiteInstance0Counts(t *testing.T) {
	tpls := Templates()
	if len(tpls) != 12 || tpls[0] != "T01" || tpls[11] != "T12" {
		t.Fatalf("templates %v, want T01..T12", tpls)
	}
	counts := map[string]int{}
	protected := 0
	for _, fw := range FocalWrites() {
		counts[fw.Class]++
		task, _ := NewTask(fw.Template, 0)
		if task.Steps[fw.FocalIndex].Protected(ledger.ContractNative) {
			protected++
		}
	}
	want := map[string]int{ledger.ClassKeyed: 4, ledger.ClassIdempotent: 5, ledger.ClassStrong: 13, ledger.ClassEventual: 11, ledger.ClassBatch: 1}
	if !reflect.DeepEqual(counts, want) {
		t.Errorf("class counts %v, want %v", counts, want)
	}
	if protected != 9 {
		t.Errorf("protected %d, want 9", protected)
	}
}

func TestInstances(t *testing.T) {
	for _, tpl := range Templates() {
		want := 3
		if tpl == "T09" {
			want = 13
		}
		if got := Instances(tpl); got < want {
			t.Errorf("%s: %d instances, want ≥ %d", tpl, got, want)
		}
		seen := map[string]bool{}
		for i := 0; i < Instances(tpl); i++ {
			task, err := NewTask(tpl, i)
			if err != nil {
				t.Fatal(err)
			}
			// Distinct instances, distinct required actions within a task.
			ids := map[string]bool{}
			for _, s := range task.Steps {
				for _, id := range s.ids {
					if ids[id] {
						t.Errorf("%s: two steps share the identity %q", task.ID, id)
					}
					ids[id] = true
				}
			}
			key := task.Instruction
			if seen[key] {
				t.Errorf("%s: instruction repeats an earlier instance", task.ID)
			}
			seen[key] = true
			// Focal structure repeats across instances.
			t0, _ := NewTask(tpl, 0)
			for j := range task.Steps {
				if task.Steps[j].Tool != t0.Steps[j].Tool || task.Steps[j].Class != t0.Steps[j].Class {
					t.Errorf("%s step %d: structure differs from instance 0", task.ID, j)
				}
			}
		}
	}
	if _, err := NewTask("T99", 0); err == nil {
		t.Error("unknown template: want error")
	}
	if _, err := NewTask("T01", -1); err == nil {
		t.Error("negative instance: want error")
	}
	if _, err := NewTask("T01", 1000); err == nil {
		t.Error("instance out of range: want error")
	}
}

func TestNewTaskDeterministic(t *testing.T) {
	taskCache.Clear()
	a, _ := NewTask("T03", 2)
	taskCache.Clear()
	b, _ := NewTask("T03", 2)
	if a == b || !reflect.DeepEqual(a, b) {
		t.Error("NewTask is not a pure function of (template, instance)")
	}
	if a.Steps[0].Args["amount_cents"] != float64(25000) {
		t.Errorf("T03#2 amount %v, want 25000 (amount1 index 2 mod 3)", a.Steps[0].Args["amount_cents"])
	}
}

func TestUseTaskDataRejectsBadData(t *testing.T) {
	for _, bad := range []string{
		`{`,
		`{"templates":[{"id":"","instances":1,"steps":[{"tool":"mail_send","args":{}}]}]}`,
		`{"templates":[{"id":"X","instances":1,"steps":[{"tool":"data_query","args":{"table":"t"}}]}]}`,
		`{"templates":[{"id":"X","instances":1,"steps":[{"tool":"mail_send","args":{"to":"a"}}]}]}`,
	} {
		if _, err := UseTaskData([]byte(bad)); err == nil {
			t.Errorf("data %s: want error", bad)
		}
	}
	if len(Templates()) != 12 {
		t.Error("a rejected data file must leave the suite unchanged")
	}
}

// redeliveryDuplicates runs every instance-0 focal write under redelivery
// with a client that attaches a key to every write, and counts duplicated
// episodes.
func redeliveryDuplicates(t *testing.T, contract string) (dup, n int) {
	t.Helper()
	for _, fw := range FocalWrites() {
		task, _ := NewTask(fw.Template, 0)
		w, err := NewWorld(Spec{Task: task, FocalIndex: fw.FocalIndex, Fault: ledger.FaultRedelivery, Contract: contract, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range task.Steps {
			args := map[string]any{"idempotency_key": "k-" + task.ID + "-" + string(rune('a'+s.Index))}
			for k, v := range s.Args {
				args[k] = v
			}
			if o := w.Call(s.Tool, args); o.Outcome != ledger.OutcomeOK {
				t.Fatalf("%s step %d: %s %s", task.ID, s.Index, o.Outcome, o.Error)
			}
		}
		ep, err := Grade(w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted}))
		if err != nil {
			t.Fatal(err)
		}
		n++
		if ep.Duplicated {
			dup++
		}
	}
	return dup, n
}

// docs/simulation.md, Mechanical identities: redelivery duplicates 25/34 natively even for a client
// that always attaches keys; 0/34 under keys-everywhere.
func TestRedeliveryMechanics(t *testing.T) {
	if dup, n := redeliveryDuplicates(t, ledger.ContractNative); dup != 25 || n != 34 {
		t.Errorf("native redelivery duplicates %d/%d, want 25/34", dup, n)
	}
	if dup, n := redeliveryDuplicates(t, ledger.ContractKeysEverywhere); dup != 0 || n != 34 {
		t.Errorf("keys-everywhere redelivery duplicates %d/%d, want 0/34", dup, n)
	}
}

// Which writes are protected follows from the data file: turning T10's
// contact insert into an upsert in the data alone gives 24/34.
func TestProtectionFollowsData(t *testing.T) {
	data := DefaultTaskData()
	old := []byte(`{"tool": "data_insert", "args": {"table": "contacts", "row": {"id": "{customer}-c1", "customer_id": "{customer}", "email": "billing+{customer}@example.com"}}}`)
	repl := []byte(`{"tool": "data_upsert", "args": {"table": "contacts", "key": "{customer}-c1", "row": {"customer_id": "{customer}", "email": "billing+{customer}@example.com"}}}`)
	if !bytes.Contains(data, old) {
		t.Fatal("test data: T10 contact insert not found")
	}
	restore, err := UseTaskData(bytes.Replace(data, old, repl, 1))
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	if dup, n := redeliveryDuplicates(t, ledger.ContractNative); dup != 24 || n != 34 {
		t.Errorf("with one more protected write: %d/%d, want 24/34", dup, n)
	}
}

// A hand-built task (not from NewTask) gets its focal step completed from
// the catalogue.
func TestHandBuiltTask(t *testing.T) {
	task := &Task{Template: "X", ID: "X#0", Service: "mail", Steps: []Step{
		{Tool: "mail_send", Args: map[string]any{"to": "a@b.example", "subject": "s", "body": "b"}},
	}}
	w, err := NewWorld(Spec{Task: task, Fault: ledger.FaultRedelivery})
	if err != nil {
		t.Fatal(err)
	}
	w.Call("mail_send", task.Steps[0].Args)
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	if !raw.FaultFired || raw.WriteClass != ledger.ClassEventual || len(raw.Effects) != 2 {
		t.Errorf("fired %v class %s effects %d, want true, eventual, 2", raw.FaultFired, raw.WriteClass, len(raw.Effects))
	}
	bad := &Task{ID: "Y#0", Steps: []Step{{Tool: "data_query"}}}
	if _, err := NewWorld(Spec{Task: bad}); err == nil {
		t.Error("focal step on a read tool: want error")
	}
}
