package sandbox

import (
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"
)

// receiptArg is the argument a gated write quotes an earlier write's
// receipt in (a hand-off, Step.Needs).
const receiptArg = "receipt"

// receiptParam is how a gated tool's spec documents the argument. It is
// listed only in worlds whose task has a hand-off into that tool, as
// idempotency_key is listed only where honoured; elsewhere it is an
// unknown argument (400), as before.
var receiptParam = Param{
	Name:      receiptArg,
	Type:      "string",
	Doc:       "the receipt an earlier write of this task returned, for a write the task says must quote it",
	MaxLength: maxKeyLen,
}

// gated reports whether some step of the task that needs a receipt uses
// tool.
func (w *World) gated(tool string) bool {
	for i := range w.task.Steps {
		if len(w.task.Steps[i].Needs) > 0 && w.task.Steps[i].Tool == tool {
			return true
		}
	}
	return false
}

// checkReceipt validates a write in a task with hand-offs: the arguments
// without the receipt must be valid for d, and a write that is a step
// needing an earlier step's receipt must quote one that step's write
// returned. It returns "" or the message of a 400-like error that says
// what is missing and which earlier write carries it. Why: the simulated
// agent honours the dependency by itself, but a real agent that skipped
// or misquoted the receipt must be caught, not credited with the step.
func (w *World) checkReceipt(d *toolDef, args map[string]any) string {
	q, quoted := args[receiptArg]
	plain := args
	if quoted {
		plain = maps.Clone(args)
		delete(plain, receiptArg)
		if msg := validate(d, plain); msg != "" {
			return msg
		}
		s, ok := q.(string)
		if !ok || s == "" || len(s) > maxKeyLen || !utf8.ValidString(s) {
			return invalid("receipt must be a string of 1–255 characters")
		}
	}
	ids := identities(d.id, plain)
	for i := range w.task.Steps {
		st := &w.task.Steps[i]
		if len(st.Needs) == 0 || st.tool != d.id || !slices.Equal(st.ids, ids) {
			continue
		}
		n := st.Needs[0] // at most one per step (loadTaskData)
		src := &w.task.Steps[n]
		carrier := src.Tool + " of step " + strconv.Itoa(n+1) + " (" + describe(src) + ")"
		if !quoted {
			return invalid("missing argument \"receipt\": this ", d.name, " (step ", strconv.Itoa(i+1),
				") must quote the receipt that the earlier write ", carrier, " returned in its response")
		}
		if s := q.(string); !slices.Contains(w.receipts[n], s) {
			return invalid("receipt ", quote(s), " was not returned by the earlier write ", carrier,
				"; this ", d.name, " (step ", strconv.Itoa(i+1), ") must quote that write's receipt")
		}
		return ""
	}
	return ""
}

// describe names a step by the arguments that tell it apart from its
// neighbours: a deploy's environment, a mail's recipient.
func describe(st *Step) string {
	for _, k := range []string{"env", "to", "platform", "table"} {
		if v, ok := st.Args[k].(string); ok {
			return k + " " + quote(v)
		}
	}
	return "step " + strconv.Itoa(st.Index+1)
}
