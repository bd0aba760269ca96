package sandbox

import (
	"github.com/limbo-toolkit/limbo/ledger"
)

// The fault mechanics (docs/simulation.md, Fault modes). The catalogue
// (ledger.Faults) says what each mode is and what the agent observes; the
// sandbox adds, per mode it can inject, what happens underneath. The fault
// hits the focal write's first valid issue: its mechanic acts on the
// request, then the agent gets the mode's observed outcome
// (ledger.FaultMode.Observed), or, for a success-looking mode, the
// service's own answer.

// A mechanic is what a fault mode does underneath to the focal write's
// first issue, sent at t0, before the agent is answered.
type mechanic func(w *World, req *request, t0 float64)

// mechanics registers the sandbox's mechanic for each mode it injects
// (ledger.SiteSandbox); a mode without one is injected elsewhere (the
// proxy) or nowhere yet, and NewWorld refuses it.
var mechanics = map[string]mechanic{
	ledger.FaultNone:            untouched,
	ledger.FaultTimeoutPre:      untouched,
	ledger.FaultHTTP500Pre:      untouched,
	ledger.FaultHTTP429Pre:      untouched,
	ledger.FaultConnRefusedPre:  untouched,
	ledger.FaultTimeoutPost:     committed,
	ledger.FaultHTTP500Post:     committed,
	ledger.FaultTimeoutLate:     heldInFlight,
	ledger.FaultTimeoutLateTail: heldInFlight,
	ledger.FaultPartialBatch:    partialCommit,
	ledger.FaultRedelivery:      redelivered,
	ledger.FaultStaleRead:       hiddenFromReads,
}

// untouched leaves the request alone: under an error it never reaches the
// service (the _pre modes: dropped, rejected, refused); under a success
// (the control) the service executes it once.
func untouched(*World, *request, float64) {}

// committed executes the request at the send; the agent sees an error
// (the response was lost, or a misleading 500).
func committed(w *World, req *request, t0 float64) { w.deliver(req, t0) }

// heldInFlight holds the request: the service commits it at t0 + delay
// (90 s, or δ from the heavy tail), and its key, if honoured, is in
// progress meanwhile (a same-key repeat gets 409).
func heldInFlight(w *World, req *request, t0 float64) {
	late := w.newRequest()
	*late = *req
	late.source = ledger.SourceLate
	if late.honoured {
		w.reserve(late)
	}
	w.schedule(t0+w.delay, late)
}

// partialCommit commits the first ⌈n/2⌉ rows of the batch before failing
// (a non-atomic batch); under an honoured key a same-key retry inserts only
// the missing rows.
func partialCommit(w *World, req *request, t0 float64) {
	req.partial = true
	w.deliver(req, t0)
}

// redelivered has the transport deliver the request a second time a few
// seconds later (same key, if any); without an honoured key or natural
// idempotency the copy commits a second effect.
func redelivered(w *World, req *request, t0 float64) {
	cp := w.newRequest()
	*cp = *req
	cp.source = ledger.SourceRedelivery
	w.schedule(t0+redeliveryDelayS, cp)
}

// hiddenFromReads marks the request so that its read path hides the effect
// for staleHideS, longer than any documented lag.
func hiddenFromReads(_ *World, req *request, _ float64) { req.stale = true }

// inject applies the world's fault to the focal write's first issue req
// (sent at t0, with latency lat if answered normally). It reports false
// when the mode looks like a success and the service answers as usual.
func (w *World) inject(req *request, t0, lat float64) (Observation, bool) {
	w.mechanic(w, req, t0)
	if w.observed == ledger.OutcomeOK {
		return Observation{}, false
	}
	o := w.faultAnswer(w.observed, lat)
	w.record(req.d.id, req.d.name, req.args, req.key, o.Outcome, o.LatencyS)
	return o, true
}

// faultAnswer is the error the agent sees for an observed outcome: a
// timeout after the client timeout, a 500 or 429 after the call's latency
// (the 429 with Retry-After), a refused connection at once.
func (w *World) faultAnswer(outcome string, lat float64) Observation {
	switch outcome {
	case ledger.OutcomeTimeout:
		return fail(outcome, w.timeoutMessage(), w.timeout)
	case ledger.OutcomeHTTP500:
		return fail(outcome, msg500, lat)
	case ledger.OutcomeHTTP429:
		o := fail(outcome, "rate limited: retry after 30 s", lat)
		o.RetryAfterS = retryAfterS
		return o
	case ledger.OutcomeConnRefused:
		return fail(outcome, "connection refused", 0)
	}
	return fail(outcome, outcome, lat)
}
