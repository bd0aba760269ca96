package plots

import (
	"errors"
	"fmt"
	"maps"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// Trace is one scripted episode of Figure 1 as the sandbox recorded it.
type Trace struct {
	World   string // "W_absent" (timeout_pre) or "W_late" (timeout_late)
	Client  string // "fresh re-issue" or "same key"
	Fault   string
	Calls   []ledger.Call
	Effects []ledger.Effect
	// Commits is the number of non-absorbed effects of the focal write.
	Commits int
}

// Figure 1's script: the verify-then-retry client reads back at
// traceReadAt seconds after the send (after the 30 s timeout, before the
// 90 s late commit).
const (
	traceTool   = "billing_create_charge"
	traceReadAt = 60.0
	traceDelay  = 90.0
	traceSeed   = 1
)

// Figure1Traces runs the verify-then-retry client (issue; on a timeout,
// wait until traceReadAt after the send, read back, re-issue if absent) on
// the first focal billing_create_charge of the task suite, in W_absent
// (timeout_pre) and W_late (timeout_late, δ = 90 s), re-issuing without a
// key and with the original's idempotency key: four traces, in the order
// (fresh, absent), (fresh, late), (key, absent), (key, late).
func Figure1Traces() ([]Trace, error) {
	var fw *sandbox.FocalWrite
	for _, f := range sandbox.FocalWrites() {
		if f.Tool == traceTool {
			fw = &f
			break
		}
	}
	if fw == nil {
		return nil, fmt.Errorf("Figure 1: the task suite has no %s write", traceTool)
	}
	task, err := sandbox.NewTask(fw.Template, 0)
	if err != nil {
		return nil, fmt.Errorf("Figure 1: %w", err)
	}
	var out []Trace
	for _, keyed := range []bool{false, true} {
		for _, world := range []struct{ name, fault string }{{"W_absent", ledger.FaultTimeoutPre}, {"W_late", ledger.FaultTimeoutLate}} {
			tr, err := runTrace(task, fw.FocalIndex, world.fault, keyed)
			if err != nil {
				return nil, err
			}
			tr.World = world.name
			tr.Client = "fresh re-issue"
			if keyed {
				tr.Client = "same key"
			}
			out = append(out, tr)
		}
	}
	return out, nil
}

// runTrace runs the script once.
func runTrace(task *sandbox.Task, focal int, fault string, keyed bool) (Trace, error) {
	spec := sandbox.Spec{Task: task, FocalIndex: focal, Fault: fault, Contract: ledger.ContractNative, Seed: traceSeed, EpisodeID: "figure1"}
	if fault == ledger.FaultTimeoutLate {
		spec.DelayS = traceDelay
	}
	w, err := sandbox.NewWorld(spec)
	if err != nil {
		return Trace{}, fmt.Errorf("Figure 1: %w", err)
	}
	step := task.Steps[focal]
	args := maps.Clone(step.Args)
	if keyed {
		args["idempotency_key"] = "fig1-key"
	}
	t0 := w.Now()
	o := w.Call(step.Tool, args)
	if o.Outcome != ledger.OutcomeTimeout {
		return Trace{}, fmt.Errorf("Figure 1: the focal write answered %s, not a timeout", o.Outcome)
	}
	if rest := t0 + traceReadAt - w.Now(); rest > 0 {
		w.Call(sandbox.ToolWait, map[string]any{"seconds": rest})
	}
	rt, ra, ok := sandbox.ReadArgsFor(step.Tool, step.Args)
	if !ok {
		return Trace{}, errors.New("Figure 1: the focal write has no read-back path")
	}
	r := w.Call(rt, ra)
	if !(r.Outcome == ledger.OutcomeOK && sandbox.Present(step.Tool, step.Args, r.Result)) {
		w.Call(step.Tool, args)
	}
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	tr := Trace{Fault: fault, Calls: raw.Calls, Effects: raw.Effects}
	for _, e := range raw.Effects {
		if e.Focal && !e.Absorbed {
			tr.Commits++
		}
	}
	return tr, nil
}
