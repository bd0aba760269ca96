package sandbox_test

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// A lost acknowledgement on a deploy: the agent sees a timeout, reads back
// through the documented read path, finds the run and does not re-issue.
func Example() {
	task, _ := sandbox.NewTask("T11", 0)
	w, _ := sandbox.NewWorld(sandbox.Spec{Task: task, FocalIndex: 0, Fault: ledger.FaultTimeoutPost, Seed: 1, EpisodeID: "ex"})
	for _, s := range task.Steps {
		o := w.Call(s.Tool, s.Args)
		if o.Outcome != ledger.OutcomeOK {
			fmt.Printf("%s: %s after %g s\n", s.Tool, o.Outcome, o.LatencyS)
			rt, ra, _ := sandbox.ReadArgsFor(s.Tool, s.Args)
			if sandbox.Present(s.Tool, s.Args, w.Call(rt, ra).Result) {
				fmt.Println("read back: present, not re-issuing")
				continue
			}
			w.Call(s.Tool, s.Args)
		}
	}
	ep, _ := sandbox.Grade(w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted}))
	fmt.Println("duplicated:", ep.Duplicated, "eos:", ep.EOS, "recovery:", ep.Recovery)
	// Output:
	// deploy_trigger: timeout after 30 s
	// read back: present, not re-issuing
	// duplicated: false eos: true recovery: verify_then_skip
}
