package agent

import (
	"context"
	"math"
	"reflect"
	"strconv"
	"time"
	"unsafe"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// proxy is a guard in front of the services, as a deployed proxy applies
// one (docs/simulation.md, Guards compared both ways): the guard package's
// policy (derived keys, client keys or the action ledger) over its
// in-memory store, in the world's virtual time. It forwards what the
// policy forwards and answers the rest itself, recording each answer in
// the world's ledger (World.Answered) since the call reached no service.
// It sees what a proxy sees: the calls, the answers, and the read-backs it
// makes to settle an outcome it never learned.
type proxy struct {
	arm   string
	g     *guard.Guard
	next  Caller         // the world, or the schedule of several workers
	world *sandbox.World // where the proxy's own answers are recorded
	task  *sandbox.Task
	specs map[string]sandbox.ToolSpec
	// stepKey is the harness's key of the step being written (client
	// keys): the run, the plan and the step.
	stepKey func() string
	// results holds the answers the store refers to: a record's Result is
	// an index into it.
	results []sandbox.Observation
	// known lists the executions the proxy has learned of (a success it
	// forwarded, a verification that found one), with when they were
	// sent: a read-back shows an attempt it never heard back from executed
	// only when it lists more of the action created since that attempt
	// was sent than the proxy knows were sent since. Their actions are
	// worked out only then, which is rare.
	known []execution
	sched *workers // nil when one agent runs at a time
	// observe, if set, is told every decision and every attempt's end
	// (tests).
	observe func(proxyEvent)

	// Storage of the first few answers, executions and fingerprints,
	// allocated with the proxy.
	resultsN [4]sandbox.Observation
	knownN   [4]execution

	// memo remembers the facts of the last calls' arguments (facts).
	memo         [8]argFacts
	nmemo, nextM int
}

// execution is a write the proxy knows executed: its call and when it
// was sent.
type execution struct {
	tool string
	args map[string]any
	sent float64
}

// proxyEvent is a decision of the proxy's guard on a call, or (End set)
// how a forwarded attempt ended.
type proxyEvent struct {
	Tool     string
	Call     guard.Call
	Decision guard.Decision
	End      guard.End
}

// epoch is virtual time zero.
var epoch = time.Unix(0, 0).UTC()

func vt(s float64) time.Time { return epoch.Add(time.Duration(math.Round(s * 1e9))) }

// guardConfig is each arm's configuration (ledger.GuardArms says it in
// words).
func guardConfig(arm string, r *Replay) (guard.Config, error) {
	switch arm {
	case ledger.GuardDerived:
		return guard.Config{Policy: guard.Derived, TTL: seconds(r.DerivedTTLS)}, nil
	case ledger.GuardKeys:
		return guard.Config{Policy: guard.Keys, InFlight: guard.InFlightRefuse, CacheErrors: true, TTL: seconds(r.KeysTTLS)}, nil
	case ledger.GuardLedger:
		return guard.Config{Policy: guard.Ledger, VerifyAfter: seconds(r.InFlightBoundS)}, nil
	}
	return guard.Config{}, errUnknownArm(arm)
}

type errUnknownArm string

func (e errUnknownArm) Error() string { return "agent: no proxy for guard " + strconv.Quote(string(e)) }

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * 1e9)) }

// init makes p the proxy of arm in front of next, for one episode of task,
// applying g (reset) over store (emptied). Under the action ledger the
// task's confirmation issues one authorisation per required write, to its
// logical action.
func (p *proxy) init(arm string, r *Replay, next Caller, world *sandbox.World, task *sandbox.Task, contract string, stepKey func() string, g *guard.Guard, store *guard.MemoryStore) error {
	cfg, err := guardConfig(arm, r)
	if err != nil {
		return err
	}
	store.Reset()
	if err := g.Reset(cfg, store); err != nil {
		return err
	}
	*p = proxy{arm: arm, g: g, next: next, world: world, task: task, specs: catalogue(contract), stepKey: stepKey}
	p.results, p.known = p.resultsN[:0], p.knownN[:0]
	if arm == ledger.GuardLedger {
		for i := range task.Steps {
			c := guard.Call{Tool: task.Steps[i].Tool, Fingerprint: task.ActionKey(i), Scope: task.ID}
			if err := g.Issue(context.Background(), c, 1, vt(next.Now())); err != nil {
				return err
			}
		}
	}
	return nil
}

// Now is the world's clock.
func (p *proxy) Now() float64 { return p.next.Now() }

// Advance moves the world's clock.
func (p *proxy) Advance(dt float64) { p.next.Advance(dt) }

// call is what the guard knows of a write: under the action ledger the
// logical action it is (sandbox.Task.ActionOf, the catalogue's identity
// rules), else a fingerprint of its arguments; under client keys, the
// harness's step key.
func (p *proxy) call(tool string, args map[string]any) guard.Call {
	c := guard.Call{Tool: tool, Scope: p.task.ID}
	switch p.arm {
	case ledger.GuardLedger:
		if i := p.actionOf(tool, args); i >= 0 {
			c.Fingerprint = p.task.ActionKey(i)
		} else {
			c.Fingerprint = "no action:" + tool // no authorisation covers it
		}
		return c
	case ledger.GuardKeys:
		c.Key = p.stepKey()
	}
	c.Fingerprint = p.fingerprint(tool, args)
	return c
}

// fingerprint is the tool and the canonical arguments without the key:
// equal exactly when guard.Effect's fingerprints are (members sorted,
// numbers by value), without the hash a deployed guard stores instead of
// them.
func (p *proxy) fingerprint(tool string, args map[string]any) string {
	m := p.facts(tool, args)
	if m.fp == "" {
		m.fp = makeFingerprint(tool, args)
	}
	return m.fp
}

// actionOf is sandbox.Task.ActionOf, remembered.
func (p *proxy) actionOf(tool string, args map[string]any) int {
	m := p.facts(tool, args)
	if m.step == stepUnknown {
		m.step = p.task.ActionOf(tool, args)
	}
	return m.step
}

// argFacts is what the proxy worked out about the arguments of a call:
// they are known by their map, since nobody changes a call's arguments
// once sent (a layer that adds to them adds to its copy; see
// Agent.write) and an agent sends one map again when it retries or reads
// back, so a repeat is recognised without working the canonical form or
// the step match out again.
type argFacts struct {
	args unsafe.Pointer // the map
	tool string
	step int    // ActionOf, or stepUnknown
	fp   string // the fingerprint, or "" until made
}

const stepUnknown = -2

// facts returns the facts remembered of args (a new, empty entry the
// first time, which replaces the oldest when the memory is full).
func (p *proxy) facts(tool string, args map[string]any) *argFacts {
	id := reflect.ValueOf(args).UnsafePointer() // the map's identity
	for i := range p.memo[:p.nmemo] {
		if m := &p.memo[i]; m.args == id && m.tool == tool {
			return m
		}
	}
	var m *argFacts
	if p.nmemo < len(p.memo) {
		m = &p.memo[p.nmemo]
		p.nmemo++
	} else {
		m = &p.memo[p.nextM]
		p.nextM = (p.nextM + 1) % len(p.memo)
	}
	*m = argFacts{args: id, tool: tool, step: stepUnknown}
	return m
}

// makeFingerprint makes fingerprint's string.
func makeFingerprint(tool string, args map[string]any) string {
	var buf [256]byte
	b := append(buf[:0], tool...)
	b = append(b, 0)
	return string(sandbox.AppendCanonicalArgs(b, tool, args))
}

// maxDecisions bounds the decisions on one call (a wait ended by an
// attempt that failed is decided again; so is a settled unknown outcome).
const maxDecisions = 8

// Call applies the guard to one call.
func (p *proxy) Call(tool string, args map[string]any) sandbox.Observation {
	spec, ok := p.specs[tool]
	if !ok || !spec.Write {
		return p.next.Call(tool, args)
	}
	ctx := context.Background()
	c := p.call(tool, args)
	for range maxDecisions {
		d, err := p.g.Begin(ctx, c, vt(p.next.Now()))
		if err != nil {
			return p.answer(tool, args, ledger.OutcomeGuardRefused, fail(ledger.OutcomeHTTP500, "guard: "+err.Error()))
		}
		if p.observe != nil {
			p.observe(proxyEvent{Tool: tool, Call: c, Decision: d})
		}
		switch d.Outcome {
		case guard.Forward:
			return p.forward(tool, args, d.Ticket)
		case guard.Replay, guard.Consumed:
			return p.answer(tool, args, ledger.OutcomeGuardReplay, p.stored(d.Result))
		case guard.ReplayError:
			return p.answer(tool, args, ledger.OutcomeGuardError, p.stored(d.Result))
		case guard.Conflict:
			return p.answer(tool, args, ledger.OutcomeGuardRefused, fail(ledger.OutcomeHTTP400, "invalid request: idempotency key reused with different arguments"))
		case guard.RefuseInFlight:
			return p.answer(tool, args, ledger.OutcomeGuardRefused, fail(ledger.OutcomeHTTP409, "conflict: a request with this idempotency key is still being processed"))
		case guard.Unauthorised:
			return p.answer(tool, args, ledger.OutcomeGuardRefused, fail(ledger.OutcomeHTTP400, "refused: no authorisation covers this action"))
		case guard.AtCapacity:
			return p.answer(tool, args, ledger.OutcomeGuardRefused, fail(ledger.OutcomeHTTP429, "guard at capacity"))
		case guard.Wait:
			if p.sched == nil {
				// One agent at a time: an attempt in flight is always
				// the caller's own and has ended; refuse rather than
				// wait for nothing.
				return p.answer(tool, args, ledger.OutcomeGuardRefused, fail(ledger.OutcomeHTTP409, "conflict: a request for this action is still being processed"))
			}
			p.sched.block(d.Key) // until the attempt ends; then decide again
		case guard.UnknownOutcome:
			if o, done := p.settle(ctx, tool, args, c, d); done {
				return o
			}
		}
	}
	return p.answer(tool, args, ledger.OutcomeGuardRefused, fail(ledger.OutcomeHTTP409, "conflict: the guard could not settle this action"))
}

// forward sends the call and records how it ended: a success, a definite
// error, or no answer. Whether an HTTP 500 is definite is each arm's
// judgement: a gateway and Stripe take it as the answer (Stripe stores it);
// the action ledger, which may not admit a second execution, cannot rule
// out that the write committed before it (the paper's http500_post), so to
// it the outcome is unknown.
func (p *proxy) forward(tool string, args map[string]any, t guard.Ticket) sandbox.Observation {
	sent := p.next.Now()
	o := p.next.Call(tool, args)
	var end guard.End
	switch o.Outcome {
	case ledger.OutcomeOK:
		end = guard.Succeeded
	case ledger.OutcomeTimeout:
		end = guard.Lost
	case ledger.OutcomeConnRefused:
		end = guard.NotSent
	case ledger.OutcomeHTTP500:
		end = guard.Failed
		if p.arm == ledger.GuardLedger {
			end = guard.Lost
		}
	default:
		end = guard.Failed
	}
	var res []byte
	if end == guard.Succeeded || end == guard.Failed {
		res = p.keep(o)
	}
	if end == guard.Succeeded {
		p.known = append(p.known, execution{tool, args, sent})
	}
	// A MemoryStore does not fail, and the ticket is live.
	_ = p.g.Finish(context.Background(), t, end, res, vt(p.next.Now()))
	if p.observe != nil {
		p.observe(proxyEvent{Tool: tool, Call: p.call(tool, args), End: end})
	}
	if p.sched != nil {
		p.sched.release(t.Key())
	}
	return o
}

// settle verifies an attempt whose outcome the guard never learned: once
// the guard's bound on in-flight time and the read path's documented lag
// have passed since it was sent, the proxy reads the write back, records
// what it found (Resolve) and acts on the new decision. done is false when
// that decision must be made again (an attempt now in flight).
func (p *proxy) settle(ctx context.Context, tool string, args map[string]any, c guard.Call, d guard.Decision) (sandbox.Observation, bool) {
	// The read-back looks for the action, by the arguments of the step it
	// is (a reworded comment is searched for by the comment's text).
	act, ref := p.action(tool, args)
	rt, ra, ok := sandbox.ReadArgsFor(tool, ref)
	if !ok {
		return p.answer(tool, args, ledger.OutcomeGuardRefused, fail(ledger.OutcomeHTTP409, "conflict: the outcome of an earlier request is unknown and cannot be read back")), true
	}
	// (The store's time is the world's to the nanosecond: a millisecond's
	// slack keeps a commit at the very send in.)
	since := d.Since.Sub(epoch).Seconds() - 1e-3
	lag := p.specs[tool].DocumentedLagFor(args)
	at := math.Max(d.VerifyAt.Sub(epoch).Seconds(), since+lag+1)
	if w := at - p.next.Now(); w > 0 {
		p.next.Advance(w)
	}
	readAt := p.next.Now()
	read := p.next.Call(rt, ra)
	executed, missing := false, []any(nil)
	if read.Outcome == ledger.OutcomeOK {
		// The executions it knows of that the listing can show yet: sent
		// since, and longer ago than the documented lag.
		known := 0
		for _, x := range p.known {
			if x.tool == tool && x.sent >= since && x.sent+lag < readAt {
				if a, _ := p.action(x.tool, x.args); a == act {
					known++
				}
			}
		}
		executed = sandbox.ActionCountSince(tool, ref, read.Result, since) > known
		if isBatch(tool) && !executed {
			missing = missingRows(tool, args, read.Result)
		}
	}
	var res []byte
	if executed {
		res = p.keep(guardResult(tool))
		p.known = append(p.known, execution{tool, ref, since})
	}
	d2, err := p.g.Resolve(ctx, c, executed, res, vt(p.next.Now()))
	if err != nil {
		return p.answer(tool, args, ledger.OutcomeGuardRefused, fail(ledger.OutcomeHTTP409, "conflict: "+err.Error())), true
	}
	switch d2.Outcome {
	case guard.Forward:
		if len(missing) > 0 && len(missing) < len(rowList(args["rows"])) {
			// A batch found in part: send the rows it lacks.
			next := make(map[string]any, len(args))
			for k, v := range args {
				next[k] = v
			}
			next["rows"] = missing
			args = next
		}
		return p.forward(tool, args, d2.Ticket), true
	case guard.Replay, guard.Consumed:
		return p.answer(tool, args, ledger.OutcomeGuardReplay, p.stored(d2.Result)), true
	}
	return sandbox.Observation{}, false
}

// action names the logical action of a write (the task's step it is, by
// the catalogue's identity rules, else its own identity) and the arguments
// a read-back is matched against: the step's, so that a reworded write is
// found by the action it is.
func (p *proxy) action(tool string, args map[string]any) (string, map[string]any) {
	if i := p.actionOf(tool, args); i >= 0 {
		return p.task.ActionKey(i), p.task.Steps[i].Args
	}
	return "write:" + tool + "\x00" + Canonical(args), args
}

// keep stores an answer and returns the record's reference to it.
func (p *proxy) keep(o sandbox.Observation) []byte {
	p.results = append(p.results, o)
	if i := len(p.results) - 1; i < len(refs) {
		return refs[i] // the guard copies what it stores and returns
	}
	return strconv.AppendInt(nil, int64(len(p.results)-1), 10)
}

// refs are the references of the first answers a proxy keeps, made once.
var refs = func() (out [16][]byte) {
	for i := range out {
		out[i] = strconv.AppendInt(nil, int64(i), 10)
	}
	return out
}()

// stored returns the answer a record refers to, as the guard gives it:
// at once (no latency). A record without one (a consumed action settled
// by a read-back) answers that the action was done.
func (p *proxy) stored(ref []byte) sandbox.Observation {
	i, err := strconv.Atoi(string(ref))
	if err != nil || i < 0 || i >= len(p.results) {
		return sandbox.Observation{Outcome: ledger.OutcomeOK, Result: map[string]any{"status": "already_committed"}}
	}
	o := p.results[i]
	o.LatencyS = 0
	return o
}

// answer records a write the proxy answered itself and returns the answer.
func (p *proxy) answer(tool string, args map[string]any, recorded string, o sandbox.Observation) sandbox.Observation {
	p.world.Answered(tool, args, recorded)
	return o
}

// fail is an error answer of the proxy's own.
func fail(outcome, msg string) sandbox.Observation {
	return sandbox.Observation{Outcome: outcome, Error: msg}
}
