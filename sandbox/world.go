package sandbox

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Time model (docs/simulation.md, Time model).
const (
	defaultClientTimeoutS = 30
	redeliveryDelayS      = 3  // redelivery: the copy arrives this long after the original
	retryAfterS           = 30 // http429_pre: Retry-After
	runDurationS          = 60 // deploy runs finish this long after they start
	listLimit             = 50
)

// keyDedup switches idempotency-key deduplication; only tests turn it off
// (DisableKeyDedupForTesting) to show the propositions depend on it.
var keyDedup = true

// DisableKeyDedupForTesting makes every service ignore idempotency keys
// until restore is called. It exists so tests can show that Proposition 2
// (and so `limbo-analyze prove`) fails without key deduplication; it is not
// safe to use while episodes run concurrently.
func DisableKeyDedupForTesting() (restore func()) {
	old := keyDedup
	keyDedup = false
	return func() { keyDedup = old }
}

// World is one episode's sandbox: six services, the fault injector, the
// virtual clock with its event queue, and the ledger of calls and effects.
// A World is not safe for concurrent use; run one per goroutine.
type World struct {
	spec     Spec
	task     *Task
	contract string
	timeout  float64
	delay    float64
	rng      rand.PCG
	now      float64
	oracles  [2]bool // state, outcome

	focal     *Step
	focalStep Step // storage for focal: one allocation fewer per world
	fired     bool
	focalSeq  int64
	// The fault: its mechanic (faults.go) and what the agent observes.
	mechanic mechanic
	observed string

	calls   []ledger.Call
	effects []ledger.Effect
	effIDs  []string // logical identity of each effect, parallel to effects
	events  eventQueue
	evSeq   int64
	keys    map[string]*keyRec
	attempt []attemptCount
	reqs    []request // slab the requests are allocated from (see newRequest)

	// Inline backing arrays of small per-episode slices: allocations saved.
	attemptBuf [4]attemptCount
	argEndBuf  [12]int

	// The canonical arguments of every call are appended to args, and
	// argEnd[i] is where those of call i end. The Args strings of the calls
	// from argsDone on are cut from one string when the ledger is read
	// (Calls, Finish) rather than allocated call by call.
	args     []byte
	argEnd   []int
	argsDone int

	posts    []post
	charges  []charge
	tickets  []ticket
	comments []comment
	mails    []mail
	rows     []row
	runs     []run

	finished   bool
	agentTime  float64
	timeoutMsg string // message of a client timeout, built once

	// receipts[i] are the receipts step i's writes returned (hand-offs:
	// Step.Receipt); a later step that needs step i's must quote one.
	receipts map[int][]string
}

// Records cache their listing views: an item's view is built once and
// shared by every listing that shows it (results are read-only), which
// keeps map and boxing allocations off the hot path.
type post struct {
	id, platform, text string
	at, visible        float64
	deleted            bool
	view               map[string]any
}

type charge struct {
	id, customer, desc string
	amount             float64
	at, visible        float64
	refunded           bool
	refundVisible      float64
	views              [2]map[string]any // succeeded, refunded
}

type ticket struct {
	id, title, body         string
	status, prev            string
	at, listVisible, search float64
	statusVisible           float64
	view                    map[string]any // list view, for viewStatus
	viewStatus              string
	sview                   map[string]any // search view
}

type comment struct {
	id, ticket, text string
	at, visible      float64
	view             map[string]any
}

type mail struct {
	id, to, subject, body string
	at, visible           float64
	view                  map[string]any
}

type row struct {
	table, pk, resource string
	fields              map[string]any
	at, visible         float64
}

type run struct {
	id, service, env, ref string
	at, visible           float64
	views                 [2]map[string]any // running, succeeded
}

// request is one delivery of a write to a service. A redelivered copy or a
// late commit is a request of its own that shares the original's seq.
type request struct {
	d       *toolDef
	args    map[string]any
	canon   string
	key     string
	seq     int64
	issued  float64
	attempt int64
	source  string
	ids     []string
	id1     [1]string // backing store of ids for a single-identity write

	honoured bool
	focal    bool
	stale    bool // stale_read: hide from read paths for staleHideS
	partial  bool // partial_batch: commit the first ⌈n/2⌉ rows, then fail
}

// newRequest returns a zeroed request owned by the world. Requests live as
// long as the world (keys and events point at them), so they are carved
// from a slab; a full slab is replaced, never grown, so that pointers into
// it stay valid.
func (w *World) newRequest() *request {
	if len(w.reqs) == cap(w.reqs) {
		w.reqs = make([]request, 0, 4)
	}
	w.reqs = append(w.reqs, request{})
	return &w.reqs[len(w.reqs)-1]
}

// keyRec is a service's memory of an idempotency key (Stripe semantics).
type keyRec struct {
	canon     string
	owner     *request // the request being processed (in flight)
	inflight  bool
	done      bool
	doneAt    float64
	result    map[string]any
	resources []string
	rowsDone  int // partial batch under a key: rows already inserted
}

type attemptCount struct {
	id string
	n  int64
}

// nextAttempt counts the agent's issues of a logical action (a short
// linear scan: episodes touch a handful of actions).
func (w *World) nextAttempt(id string) int64 {
	for i := range w.attempt {
		if w.attempt[i].id == id {
			w.attempt[i].n++
			return w.attempt[i].n
		}
	}
	w.attempt = append(w.attempt, attemptCount{id, 1})
	return 1
}

type event struct {
	t   float64
	seq int64 // insertion order: deterministic tie-break
	req *request
}

// eventQueue holds events sorted by time, then by insertion. An episode
// schedules at most a few events, so a sorted slice of values beats a heap
// of pointers (no allocation per event); the order is the same total order.
type eventQueue []event

// push inserts e after every event due no later than it (seq grows with
// insertion, so this is the (t, seq) order).
func (q *eventQueue) push(e event) {
	i := len(*q)
	for i > 0 && (*q)[i-1].t > e.t {
		i--
	}
	*q = slices.Insert(*q, i, e)
}

// pop removes and returns the earliest event.
func (q *eventQueue) pop() event {
	e := (*q)[0]
	*q = slices.Delete(*q, 0, 1)
	return e
}

// NewWorld builds an episode's world. Its random stream (tool latencies)
// is a PCG seeded from (Seed, task id, focal index), so every fault mode
// and condition of the same world draws the same latencies.
func NewWorld(spec Spec) (*World, error) {
	if spec.Task == nil {
		return nil, fmt.Errorf("sandbox: spec has no task")
	}
	if spec.FocalIndex < 0 || spec.FocalIndex >= len(spec.Task.Steps) {
		return nil, fmt.Errorf("sandbox: task %s has no step %d", spec.Task.ID, spec.FocalIndex)
	}
	if spec.Contract == "" {
		spec.Contract = ledger.ContractNative
	}
	if !validContract(spec.Contract) {
		return nil, fmt.Errorf("sandbox: unknown contract %q", spec.Contract)
	}
	if spec.Fault == "" {
		spec.Fault = ledger.FaultNone
	}
	fm, ok := ledger.FaultByName(spec.Fault)
	if !ok {
		return nil, fmt.Errorf("sandbox: unknown fault mode %q", spec.Fault)
	}
	mech := mechanics[fm.Name]
	if mech == nil || !fm.InjectedBy(ledger.SiteSandbox) {
		return nil, fmt.Errorf("sandbox: fault mode %s is not injected by the sandbox", fm.Name)
	}
	w := &World{spec: spec, task: spec.Task, contract: spec.Contract, mechanic: mech, observed: fm.Observed}
	// A private copy of the focal step, completed from the catalogue, so a
	// hand-built Task (not from NewTask) works too.
	w.focalStep = spec.Task.Steps[spec.FocalIndex]
	fs := &w.focalStep
	ti, ok := toolIndex[fs.Tool]
	if !ok || !defs[ti].write {
		return nil, fmt.Errorf("sandbox: task %s step %d: %q is not a write tool", spec.Task.ID, spec.FocalIndex, fs.Tool)
	}
	if fs.ids == nil || fs.tool != ti {
		fs.tool, fs.ids = ti, identities(ti, fs.Args)
		fs.Platform, _ = fs.Args["platform"].(string)
		fs.Class = defs[ti].class(ledger.ContractNative, fs.Platform)
		fs.ReadPath = defs[ti].readPath(fs.Platform)
		fs.Reversible = defs[ti].reversible
	}
	w.focal = fs
	if fm.Batch && !defs[fs.tool].batch {
		return nil, fmt.Errorf("sandbox: fault %s applies only to a batch write, not %s", fm.Name, fs.Tool)
	}
	if spec.DelayS < 0 || math.IsNaN(spec.DelayS) || math.IsInf(spec.DelayS, 0) {
		return nil, fmt.Errorf("sandbox: delay_s %v is not a finite non-negative number", spec.DelayS)
	}
	w.timeout = spec.ClientTimeoutS
	if w.timeout <= 0 {
		w.timeout = defaultClientTimeoutS
	}
	switch fm.Delay {
	case ledger.DelayFixed:
		w.delay = spec.DelayS
		if w.delay == 0 {
			w.delay = ledger.DefaultLateDelayS
		}
	case ledger.DelayDrawn:
		if spec.DelayS <= 0 {
			return nil, fmt.Errorf("sandbox: fault %s needs delay_s > 0", fm.Name)
		}
		w.delay = spec.DelayS
	}
	for _, o := range spec.Oracles {
		switch o {
		case ToolStateOracle:
			w.oracles[0] = true
		case ToolOutcomeOracle:
			w.oracles[1] = true
		default:
			return nil, fmt.Errorf("sandbox: unknown oracle %q", o)
		}
	}
	w.rng = *rand.NewPCG(spec.Seed, worldKey(spec.Task.ID, spec.FocalIndex))
	// Pre-size the ledgers and the records of the task's service from the
	// task: simulated episodes make at most about two calls per step plus a
	// few, and commit one effect per logical identity plus a duplicate or
	// two. Oversizing costs more than the rare regrowth (clearing memory
	// dominated NewWorld).
	nids := 0
	for i := range spec.Task.Steps {
		nids += max(len(spec.Task.Steps[i].ids), 1)
	}
	ncalls := 2*len(spec.Task.Steps) + 4
	n := nids + 2
	w.calls = make([]ledger.Call, 0, ncalls)
	w.effects = make([]ledger.Effect, 0, n)
	w.effIDs = make([]string, 0, n)
	// Room for every step's arguments plus short reads and re-issues: long
	// texts would otherwise regrow the buffer.
	w.args = make([]byte, 0, max(40*ncalls, spec.Task.argBytes+24*ncalls))
	w.argEnd = w.argEndBuf[:0]
	w.reqs = make([]request, 0, len(spec.Task.Steps)+2)
	if presize := stores[spec.Task.Service]; presize != nil {
		presize(w, n)
	}
	w.attempt = w.attemptBuf[:0]
	for _, c := range spec.Task.Setup.Charges {
		id, _ := c["id"].(string)
		cu, _ := c["customer_id"].(string)
		desc, _ := c["description"].(string)
		amt, _ := number(c["amount_cents"])
		w.charges = append(w.charges, charge{id: id, customer: cu, desc: desc, amount: amt, at: -86400, visible: -86400})
	}
	for _, c := range spec.Task.Setup.Tickets {
		id, _ := c["id"].(string)
		ti, _ := c["title"].(string)
		bo, _ := c["body"].(string)
		st, _ := c["status"].(string)
		w.tickets = append(w.tickets, ticket{id: id, title: ti, body: bo, status: st, prev: st, at: -86400, listVisible: -86400, search: -86400, statusVisible: -86400})
	}
	return w, nil
}

// worldKey is the FNV-1a hash of (task id, focal index): the PCG stream of
// a world, shared by all its fault modes and conditions.
func worldKey(task string, focal int) uint64 {
	const prime = 1099511628211
	h := uint64(14695981039346656037)
	for i := 0; i < len(task); i++ {
		h = (h ^ uint64(task[i])) * prime
	}
	for _, b := range []byte{0, byte(focal), byte(focal >> 8)} {
		h = (h ^ uint64(b)) * prime
	}
	return h
}

// Now returns the virtual seconds since the episode started.
func (w *World) Now() float64 { return w.now }

// Advance moves the clock by dt seconds (think time, waiting), firing the
// scheduled events that fall due: late commits and redelivered copies.
// Negative or non-finite dt is ignored.
func (w *World) Advance(dt float64) {
	if !(dt > 0) || math.IsInf(dt, 0) {
		return
	}
	w.advanceTo(w.now + dt)
}

func (w *World) advanceTo(t float64) {
	for len(w.events) > 0 && w.events[0].t <= t {
		ev := w.events.pop()
		w.now = ev.t
		w.deliver(ev.req, ev.t)
	}
	w.now = t
}

func (w *World) schedule(t float64, req *request) {
	w.evSeq++
	w.events.push(event{t: t, seq: w.evSeq, req: req})
}

// uniform draws from the world's stream; exactly one draw per call keeps
// the streams of observation-equivalent worlds aligned.
func (w *World) uniform() float64 {
	return float64(w.rng.Uint64()>>11) / (1 << 53)
}

// Tools returns the catalogue under the spec's contract plus wait and the
// oracle tools the spec exposes.
func (w *World) Tools() []ToolSpec {
	out := Catalogue(w.contract)
	if w.task.handoffs {
		for i := range out {
			if w.gated(out[i].Name) {
				out[i].Params = append(slices.Clone(out[i].Params), receiptParam)
			}
		}
	}
	if w.oracles[0] {
		out = append(out, defs[tStateOracle].spec(w.contract))
	}
	if w.oracles[1] {
		out = append(out, defs[tOutcomeOracle].spec(w.contract))
	}
	out = append(out, defs[tWait].spec(w.contract))
	slices.SortFunc(out, byName)
	return out
}

// Calls returns the calls made so far (a copy).
func (w *World) Calls() []ledger.Call {
	w.syncArgs()
	return slices.Clone(w.calls)
}

// Task returns the episode's task.
func (w *World) Task() *Task { return w.task }

// FaultFired reports whether the focal write has been issued (and so the
// fault applied).
func (w *World) FaultFired() bool { return w.fired }

// record appends a call of tool (catalogue index ti, or -1 if unknown) to
// the ledger; its Args are filled in by syncArgs.
func (w *World) record(ti int, tool string, args map[string]any, key, outcome string, lat float64) {
	if ti >= 0 {
		w.args = appendCanonArgs(w.args, ti, args)
	} else {
		w.args = appendCanon(w.args, args, "")
	}
	w.argEnd = append(w.argEnd, len(w.args))
	w.calls = append(w.calls, ledger.Call{
		Seq:            int64(len(w.calls) + 1),
		TS:             w.now,
		Tool:           tool,
		IdempotencyKey: key,
		Outcome:        outcome,
		LatencyS:       lat,
	})
}

// syncArgs fills in the Args of the calls recorded since the last sync,
// cutting them from one string.
func (w *World) syncArgs() {
	if w.argsDone == len(w.calls) {
		return
	}
	start := 0
	if w.argsDone > 0 {
		start = w.argEnd[w.argsDone-1]
	}
	all := string(w.args[start:])
	for i := w.argsDone; i < len(w.calls); i++ {
		end := w.argEnd[i] - start
		w.calls[i].Args = all[:end]
		all, start = all[end:], w.argEnd[i]
	}
	w.argsDone = len(w.calls)
}

func fail(outcome, msg string, lat float64) Observation {
	return Observation{Outcome: outcome, Error: msg, LatencyS: lat}
}

// Call is the one door agents use: it validates the request, applies the
// fault if this is the focal write's first issue, executes it against the
// service, records the call and advances the clock by the latency (or the
// client timeout). A rejected request (unknown tool, bad arguments) gets a
// 400-like observation and leaves no effect. Call never panics on any
// arguments.
func (w *World) Call(tool string, args map[string]any) Observation {
	t0 := w.now
	o, done := w.start(tool, args)
	if done {
		w.advanceTo(t0 + o.LatencyS)
	}
	return o
}

// Start is Call for callers that interleave several clients in one world
// (two workers of one task): the request is sent and executed now, and
// its answer is returned, but the clock stays at the send; the caller
// advances it to the answer's time (now + LatencyS) before acting on the
// answer, and may send other requests meanwhile. Call is Start followed
// by that advance.
func (w *World) Start(tool string, args map[string]any) Observation {
	o, _ := w.start(tool, args)
	return o
}

// Answered records a write that a guard in front of the services answered
// itself at the current time, without forwarding it, with outcome (one of
// the ledger's guard outcomes): the call was made, and reached no
// service.
func (w *World) Answered(tool string, args map[string]any, outcome string) {
	ti, ok := toolIndex[tool]
	if !ok {
		ti = -1
	}
	key, _ := args["idempotency_key"].(string)
	w.record(ti, tool, args, key, outcome, 0)
}

// start is Call without the final advance of the clock; done is false
// when the episode had finished (nothing was sent).
func (w *World) start(tool string, args map[string]any) (Observation, bool) {
	u := w.uniform()
	if w.finished {
		return fail(ledger.OutcomeHTTP400, "episode finished", 0), false
	}
	ti, ok := toolIndex[tool]
	if ok && ((ti == tStateOracle && !w.oracles[0]) || (ti == tOutcomeOracle && !w.oracles[1])) {
		ok = false
	}
	if !ok {
		lat := 1 + 2*u
		key, _ := args["idempotency_key"].(string)
		w.record(-1, tool, args, key, ledger.OutcomeHTTP400, lat)
		return fail(ledger.OutcomeHTTP400, invalid("unknown tool ", quote(tool)), lat), true
	}
	d := &defs[ti]
	lat := 1 + 2*u // reads 1–3 s
	if d.write {
		lat = 1 + 3*u // writes 1–4 s
	}
	msg := ""
	if _, quoted := args[receiptArg]; quoted && d.write && w.task.handoffs && w.gated(d.name) {
		msg = w.checkReceipt(d, args)
	} else {
		msg = validate(d, args)
		if msg == "" && d.write && w.task.handoffs {
			msg = w.checkReceipt(d, args)
		}
	}
	if msg != "" {
		key, _ := args["idempotency_key"].(string)
		w.record(ti, tool, args, key, ledger.OutcomeHTTP400, lat)
		return fail(ledger.OutcomeHTTP400, msg, lat), true
	}
	if ti == tWait {
		s, _ := number(args["seconds"])
		w.record(ti, tool, args, "", ledger.OutcomeOK, s)
		return Observation{Outcome: ledger.OutcomeOK, Result: map[string]any{"waited_s": s, "now_s": w.now + s}, LatencyS: s}, true
	}
	if !d.write {
		res, outcome, msg := w.read(d, args)
		w.record(ti, tool, args, "", outcome, lat)
		if outcome != ledger.OutcomeOK {
			return fail(outcome, msg, lat), true
		}
		return Observation{Outcome: ledger.OutcomeOK, Result: res, LatencyS: lat}, true
	}
	key, _ := args["idempotency_key"].(string)
	return w.write(d, args, key, lat), true
}

func (w *World) write(d *toolDef, args map[string]any, key string, lat float64) Observation {
	t0 := w.now
	platform, _ := args["platform"].(string)
	req := w.newRequest()
	*req = request{
		d:      d,
		args:   args,
		key:    key,
		seq:    int64(len(w.calls) + 1),
		issued: t0,
		source: ledger.SourceAgent,
	}
	req.ids = appendIdentities(req.id1[:0], d.id, args)
	req.honoured = key != "" && keyDedup && d.keyHonoured(w.contract, platform)
	if req.honoured {
		req.canon = canonString(args) // only keys compare arguments
	}
	if len(req.ids) > 0 {
		req.attempt = w.nextAttempt(req.ids[0])
	}
	req.focal = d.id == w.focal.tool && slices.Equal(req.ids, w.focal.ids)
	if req.focal && !w.fired {
		w.fired = true
		w.focalSeq = req.seq
		if o, answered := w.inject(req, t0, lat); answered {
			return o
		}
	}
	// No fault, the control and the success-looking modes: executed, and
	// answered normally.
	res, outcome, msg := w.deliver(req, t0)
	w.record(d.id, d.name, args, key, outcome, lat)
	if outcome != ledger.OutcomeOK {
		return fail(outcome, msg, lat)
	}
	return Observation{Outcome: ledger.OutcomeOK, Result: res, LatencyS: lat}
}

const msg500 = "internal server error"

func timeoutMsg(s float64) string {
	return "request timed out after " + strconv.FormatFloat(s, 'f', -1, 64) + " s (no response received)"
}

// defaultTimeoutMsg is the message of the default client timeout.
var defaultTimeoutMsg = timeoutMsg(defaultClientTimeoutS)

// timeoutMessage is timeoutMsg of the world's client timeout, built once.
func (w *World) timeoutMessage() string {
	if w.timeoutMsg == "" {
		w.timeoutMsg = defaultTimeoutMsg
		if w.timeout != defaultClientTimeoutS {
			w.timeoutMsg = timeoutMsg(w.timeout)
		}
	}
	return w.timeoutMsg
}

func scopeKey(d *toolDef, key string) string { return d.name + "\x00" + key }

// reserve marks a key as in progress for a request the service holds.
func (w *World) reserve(req *request) {
	t := req.issued
	if w.keys == nil {
		w.keys = make(map[string]*keyRec, 4)
	}
	sk := scopeKey(req.d, req.key)
	if rec := w.keys[sk]; rec != nil && !(rec.done && t-rec.doneAt > keyWindowS) {
		return // an existing record decides when the request is delivered
	}
	w.keys[sk] = &keyRec{canon: req.canon, owner: req, inflight: true}
}

// deliver applies a request to its service at time t, with Stripe key
// semantics when the contract honours the request's key: same key and
// arguments return the stored first result (an absorbed effect); same key
// and other arguments are rejected (400); a key whose first request is
// still in progress answers 409. Keys are remembered for keyWindowS.
func (w *World) deliver(req *request, t float64) (map[string]any, string, string) {
	if !req.honoured || !keyDedup {
		res, outcome, msg, _ := w.apply(req, t, 0)
		return w.withReceipt(req, res, outcome), outcome, msg
	}
	if w.keys == nil {
		w.keys = make(map[string]*keyRec, 4)
	}
	sk := scopeKey(req.d, req.key)
	rec := w.keys[sk]
	if rec != nil && rec.done && t-rec.doneAt > keyWindowS {
		rec = nil // expired
	}
	skip := 0
	switch {
	case rec == nil:
		rec = &keyRec{canon: req.canon, owner: req, inflight: true}
		w.keys[sk] = rec
	case rec.canon != req.canon:
		return nil, ledger.OutcomeHTTP400, invalid("idempotency key reused with different arguments")
	case rec.inflight && rec.owner != req:
		return nil, ledger.OutcomeHTTP409, "conflict: a request with this idempotency key is still being processed"
	case rec.done:
		for _, r := range rec.resources {
			w.addEffect(req, t, r, true)
		}
		return rec.result, ledger.OutcomeOK, ""
	default:
		// A partial batch resumed under its key: absorb the rows already in,
		// insert the rest.
		skip = rec.rowsDone
		for _, r := range rec.resources {
			w.addEffect(req, t, r, true)
		}
	}
	rec.owner = req
	res, outcome, msg, done := w.apply(req, t, skip)
	res = w.withReceipt(req, res, outcome)
	switch {
	case outcome == ledger.OutcomeOK:
		rec.inflight, rec.done, rec.doneAt, rec.result = false, true, t, res
		rec.resources = append(rec.resources, w.lastResources(req, t)...)
	case done > 0:
		rec.inflight = false
		rec.rowsDone = skip + done
		rec.resources = append(rec.resources, w.lastResources(req, t)...)
	default:
		// Failed requests are not remembered: the key stays free.
		delete(w.keys, sk)
	}
	return res, outcome, msg
}

// withReceipt adds a receipt to the successful result of a write that a
// later step of the task must quote (Step.Receipt, a hand-off). The receipt
// is in this response only: the result is copied, because results may be
// the views that listings show. Under an honoured key the stored result
// carries it, so a same-key repeat returns it again.
func (w *World) withReceipt(req *request, res map[string]any, outcome string) map[string]any {
	if outcome != ledger.OutcomeOK || res == nil {
		return res
	}
	for i := range w.task.Steps {
		s := &w.task.Steps[i]
		if s.Receipt && s.tool == req.d.id && slices.Equal(s.ids, req.ids) {
			out := make(map[string]any, len(res)+1)
			for k, v := range res {
				out[k] = v
			}
			r := w.newID("rcpt_", req, 0)
			out["receipt"] = r
			if w.receipts == nil {
				w.receipts = make(map[int][]string, 2)
			}
			w.receipts[i] = append(w.receipts[i], r)
			return out
		}
	}
	return res
}

// lastResources returns the resource ids of the non-absorbed effects the
// request just committed at t.
func (w *World) lastResources(req *request, t float64) []string {
	var out []string
	for i := len(w.effects) - 1; i >= 0; i-- {
		e := &w.effects[i]
		if e.Seq != req.seq || e.CommittedAtS != t {
			break
		}
		if !e.Absorbed {
			out = append(out, e.ResourceID)
		}
	}
	slices.Reverse(out)
	return out
}

func (w *World) addEffect(req *request, t float64, resource string, absorbed bool) {
	source := req.source
	if req.partial && req.source == ledger.SourceAgent && !absorbed {
		source = ledger.SourcePartial
	}
	w.effects = append(w.effects, ledger.Effect{
		Seq:            req.seq,
		Service:        req.d.service,
		Tool:           req.d.name,
		ResourceID:     resource,
		IdempotencyKey: req.key,
		Attempt:        req.attempt,
		IssuedAtS:      req.issued,
		CommittedAtS:   t,
		Source:         source,
		Absorbed:       absorbed,
		Focal:          req.focal,
	})
	id := ""
	switch {
	case req.d.rows:
		id = "data|" + resource
	case len(req.ids) > 0:
		id = req.ids[0]
	}
	w.effIDs = append(w.effIDs, id)
}

// newID derives a resource id from the world seed, the issuing call and the
// delivery, so that ids never leak hidden events: a late or redelivered
// copy gets an id of its own without shifting the ids the agent sees.
func (w *World) newID(prefix string, req *request, n int) string {
	src := uint64(1)
	switch req.source {
	case ledger.SourceLate:
		src = 2
	case ledger.SourceRedelivery:
		src = 3
	}
	x := w.spec.Seed ^ uint64(req.seq)*0x9e3779b97f4a7c15 ^ src<<56 ^ uint64(n)<<40
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	var b [24]byte
	out := append(b[:0], prefix...)
	for i := 0; i < 10; i++ {
		out = append(out, hexDigits[x&0xf])
		x >>= 4
	}
	return string(out)
}

// Finish drains in-flight work (late commits and redelivered copies fire
// at their times), and returns the raw episode with the design fields the
// sandbox knows filled in. The caller fills experiment, model, harness,
// condition, cue, pair_key and weight; Grade fills the outcome.
func (w *World) Finish(report ledger.FinalReport) *ledger.RawEpisode {
	if !w.finished {
		w.agentTime = w.now
		for len(w.events) > 0 {
			w.advanceTo(w.events[0].t)
		}
		w.finished = true
	}
	f := w.focal
	w.syncArgs()
	// The episode and its report share one allocation.
	out := &struct {
		raw    ledger.RawEpisode
		report ledger.FinalReport
	}{report: report}
	if out.report.Uncertainties == nil {
		out.report.Uncertainties = []string{}
	}
	// The world is finished: hand its ledgers over rather than copy them.
	raw := &out.raw
	raw.Calls = w.calls[:len(w.calls):len(w.calls)]
	raw.Effects = w.effects[:len(w.effects):len(w.effects)]
	raw.FinalReport = &out.report
	e := &raw.Episode
	e.EpisodeID = w.spec.EpisodeID
	e.Contract = w.contract
	e.Service = w.task.Service
	e.Template = w.task.Template
	e.Instance = int64(w.task.Instance)
	e.Task = w.task.ID
	e.FocalWrite = f.Tool
	e.FocalIndex = int64(f.Index)
	e.Platform = f.Platform
	e.WriteClass = f.ClassUnder(w.contract)
	e.ReadPath = f.ReadPath
	e.Reversible = f.Reversible
	e.FaultMode = w.spec.Fault
	e.FaultFired = w.fired
	e.DelayS = w.delay
	e.Seed = int64(w.spec.Seed)
	e.Weight = 1
	e.AgentTimeS = w.agentTime
	return raw
}
