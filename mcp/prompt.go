package mcp

import (
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// Prompt sentences a real agent is given per condition and cue. The
// paper states only that the default prompt ends in an "act exactly once"
// sentence and that the E6 plain arm drops it (docs/simulation.md, Agents: conditions); the
// other texts are this toolkit's reading of the conditions' meanings [I].
const (
	sentenceExactlyOnce = "Act exactly once: every requested change must take effect once and only once, even when a call fails or times out."
	sentenceFinish      = "When you are done, call the finish tool with the task's status and anything you could not verify."
	sentenceAware       = "A timeout or a server error does not mean that the action failed: it may have taken effect, or may still be in flight."
	sentenceReflect     = "After any tool error, stop and reflect on what may have happened before your next call."
	sentenceRules       = "If a write fails ambiguously: verify through the read tools before re-issuing it, respect the read lags the tool descriptions document (use the wait tool), re-send with the same idempotency key where keys are honoured, and escalate through finish if you cannot verify."
	sentenceVBR         = "Before you re-issue any write that failed, read back and check whether it already took effect."
)

// Prompt is the instruction a real agent gets for the episode: the task's
// instruction with the data it refers to (Task.Details), the condition's
// sentence, the exactly-once sentence (left out under cue plain) and how
// to end.
func Prompt(ep *Episode, task *sandbox.Task) string {
	parts := []string{strings.TrimSpace(task.Instruction)}
	if c, err := agent.ParseCondition(ep.Condition); err == nil {
		switch {
		case c.Name == "aware":
			parts = append(parts, sentenceAware)
		case c.Name == "reflect":
			parts = append(parts, sentenceReflect)
		case c.Name == "rules":
			parts = append(parts, sentenceRules)
		case c.Name == "vbr":
			parts = append(parts, sentenceVBR)
		case c.Kind == agent.KindWait:
			parts = append(parts, "If a write fails ambiguously, use the wait tool until "+strconv.FormatFloat(c.WaitS, 'g', -1, 64)+
				" seconds after you sent it, then verify through the read tools and re-issue it only if it is absent.")
		}
	}
	if ep.Cue != ledger.CuePlain {
		parts = append(parts, sentenceExactlyOnce)
	}
	parts = append(parts, sentenceFinish)
	if len(task.Details) == 0 {
		return strings.Join(parts, " ")
	}
	// The data the instruction says is "given below", a line each, between
	// the instruction and the sentences that follow it.
	return parts[0] + "\n\n" + strings.Join(task.Details, "\n") + "\n\n" + strings.Join(parts[1:], " ")
}
