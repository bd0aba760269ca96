package agent

import (
	"maps"
	"math"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

const keyArg = "idempotency_key"

// maxCallsPerStep bounds the calls spent on one write, so a pathological
// profile or world cannot loop.
const maxCallsPerStep = 40

// maxFailures is how many failed answers (a timeout, a 5xx, a 429, a
// refused connection) one write may meet before the agent gives it up:
// the same error again and again (a guard replaying a cached error) is
// not worth a fourth try. The paper's worlds fail a write once at most,
// so it never binds there.
const maxFailures = 3

// Agent is one simulated agent for one episode. It decides only from the
// tool specifications, the observations its calls return, the clock and its
// own draws; it never sees the fault mode, the delay or the hidden outcome.
type Agent struct {
	P    Params
	T    Timing
	Cond Condition
	D    *Draws

	c     Caller
	tools []sandbox.ToolSpec
	keyN  int
	calls int
	fails int // failed answers to the current write (maxFailures)

	// Hand-offs (sandbox.Step.Needs): whether the agent holds each step's
	// receipt, and the arguments of each step's last send (a same-key
	// repeat of them returns the stored result, receipt included).
	receipt  []string // "" until held
	lastArgs []map[string]any
	cur      int // index of the step being written

	// What the final report is made from.
	ambiguous, gaveUp, escalated, failed bool
	stopped                              bool // handed the rest of the task over
	notes                                []string

	// The harness's process model (process.go): nil for the paper's one
	// process, which starts at step 0 and is never interrupted.
	proc *process
	from int // the first step this process performs (a resumed one skips the journaled steps)
}

// New returns an agent with effective propensities p in condition cond.
func New(p Params, t Timing, cond Condition, d *Draws) *Agent {
	return &Agent{P: p, T: t, Cond: cond, D: d}
}

// Run performs the task's writes in order through c and returns the final
// report.
func (a *Agent) Run(c Caller, task *sandbox.Task, tools []sandbox.ToolSpec) ledger.FinalReport {
	a.c, a.tools = c, tools
	if handoffs(task) && a.receipt == nil {
		// (A resumed process starts with the receipts its run journaled.)
		a.receipt = make([]string, len(task.Steps))
		a.lastArgs = make([]map[string]any, len(task.Steps))
	}
	for i := range task.Steps {
		if a.stopped {
			break
		}
		if i < a.from {
			continue // journaled by an earlier process of the run
		}
		a.calls, a.fails, a.cur = 0, 0, i
		if !a.haveReceipts(task, &task.Steps[i]) {
			break
		}
		a.calls, a.fails = 0, 0
		a.write(&task.Steps[i])
		if a.proc != nil && a.proc.journaled(a, i) {
			// A failure after the step made the agent re-plan: the
			// step's write is issued again, written anew.
			a.calls, a.fails = 0, 0
			a.write(&task.Steps[i])
		}
	}
	return a.report()
}

func handoffs(task *sandbox.Task) bool {
	for i := range task.Steps {
		if task.Steps[i].Receipt {
			return true
		}
	}
	return false
}

// haveReceipts makes sure the agent holds the receipt of every earlier step
// that st must quote. A receipt is only in a write's response: after a lost
// acknowledgement a read-back shows the effect but not its receipt, a guard's
// "already committed" answer has none, and a blind re-issue brings one (with
// the duplicate). Holding a key, the agent repeats the request with the same
// key, which the description promises to be safe and which returns the
// stored result; without one, a repeat would be a second effect, so it stops
// and hands the rest of the task over (escalated). Nothing here is drawn:
// this is what any agent can and cannot do, not a propensity.
func (a *Agent) haveReceipts(task *sandbox.Task, st *sandbox.Step) bool {
	for _, n := range st.Needs {
		if a.receipt[n] != "" {
			continue
		}
		src := &task.Steps[n]
		if args := a.lastArgs[n]; args != nil {
			if _, keyed := args[keyArg]; keyed && a.spec(src.Tool).KeyHonouredFor(args) {
				cur := a.cur
				a.cur = n
				obs := a.call(src.Tool, args)
				a.handle(src, a.spec(src.Tool), args, a.c.Now(), obs)
				a.cur = cur
				if a.receipt[n] != "" {
					continue
				}
			}
		}
		a.stopped, a.escalated = true, true
		a.notes = append(a.notes, st.Tool+" needs the receipt of "+src.Tool+", which was lost with its response; handed the rest of the task over")
		return false
	}
	return true
}

func (a *Agent) spec(name string) sandbox.ToolSpec {
	for i := range a.tools {
		if a.tools[i].Name == name {
			return a.tools[i]
		}
	}
	return sandbox.ToolSpec{Name: name}
}

func (a *Agent) has(tool string) bool {
	for i := range a.tools {
		if a.tools[i].Name == tool {
			return true
		}
	}
	return false
}

// think advances the clock by one model turn.
func (a *Agent) think() {
	a.c.Advance(a.T.ThinkMinS + a.D.own()*(a.T.ThinkMaxS-a.T.ThinkMinS))
}

func (a *Agent) call(tool string, args map[string]any) sandbox.Observation {
	a.think()
	a.calls++
	return a.c.Call(tool, args)
}

// wait calls the wait tool (a sleep tool, as harnesses offer).
func (a *Agent) wait(s float64) {
	if s < 0.5 {
		return
	}
	a.call(sandbox.ToolWait, map[string]any{"seconds": float64(int64(s*10+0.5)) / 10})
}

// waitUntil takes a model turn, then waits (with the wait tool) until
// virtual time t if that is still ahead.
func (a *Agent) waitUntil(t float64) {
	a.think()
	if dt := t - a.c.Now(); dt >= 0.5 {
		a.calls++
		a.c.Call(sandbox.ToolWait, map[string]any{"seconds": float64(int64(dt*10+0.5)) / 10})
	}
}

func (a *Agent) newKey() string {
	a.keyN++
	return "k-" + strconv.FormatUint(a.D.ep.Uint64()>>16, 36) + "-" + strconv.Itoa(a.keyN)
}

func (a *Agent) write(st *sandbox.Step) {
	spec := a.spec(st.Tool)
	// The task's arguments, shared by every episode of its world: sent
	// as they are (no one changes a call's arguments: a layer that adds
	// to them, like the paper's guard, adds to its copy) and copied only
	// to add a receipt or a key here.
	args := st.Args
	if a.proc != nil {
		args = a.proc.synthesize(a, st, args)
	}
	copied := false
	add := func(k string, v any) {
		if !copied {
			args, copied = maps.Clone(args), true
		}
		args[k] = v
	}
	for _, n := range st.Needs {
		// Quote the earlier write's receipt, as the instruction asks
		// (haveReceipts made sure it is held); the sandbox rejects the
		// write without it.
		add("receipt", a.receipt[n])
	}
	key := ""
	if spec.KeyHonouredFor(args) {
		// A key API the native contract already offers is a familiar one
		// (Stripe-like): k_nat; a key only the keys-everywhere
		// descriptions offer: k_ke.
		k := a.P.KKe
		if native, ok := catalogue(ledger.ContractNative)[st.Tool]; ok && native.KeyHonouredFor(args) {
			k = a.P.KNat
		}
		if a.D.u(slotKey) < k {
			key = a.newKey()
			add(keyArg, key)
		}
	}
	a.think()
	a.calls++
	t0 := a.c.Now()
	obs := a.c.Call(st.Tool, args)
	if a.proc != nil {
		a.proc.sent(a, st, t0, obs)
	}
	a.handle(st, spec, args, t0, obs)
}

// handle reacts to the response to a write.
func (a *Agent) handle(st *sandbox.Step, spec sandbox.ToolSpec, args map[string]any, t0 float64, obs sandbox.Observation) {
	conflicts := 0
	for a.calls < maxCallsPerStep {
		if a.receipt != nil {
			a.lastArgs[a.cur] = args
		}
		switch obs.Outcome {
		case ledger.OutcomeTimeout, ledger.OutcomeHTTP500, ledger.OutcomeHTTP429, ledger.OutcomeConnRefused:
			if a.fails++; a.fails >= maxFailures {
				a.gaveUp = true
				a.notes = append(a.notes, st.Tool+" failed "+strconv.Itoa(a.fails)+" times ("+obs.Outcome+"); gave it up")
				return
			}
		}
		switch obs.Outcome {
		case ledger.OutcomeOK:
			if r, ok := obs.Result["receipt"].(string); ok && a.receipt != nil {
				a.receipt[a.cur] = r
			}
			return
		case ledger.OutcomeTimeout, ledger.OutcomeHTTP500:
			a.recover(st, spec, args, t0, obs.Outcome)
			return
		case ledger.OutcomeConnRefused:
			// Refused before sending: nothing happened; send again.
		case ledger.OutcomeHTTP429:
			a.wait(obs.RetryAfterS)
		case ledger.OutcomeHTTP409:
			_, keyed := args[keyArg]
			if !keyed || !inProgress(obs.Error) {
				return // already applied (e.g. refund of a refunded charge)
			}
			// The key's first request is still being processed: wait and
			// repeat with the same key, twice at most; after that the key
			// is trusted to make the request take effect once.
			if conflicts++; conflicts > 2 {
				return
			}
			a.wait(a.T.InProgressWaitS)
		case ledger.OutcomeHTTP412, ledger.OutcomeHTTP404:
			return // the state is already what the write wanted
		default:
			a.failed = true
			a.notes = append(a.notes, st.Tool+" was rejected: "+obs.Error)
			return
		}
		obs = a.call(st.Tool, args)
	}
}

func inProgress(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "in progress") || strings.Contains(m, "in flight") ||
		strings.Contains(m, "being processed") || strings.Contains(m, "in-flight")
}

// recover handles an ambiguous failure (timeout or HTTP 500) of a write sent
// at t0.
func (a *Agent) recover(st *sandbox.Step, spec sandbox.ToolSpec, args map[string]any, t0 float64, kind string) {
	a.ambiguous = true
	a.notes = append(a.notes, st.Tool+" returned "+kind+"; it may have taken effect")
	switch a.Cond.Kind {
	case KindOutcome:
		if a.has(sandbox.ToolOutcomeOracle) && a.D.u(slotOracle) < a.P.Orc {
			a.viaOutcomeOracle(st, spec, args, t0)
			return
		}
	case KindState:
		if a.has(sandbox.ToolStateOracle) && a.D.u(slotOracle) < a.P.Orc {
			a.viaStateOracle(st, spec, args, t0)
			return
		}
	}
	a.viaReadBack(st, spec, args, t0, kind)
}

// readState is what a read-back showed: the effect present, absent, or (for
// a batch) present in part, with the missing rows.
type readState struct {
	present, partial bool
	missing          []any
}

func (a *Agent) read(st *sandbox.Step, args map[string]any) (readState, bool) {
	a.think()
	return a.readNow(st, args)
}

// readNow reads back without a model turn first.
func (a *Agent) readNow(st *sandbox.Step, args map[string]any) (readState, bool) {
	rt, ra, ok := sandbox.ReadArgsFor(st.Tool, args)
	if !ok {
		return readState{}, false
	}
	a.calls++
	obs := a.c.Call(rt, ra)
	if obs.Outcome != ledger.OutcomeOK {
		return readState{}, true
	}
	if isBatch(st.Tool) {
		miss := missingRows(st.Tool, args, obs.Result)
		n := len(rowList(args["rows"]))
		return readState{present: len(miss) == 0, partial: len(miss) > 0 && len(miss) < n, missing: miss}, true
	}
	return readState{present: sandbox.Present(st.Tool, args, obs.Result)}, true
}

func (a *Agent) viaReadBack(st *sandbox.Step, spec sandbox.ToolSpec, args map[string]any, t0 float64, kind string) {
	v := a.P.VTo
	if kind == ledger.OutcomeHTTP500 {
		v = a.P.V500
	}
	waitPolicy := a.Cond.Kind == KindWait
	lag := spec.DocumentedLagFor(args)
	if h := a.P.Mech.VerifyHalfLifeS; h > 0 && lag > 0 {
		v *= math.Exp2(-lag / h)
	}
	verify := waitPolicy || a.D.u(slotVerify) < v
	if _, _, ok := sandbox.ReadArgsFor(st.Tool, args); !ok {
		verify = false
	}
	if !verify {
		a.reissue(st, spec, args, t0, nil)
		return
	}
	// A wait-Δ policy includes the documented lag in its bound.
	respect := lag == 0 || waitPolicy || a.D.u(slotLag) < a.waitPropensity(kind)
	earliest := t0
	if waitPolicy {
		earliest += a.Cond.WaitS
	}
	if respect {
		earliest += lag
	}
	a.waitUntil(earliest)
	// The read follows after a deliberation ε ~ Exp(mean jitter) instead of
	// a plain model turn (docs/simulation.md, Time model).
	a.c.Advance(expo(a.D.u(slotJitter), a.T.JitterMeanS))
	rs, _ := a.readNow(st, args)
	switch {
	case rs.present:
		if a.D.u(slotSkip) < a.P.S {
			a.confirmed(st, args)
			return
		}
		a.reissue(st, spec, args, t0, nil)
		return
	case rs.partial:
		if a.D.u(slotSkip) < a.P.S {
			a.reissue(st, spec, args, t0, rs.missing)
		} else {
			a.reissue(st, spec, args, t0, nil)
		}
		return
	}
	if lag > 0 && !respect {
		a.reissue(st, spec, args, t0, nil) // took the lagging read as the truth
		return
	}
	if a.giveUp(st, args) {
		return
	}
	trust := 0.0
	if lag > 0 {
		trust = a.P.Mech.EventualTrust // the documented bound has been waited out
	}
	if a.waitToRecheck(trust) {
		rs, _ = a.read(st, args)
		if rs.present {
			a.confirmed(st, args)
			return
		}
		if rs.partial {
			a.reissue(st, spec, args, t0, rs.missing)
			return
		}
	}
	a.reissue(st, spec, args, t0, nil)
}

// waitPropensity is the propensity to wait out a read path's documented lag
// before reading back after an ambiguous error of the given kind: the
// model's w after a 500, which reads as "the write failed" (an early empty
// read only confirms it), and w raised on the logit scale by
// Mechanisms.TimeoutWait after a timeout, which reads as "unknown: the
// request may still be on its way". w of 0 or 1 does not move.
func (a *Agent) waitPropensity(kind string) float64 {
	if kind == ledger.OutcomeHTTP500 {
		return a.P.W
	}
	return shiftLogit(a.P.W, a.P.Mech.TimeoutWait)
}

// giveUp decides, after a write could not be confirmed, whether the agent
// abandons it (propensity G) rather than re-issue it. Holding a key, a
// repeat is documented to be safe: nobody gives up, and nothing is drawn.
func (a *Agent) giveUp(st *sandbox.Step, args map[string]any) bool {
	if _, keyed := args[keyArg]; !keyed && a.D.u(slotGiveUp) < a.P.G {
		a.gaveUp = true
		a.notes = append(a.notes, st.Tool+" not re-issued: could not confirm it")
		return true
	}
	return false
}

// waitToRecheck decides whether the agent waits out its patience and checks
// again (propensity (1−π)(1−trust)) rather than re-issue at once; it does
// the waiting. trust is how much the empty read that led here is believed
// beyond the model's habit (Mechanisms.EventualTrust).
func (a *Agent) waitToRecheck(trust float64) bool {
	pi := a.P.Pi
	if trust > 0 {
		pi = 1 - (1-pi)*(1-trust)
	}
	if a.D.u(slotImpatient) >= pi {
		a.wait(a.T.PatienceMinS + a.D.u(slotPatience)*(a.T.PatienceMaxS-a.T.PatienceMinS))
		return true
	}
	return false
}

// confirmed is called when a read-back shows that an unkeyed write hit by an
// ambiguous fault had taken effect after all. With propensity Abandon the
// agent then stops and hands the rest of the task over (escalates) instead
// of carrying on: the surprise makes it distrust what it would do next
// (docs/simulation.md, Residual EOS shortfall; [I]). It decides from that observation only,
// so a not-executed world (empty read-back) never triggers it and task
// success there is untouched; holding a key, a repeat is documented to be
// safe and nothing is handed over; an oracle's answer is authoritative and
// leaves no such doubt (the oracle paths never call it).
func (a *Agent) confirmed(st *sandbox.Step, args map[string]any) {
	if _, keyed := args[keyArg]; keyed || a.P.Abandon <= 0 {
		// The draw is skipped when the propensity is 0, so profiles
		// without it reproduce earlier runs bit for bit.
		return
	}
	if a.D.u(slotAbandon) < a.P.Abandon {
		a.stopped, a.escalated = true, true
		a.notes = append(a.notes, st.Tool+" had taken effect despite the error; stopped and handed the rest of the task over")
	}
}

// oracleStatus reads an oracle's answer: "committed", "partial" (some rows
// of a batch), "in_flight" or "not_executed"; the state oracle knows only
// committed or not, plus how many effects it counted.
func oracleStatus(r map[string]any) string {
	if s, ok := r["status"].(string); ok {
		if s == "partially_committed" {
			return "partial"
		}
		return s
	}
	if c, ok := r["committed"].(bool); ok {
		if c {
			return "committed"
		}
		if n, ok := r["effects"].(int); ok && n > 0 {
			return "partial"
		}
		if n, ok := r["effects"].(float64); ok && n > 0 {
			return "partial"
		}
		return "not_executed"
	}
	return ""
}

func oracleArgs(tool string, args map[string]any) map[string]any {
	plain := maps.Clone(args)
	delete(plain, keyArg)
	return map[string]any{"tool": tool, "args": plain}
}

// viaOutcomeOracle asks the outcome oracle: committed or in flight means the
// write will have happened, so it is not repeated; not executed means send
// again. A batch found committed is checked row by row.
func (a *Agent) viaOutcomeOracle(st *sandbox.Step, spec sandbox.ToolSpec, args map[string]any, t0 float64) {
	obs := a.call(sandbox.ToolOutcomeOracle, oracleArgs(st.Tool, args))
	switch oracleStatus(obs.Result) {
	case "not_executed":
		a.reissue(st, spec, args, t0, nil)
	case "committed", "partial":
		if isBatch(st.Tool) {
			a.completeBatch(st, spec, args, t0)
		}
	}
}

// viaStateOracle polls the state oracle, which cannot see requests in
// flight: an agent that finds nothing decides as after an empty read-back.
func (a *Agent) viaStateOracle(st *sandbox.Step, spec sandbox.ToolSpec, args map[string]any, t0 float64) {
	committed := func() bool {
		obs := a.call(sandbox.ToolStateOracle, oracleArgs(st.Tool, args))
		s := oracleStatus(obs.Result)
		return s == "committed" || s == "partial"
	}
	if committed() {
		if isBatch(st.Tool) {
			a.completeBatch(st, spec, args, t0)
		}
		return
	}
	if a.giveUp(st, args) {
		return
	}
	if a.waitToRecheck(0) {
		if committed() {
			if isBatch(st.Tool) {
				a.completeBatch(st, spec, args, t0)
			}
			return
		}
	}
	a.reissue(st, spec, args, t0, nil)
}

// completeBatch inserts the rows of a batch that a read-back lacks.
func (a *Agent) completeBatch(st *sandbox.Step, spec sandbox.ToolSpec, args map[string]any, t0 float64) {
	rs, ok := a.read(st, args)
	if ok && !rs.present && len(rs.missing) > 0 {
		a.reissue(st, spec, args, t0, rs.missing)
	}
}

// reissue sends the write again: with the same key (or a fresh one), or
// without a key possibly with drifted arguments; rows, when given, replace a
// batch's rows (only the missing ones).
func (a *Agent) reissue(st *sandbox.Step, spec sandbox.ToolSpec, args map[string]any, t0 float64, rows []any) {
	next := maps.Clone(args)
	_, keyed := args[keyArg]
	fresh := false
	if keyed {
		if a.D.u(slotReuse) >= a.P.R {
			next[keyArg] = a.newKey()
			fresh = true
		}
	} else if a.D.u(slotDrift) < a.P.A {
		drift(st.Tool, next)
	}
	if rows != nil && (!keyed || fresh) {
		// Send only the rows the read-back lacks. Under the original
		// key the description promises that a same-key repeat inserts
		// only the rows the first request did not, and other arguments
		// under that key would be rejected: repeat the request as it
		// was. A fresh key carries no such promise, so the agent acts
		// on what it read, as it does without a key.
		next["rows"] = rows
	}
	obs := a.call(st.Tool, next)
	a.handle(st, spec, next, t0, obs)
	if obs.Outcome == ledger.OutcomeOK && a.D.u(slotSlip) < a.P.Eps {
		a.call(st.Tool, next)
	}
}

// drift rewrites a write's arguments the way an agent retyping a request
// does: the same logical action (docs/simulation.md, Grading: logical identity) with different
// canonical arguments, which defeats a key derived from them.
func drift(tool string, args map[string]any) {
	switch tool {
	case "social_publish":
		if s, ok := args["text"].(string); ok {
			args["text"] = s + " "
		}
	case "billing_create_charge":
		if s, ok := args["description"].(string); ok {
			args["description"] = s + " (retry)"
		}
	case "mail_send", "tickets_create":
		if s, ok := args["body"].(string); ok {
			args["body"] = s + "\n"
		}
	case "data_insert":
		if r, ok := args["row"].(map[string]any); ok {
			r = maps.Clone(r)
			r["note"] = "retry"
			args["row"] = r
		}
	}
}

// report builds the final report: completed unless the agent gave up,
// escalated or failed; after an ambiguous fault it reports completed with
// propensity Compl, and lists its uncertainty unless Silent.
func (a *Agent) report() ledger.FinalReport {
	r := ledger.FinalReport{Status: ledger.StatusCompleted, Uncertainties: []string{}}
	switch {
	case a.failed:
		r.Status = ledger.StatusFailed
		r.Uncertainties = a.notes
	case a.gaveUp:
		r.Status = ledger.StatusPartial
		r.Uncertainties = a.notes
	case a.escalated:
		r.Status = ledger.StatusEscalated
		r.Uncertainties = a.notes
	case a.ambiguous:
		if a.D.u(slotReport) >= a.P.Compl {
			r.Status = ledger.StatusEscalated
			r.Uncertainties = a.notes
		} else if a.D.u(slotSilent) >= a.P.Quiet {
			r.Uncertainties = a.notes
		}
	}
	return r
}
