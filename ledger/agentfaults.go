package ledger

import "slices"

// The agent-side catalogue (docs/simulation.md, Agent-side faults): faults
// of the agent's own process or plan, which combine with a service fault
// mode rather than replace it (a crash after a timeout_late), and the
// guards a simulated proxy puts in front of the services. They are the
// values of the agent_fault, crash_window and guard columns, which a
// ledger carries only when its design has these axes (the "replay"
// column group, docs/ledger.md). The mechanics are the agent package's
// (process.go, a table keyed by the catalogue's name), since what they
// model is the agent's process, its journal and its re-synthesis of a
// write.

// Agent-side faults.
const (
	AgentFaultNone        = "none"
	AgentFaultCrashResume = "crash_resume"
	AgentFaultRunRetry    = "run_retry"
	AgentFaultReplan      = "replan"
	AgentFaultDelegate    = "delegate"
	AgentFaultConcurrent  = "concurrent"
)

// Crash windows of crash_resume: where the process's last checkpoint lies
// relative to the focal write's journaled result.
const (
	WindowBeforeJournal = "before_journal" // the checkpoint precedes the focal write's journaled result
	WindowAfterJournal  = "after_journal"  // the checkpoint holds it
)

// AgentFault is one agent-side fault of the catalogue.
type AgentFault struct {
	Name  string // the agent_fault value
	Label string // for a reader ("crash and resume")
	// In words, the columns of docs/simulation.md's table: what happens
	// to the agent, what is sent again, and the recovery that keeps every
	// effect single.
	Happens, Repeats, Recovery string
	// Resynthesis: the writes sent again are written anew by a model, so
	// their arguments follow the perturbation model (docs/simulation.md,
	// Re-synthesised arguments); otherwise they repeat the journaled
	// arguments exactly.
	Resynthesis bool
	// NewRun: the writes sent again come from another run of the harness
	// (a retried run, a sub-agent, a second worker), whose step keys are
	// not the first run's.
	NewRun bool
	// Windows are the crash windows the fault is played in, each a world
	// of its own (crash_window); empty for the other faults.
	Windows []string
}

var agentFaults = [...]AgentFault{
	{Name: AgentFaultNone, Label: "no agent fault",
		Happens: "the agent runs the task once, in one process", Repeats: "nothing but the agent's own recovery",
		Recovery: "none needed"},
	{Name: AgentFaultCrashResume, Label: "crash and resume",
		Happens:  "the process dies at a seeded point after the focal write was sent and resumes from its last checkpoint",
		Repeats:  "the steps after the checkpoint, with their journaled arguments: the focal write itself when the checkpoint precedes its journaled result",
		Recovery: "a key that survives the restart (the run's step key), or an action ledger",
		Windows:  []string{WindowBeforeJournal, WindowAfterJournal}},
	{Name: AgentFaultRunRetry, Label: "run retried",
		Happens:  "a later step fails and the whole run is retried from the start",
		Repeats:  "every step before the failure, re-synthesised",
		Recovery: "an action ledger (a retried run has new step keys)", Resynthesis: true, NewRun: true},
	{Name: AgentFaultReplan, Label: "re-plan",
		Happens:  "after a failure the agent re-plans and re-issues the focal write",
		Repeats:  "the focal write, re-synthesised",
		Recovery: "an action ledger that matches the re-synthesised write to its authorisation", Resynthesis: true},
	{Name: AgentFaultDelegate, Label: "delegation",
		Happens:  "after the focal write the task is handed to a sub-agent that does not see the parent's history",
		Repeats:  "the focal write and the steps after it, re-synthesised, from another run",
		Recovery: "an action ledger", Resynthesis: true, NewRun: true},
	{Name: AgentFaultConcurrent, Label: "two workers",
		Happens:  "two workers pick up the same task; the second starts a few seconds after the first",
		Repeats:  "every step, by the second worker, re-synthesised",
		Recovery: "an action ledger (a derived key catches only exact copies)", Resynthesis: true, NewRun: true},
}

// AgentFaults returns the agent-side faults in documentation order.
func AgentFaults() []AgentFault {
	out := slices.Clone(agentFaults[:])
	for i := range out {
		out[i].Windows = slices.Clone(out[i].Windows)
	}
	return out
}

// AgentFaultByName returns the catalogue's entry for the agent-side fault
// named name.
func AgentFaultByName(name string) (AgentFault, bool) {
	for _, f := range agentFaults {
		if f.Name == name {
			f.Windows = slices.Clone(f.Windows)
			return f, true
		}
	}
	return AgentFault{}, false
}

// Guard arms: what stands between the agent and the services in a
// simulated episode (the guard column).
const (
	GuardNone    = "none"
	GuardPaper   = "paper"
	GuardDerived = "derived"
	GuardKeys    = "keys"
	GuardLedger  = "ledger"
)

// GuardArm is one guard of the catalogue.
type GuardArm struct {
	Name  string // the guard value
	Label string // for a reader
	// Doc says what the guard is and how it is configured, in a sentence
	// (docs/simulation.md, Guards compared both ways).
	Doc string
}

var guardArms = [...]GuardArm{
	{Name: GuardNone, Label: "no guard", Doc: "every call reaches the service"},
	{Name: GuardPaper, Label: "the paper's guard",
		Doc: "the paper's read-back guard (condition guard): fills a key derived from the task and the arguments where the contract honours keys, and reads back before forwarding a repeat of an ambiguous write"},
	{Name: GuardDerived, Label: "derived keys",
		Doc: "a key derived from the tool and the canonical arguments, kept for a TTL, as MCP gateways do; errors are not cached"},
	{Name: GuardKeys, Label: "client keys",
		Doc: "the run's step key, as a durable-execution harness passes it; a repeat in flight is refused, a definite error (a 500 included) is cached and replayed"},
	{Name: GuardLedger, Label: "action ledger",
		Doc: "a durable action ledger: the task's confirmation issues one authorisation per required write, bound to its logical action; each is consumed once (issue–prepare–commit)"},
}

// GuardArms returns the guards in documentation order.
func GuardArms() []GuardArm { return slices.Clone(guardArms[:]) }

func agentFaultNames() []string {
	out := make([]string, len(agentFaults))
	for i, f := range agentFaults {
		out[i] = f.Name
	}
	return out
}

func guardArmNames() []string {
	out := make([]string, len(guardArms))
	for i, g := range guardArms {
		out[i] = g.Name
	}
	return out
}
