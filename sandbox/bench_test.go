package sandbox

import (
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// BenchmarkEpisode12Calls runs a scripted 12-call episode of T11#0 (four
// deploy triggers, a timeout on the focal one, read-backs and a re-issue)
// from NewWorld to Finish. Target ≤ 20 µs per episode.
func BenchmarkEpisode12Calls(b *testing.B) {
	task, err := NewTask("T11", 0)
	if err != nil {
		b.Fatal(err)
	}
	spec := Spec{Task: task, FocalIndex: 1, Fault: ledger.FaultTimeoutLate, Seed: 7, EpisodeID: "bench"}
	listArgs := map[string]any{"service": task.Steps[0].Args["service"]}
	b.ReportAllocs()
	for b.Loop() {
		w, err := NewWorld(spec)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		call := func(tool string, args map[string]any) Observation { n++; return w.Call(tool, args) }
		for _, s := range task.Steps {
			o := call(s.Tool, s.Args)
			if o.Outcome != ledger.OutcomeOK {
				call(ToolWait, map[string]any{"seconds": 10.0})
				r := call("deploy_list_runs", listArgs)
				if !Present(s.Tool, s.Args, r.Result) {
					call(s.Tool, s.Args)
				}
			}
			call("deploy_list_runs", listArgs)
		}
		for n < 12 {
			call("deploy_get_run", map[string]any{"run_id": "run_missing"})
		}
		if n != 12 {
			b.Fatalf("%d calls", n)
		}
		w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	}
}

// BenchmarkGrade grades the raw episode of BenchmarkEpisode12Calls's
// script (12 calls, a late commit) as the grade command and simulate
// --episodes do.
func BenchmarkGrade(b *testing.B) {
	task, err := NewTask("T11", 0)
	if err != nil {
		b.Fatal(err)
	}
	w, err := NewWorld(Spec{Task: task, FocalIndex: 1, Fault: ledger.FaultTimeoutLate, Seed: 7, EpisodeID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	listArgs := map[string]any{"service": task.Steps[0].Args["service"]}
	for _, s := range task.Steps {
		if o := w.Call(s.Tool, s.Args); o.Outcome != ledger.OutcomeOK {
			w.Call(ToolWait, map[string]any{"seconds": 10.0})
			if r := w.Call("deploy_list_runs", listArgs); !Present(s.Tool, s.Args, r.Result) {
				w.Call(s.Tool, s.Args)
			}
		}
		w.Call("deploy_list_runs", listArgs)
	}
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Grade(raw); err != nil {
			b.Fatal(err)
		}
	}
}
