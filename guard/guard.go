package guard

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"
)

// Config chooses a guard's policy and its options. Options that do not
// apply to the policy are errors (New), so a configuration never carries
// a setting that silently does nothing.
type Config struct {
	Policy Policy

	// InFlight is what a repeat sees while the original is in flight:
	// Wait (InFlightWait, the zero value) or RefuseInFlight.
	InFlight InFlight

	// CacheErrors (Keys, Derived) stores a definite error (End Failed) and
	// replays it to repeats, as Stripe does; without it the key is released
	// and a repeat is forwarded. A replayed error loses the work when the
	// error came before the commit.
	CacheErrors bool

	// TTL (Keys, Derived) is how long after its latest attempt began a
	// completed key protects; zero is for ever. Keys in flight or unknown
	// do not expire.
	TTL time.Duration

	// Capacity bounds the records held (zero: no bound). A new key beyond
	// it is refused (AtCapacity) after expired records are purged.
	Capacity int

	// VerifyAfter (all but None) is how long after an unknown attempt was
	// sent a negative read-back may release its key: the assumed bound on
	// the time a request can stay in flight. Resolving as not executed
	// earlier returns ErrTooEarly. Zero trusts the caller's read-back at
	// any time, which Proposition 1 (docs/guard.md) shows is unsafe when
	// late commits are possible.
	VerifyAfter time.Duration

	// ReforwardUnknown (Keys) forwards a repeat of an unknown key again
	// instead of answering UnknownOutcome: right only when the upstream
	// itself honours the key the caller passes on (Proposition 2), so
	// that a second delivery is absorbed there.
	ReforwardUnknown bool

	// IssueOnFirstCall (Ledger) issues one authorisation to an action the
	// first time it is called, for deployments with no confirmation step:
	// the ledger then admits each action once, ever.
	IssueOnFirstCall bool
}

func (c Config) validate() error {
	applies := func(name string, set bool, ps ...Policy) error {
		if !set {
			return nil
		}
		for _, p := range ps {
			if c.Policy == p {
				return nil
			}
		}
		return fmt.Errorf("guard: %s does not apply to policy %s", name, c.Policy)
	}
	if c.Policy < None || c.Policy > Verify {
		return fmt.Errorf("guard: unknown policy %d", uint8(c.Policy))
	}
	if c.InFlight > InFlightRefuse {
		return fmt.Errorf("guard: unknown in-flight rule %d", uint8(c.InFlight))
	}
	if c.TTL < 0 || c.VerifyAfter < 0 || c.Capacity < 0 {
		return errors.New("guard: TTL, VerifyAfter and Capacity must not be negative")
	}
	return errors.Join(
		applies("InFlight refuse", c.InFlight == InFlightRefuse, Keys, Derived, Ledger, Verify),
		applies("CacheErrors", c.CacheErrors, Keys, Derived),
		applies("TTL", c.TTL > 0, Keys, Derived),
		applies("Capacity", c.Capacity > 0, Keys, Derived, Ledger, Verify),
		applies("VerifyAfter", c.VerifyAfter > 0, Keys, Derived, Ledger, Verify),
		applies("ReforwardUnknown", c.ReforwardUnknown, Keys),
		applies("IssueOnFirstCall", c.IssueOnFirstCall, Ledger),
	)
}

// Call is what a guard knows of one tool call.
type Call struct {
	Tool        string
	Fingerprint string // Effect.Fingerprint of its arguments
	Key         string // the agent's idempotency key (policy Keys); "" if none
	Scope       string // a namespace for its key: a tenant, a task; "" for one global namespace
}

// Decision is a guard's answer to Begin.
type Decision struct {
	Outcome Outcome
	Key     string // the store key decided on; "" when the call is not guarded
	Ticket  Ticket // Forward: the attempt, to end with Finish
	Result  []byte // Replay, ReplayError, Consumed: the stored answer

	// Since is when the attempt in flight or unknown was sent (Wait,
	// RefuseInFlight, UnknownOutcome), and VerifyAt the first time a
	// negative read-back may release it (Since + Config.VerifyAfter).
	Since, VerifyAt time.Time

	// Reforward marks a Forward of a key whose earlier attempt is unknown
	// (Config.ReforwardUnknown): the caller must pass the same key on to the
	// upstream, whose own deduplication makes the second delivery safe.
	Reforward bool
}

// Ticket names one forwarded attempt. Its zero value names none (the call
// was not guarded), and Finish ignores it.
type Ticket struct {
	key     string
	attempt uint64
}

// Key returns the store key of the attempt.
func (t Ticket) Key() string { return t.key }

// Attempt returns the attempt's number under its key, from 1.
func (t Ticket) Attempt() uint64 { return t.attempt }

// Errors of the transitions.
var (
	// ErrStaleTicket: the ticket is not a live attempt of this guard (it
	// was finished already, or its process restarted).
	ErrStaleTicket = errors.New("guard: ticket is not a live attempt")
	// ErrNotUnknown: Resolve of a key whose outcome is not unknown.
	ErrNotUnknown = errors.New("guard: key has no unknown outcome")
	// ErrTooEarly: Resolve as not executed before Config.VerifyAfter has
	// passed since the attempt was sent.
	ErrTooEarly = errors.New("guard: too early to conclude that the attempt was not executed")
	// ErrCapacity: Issue of a new action to a full store.
	ErrCapacity = errors.New("guard: store at capacity")
	// ErrPolicy: a transition the guard's policy does not have (Issue
	// outside Ledger).
	ErrPolicy = errors.New("guard: not a transition of this policy")
)

// Guard applies a policy over a store. It is safe for concurrent use.
// Attempts it forwards are live in it until finished; a Guard replacing
// one whose process died sees them as unknown (Restarted), never live.
type Guard struct {
	cfg   Config
	store Store
	// mem is store when it is a MemoryStore, called directly: a
	// transition's function passed to it stays on the stack, where one
	// passed through the interface escapes (two allocations a call).
	mem *MemoryStore

	mu sync.Mutex
	// keys holds the keys with live attempts (one map, not one of
	// tickets beside it: a simulated episode makes a guard).
	keys map[string]keyWaiters
}

// keyWaiters tracks the live attempts of one key and wakes Await callers
// when one ends.
type keyWaiters struct {
	first uint64   // a live attempt's number (attempts count from 1)
	more  []uint64 // the others' (a ledger's action may have several)
	round *round   // the Await callers of the next end; made by the first
}

// has reports whether attempt n is live.
func (w *keyWaiters) has(n uint64) bool {
	return n != 0 && (w.first == n || slices.Contains(w.more, n))
}

// liveLocked reports whether attempt n of key is live; g.mu is held.
func (g *Guard) liveLocked(key string, n uint64) bool {
	w, ok := g.keys[key]
	return ok && w.has(n)
}

// round is one wake-up of a key's Await callers: the end of an attempt.
type round struct {
	done   chan struct{} // closed when the attempt has ended
	end    End           // 0 when the attempt was never recorded (Begin failed)
	result []byte
}

// New returns a guard applying cfg over store (store may be nil under
// policy None).
func New(cfg Config, store Store) (*Guard, error) {
	g := new(Guard)
	if err := g.Reset(cfg, store); err != nil {
		return nil, err
	}
	return g, nil
}

// Reset makes g a guard applying cfg over store, as New does, forgetting
// its live attempts but keeping its storage: a simulation that makes a
// guard per episode reuses one. No call may be in progress on g. On an
// error g is unchanged.
func (g *Guard) Reset(cfg Config, store Store) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	if store == nil && cfg.Policy != None {
		return fmt.Errorf("guard: policy %s needs a store", cfg.Policy)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	mem, _ := store.(*MemoryStore)
	g.cfg, g.store, g.mem = cfg, store, mem
	if g.keys == nil {
		g.keys = map[string]keyWaiters{}
	} else {
		clear(g.keys)
	}
	return nil
}

// Config returns the guard's configuration.
func (g *Guard) Config() Config { return g.cfg }

// Key returns the store key of a call under the guard's policy, "" when the
// policy does not guard it (None; Keys without an agent key):
//
//	keys:<len(scope)>:<scope>:<agent key>
//	derived:<len(scope)>:<scope>:<fingerprint>
//	ledger:<len(scope)>:<scope>:<fingerprint>
//	verify:<len(scope)>:<scope>:<fingerprint>
//
// The scope's length makes the key unambiguous whatever the scope holds.
func (g *Guard) Key(c Call) string {
	var buf [keyBuf]byte
	kb, ok := g.appendKey(buf[:0], c)
	if !ok {
		return ""
	}
	return string(kb)
}

// keyBuf is the room on the stack for a store key: a MemoryStore finds
// a key it holds without a string made of it.
const keyBuf = 192

// appendKey appends the store key of a call to b; ok is false when the
// call is not guarded.
func (g *Guard) appendKey(b []byte, c Call) (_ []byte, ok bool) {
	id := c.Fingerprint
	switch g.cfg.Policy {
	case None:
		return b, false
	case Keys:
		if c.Key == "" {
			return b, false
		}
		id = c.Key
	}
	b = append(b, g.cfg.Policy.String()...)
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(len(c.Scope)), 10)
	b = append(b, ':')
	b = append(b, c.Scope...)
	b = append(b, ':')
	return append(b, id...), true
}

// Begin decides what to do with a call at time now. A Forward's attempt is
// recorded (durably, with a durable store) before Begin returns; every
// other decision reads only recorded state. An error from the store means
// nothing was decided and the call must not be forwarded.
func (g *Guard) Begin(ctx context.Context, c Call, now time.Time) (Decision, error) {
	var buf [keyBuf]byte
	kb, ok := g.appendKey(buf[:0], c)
	if !ok {
		return Decision{Outcome: Forward}, nil
	}
	d, err := g.begin(ctx, kb, c, now)
	if err == nil && d.Outcome == AtCapacity && g.cfg.Capacity > 0 {
		// Expired records are not protecting anything: purge them and
		// try once more before refusing.
		if n, perr := g.store.Purge(ctx, now); perr == nil && n > 0 {
			d, err = g.begin(ctx, kb, c, now)
		}
	}
	return d, err
}

func (g *Guard) begin(ctx context.Context, kb []byte, c Call, now time.Time) (Decision, error) {
	// (The same transition either way, written twice so that the
	// MemoryStore's keeps its Decision on the stack, and makes no key
	// of kb that the store holds already.)
	if m := g.mem; m != nil {
		var d Decision
		err := m.update(ctx, "", kb, func(key string, rec *Record, found bool, held int) Change {
			return g.beginIn(&d, key, c, rec, found, held, now)
		})
		d.Result = slices.Clone(d.Result) // the store's own
		return g.begun(d, kb, err)
	}
	key := string(kb)
	var d Decision
	err := g.store.Update(ctx, key, func(cur Record, found bool, held int) (Record, Change) {
		cur.Pending = slices.Clone(cur.Pending) // a transition may change it in place
		change := g.beginIn(&d, key, c, &cur, found, held, now)
		return cur, change
	})
	return g.begun(d, kb, err)
}

// beginIn is Begin's transition of the key's record: the decision (into
// d) and the record to store (rec, changed in place; see decide).
func (g *Guard) beginIn(d *Decision, key string, c Call, rec *Record, found bool, held int, now time.Time) Change {
	change := g.decide(d, key, c, rec, found, held, now)
	if d.Outcome == Forward {
		// Registered inside the update, so that a repeat deciding
		// right after sees the attempt live and its Await blocks.
		g.register(d.Ticket)
	}
	return change
}

// begun is Begin's answer once the store has applied its transition.
func (g *Guard) begun(d Decision, kb []byte, err error) (Decision, error) {
	if err != nil {
		if d.Outcome == Forward {
			g.unregister(d.Ticket, 0, nil)
		}
		return Decision{}, fmt.Errorf("guard: %s: %w", string(kb), err)
	}
	return d, nil
}

func (g *Guard) register(t Ticket) {
	g.mu.Lock()
	defer g.mu.Unlock()
	w := g.keys[t.key]
	if w.first == 0 {
		w.first = t.attempt
	} else {
		w.more = append(w.more, t.attempt)
	}
	g.keys[t.key] = w
}

// unregister ends a live attempt, waking its key's Await callers with a
// copy of result (made only when some wait).
func (g *Guard) unregister(t Ticket, end End, result []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	w, ok := g.keys[t.key]
	if !ok || !w.has(t.attempt) {
		return
	}
	if w.first == t.attempt {
		w.first = 0
		if n := len(w.more); n > 0 {
			w.first, w.more = w.more[n-1], w.more[:n-1]
		}
	} else {
		i := slices.Index(w.more, t.attempt)
		w.more = slices.Delete(w.more, i, i+1)
	}
	if r := w.round; r != nil {
		r.end, r.result = end, slices.Clone(result)
		close(r.done)
		w.round = nil
	}
	if w.first == 0 {
		delete(g.keys, t.key)
	} else {
		g.keys[t.key] = w
	}
}

func (g *Guard) isLive(t Ticket) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.liveLocked(t.key, t.attempt)
}

// Await is what a caller told to Wait does: it returns when the next
// attempt this guard forwarded under the call's key ends, with how it ended
// and its result, or at once (end 0) when no attempt of the key is live.
// On Succeeded the caller may answer with the result, which is the
// original's answer to the same call; otherwise it asks again (Begin).
func (g *Guard) Await(ctx context.Context, c Call) (End, []byte, error) {
	var buf [keyBuf]byte
	kb, _ := g.appendKey(buf[:0], c)
	g.mu.Lock()
	var r *round
	if w, ok := g.keys[string(kb)]; ok {
		if w.round == nil {
			w.round = &round{done: make(chan struct{})}
			g.keys[string(kb)] = w
		}
		r = w.round
	}
	g.mu.Unlock()
	if r == nil {
		return 0, nil, nil
	}
	select {
	case <-r.done:
		return r.end, r.result, nil
	case <-ctx.Done():
		return 0, nil, ctx.Err()
	}
}

// Finish records how a forwarded attempt ended, with the answer to store
// (Succeeded; Failed under CacheErrors). With a durable store the
// transition is durable before Finish returns, so the caller may answer
// the agent after it and not before. The zero Ticket is ignored.
func (g *Guard) Finish(ctx context.Context, t Ticket, end End, result []byte, now time.Time) error {
	if t.key == "" {
		return nil
	}
	if end < Succeeded || end > NotSent {
		return fmt.Errorf("guard: unknown end %d", uint8(end))
	}
	if !g.isLive(t) {
		return fmt.Errorf("%w: %s attempt %d", ErrStaleTicket, t.key, t.attempt)
	}
	var err, ferr error
	if m := g.mem; m != nil {
		// (As in begin: the MemoryStore's function stays on the stack.)
		var merr error
		err = m.update(ctx, t.key, nil, func(_ string, rec *Record, found bool, _ int) (change Change) {
			change, merr = g.finish(t, rec, found, end, result, now)
			return change
		})
		ferr = merr
	} else {
		var serr error
		err = g.store.Update(ctx, t.key, func(cur Record, found bool, _ int) (next Record, change Change) {
			cur.Pending = slices.Clone(cur.Pending) // a transition may change it in place
			change, serr = g.finish(t, &cur, found, end, result, now)
			return cur, change
		})
		ferr = serr
	}
	if err != nil {
		return fmt.Errorf("guard: %s: %w", t.key, err)
	}
	if ferr != nil {
		return ferr
	}
	g.unregister(t, end, result)
	return nil
}

// Resolve records what a verification found of a call's unknown attempt
// and decides the call, in one transition. Executed: the attempt's
// result is stored (the given result, the read-back's answer) and the call
// is decided again, so it is replayed (under Ledger, forwarded if an
// authorisation is left, else refused as consumed). Not executed: the key (or the
// ledger's authorisation) is released and the call decided again, which
// forwards it. Concluding "not executed" before Config.VerifyAfter has
// passed since the attempt was sent returns ErrTooEarly; a key whose
// outcome is not unknown, ErrNotUnknown. A Forward must be finished.
func (g *Guard) Resolve(ctx context.Context, c Call, executed bool, result []byte, now time.Time) (Decision, error) {
	var buf [keyBuf]byte
	kb, ok := g.appendKey(buf[:0], c)
	if !ok {
		return Decision{}, fmt.Errorf("%w: the call is not guarded", ErrNotUnknown)
	}
	// (As in begin: the MemoryStore's function stays on the stack.)
	if m := g.mem; m != nil {
		var d Decision
		var rerr error
		err := m.update(ctx, "", kb, func(key string, rec *Record, found bool, held int) Change {
			return g.resolveIn(&d, &rerr, key, c, rec, found, held, executed, result, now)
		})
		d.Result = slices.Clone(d.Result) // the store's own
		return g.resolved(d, kb, err, rerr)
	}
	key := string(kb)
	var d Decision
	var rerr error
	err := g.store.Update(ctx, key, func(cur Record, found bool, held int) (Record, Change) {
		cur.Pending = slices.Clone(cur.Pending) // a transition may change it in place
		change := g.resolveIn(&d, &rerr, key, c, &cur, found, held, executed, result, now)
		return cur, change
	})
	return g.resolved(d, kb, err, rerr)
}

// resolveIn is Resolve's transition of the key's record: the finding
// applied and the call decided again (into d), or the finding's error
// (into rerr) and no change. rec is changed in place (see decide).
func (g *Guard) resolveIn(d *Decision, rerr *error, key string, c Call, rec *Record, found bool, held int, executed bool, result []byte, now time.Time) Change {
	change, err := g.resolve(rec, found, executed, result, now)
	if err != nil {
		*rerr = err
		return Keep
	}
	present := change != Delete
	if !present {
		held-- // the slot is reused, not added
	}
	// decide changes rec only when it stores it; otherwise the finding's
	// change stands.
	if g.decide(d, key, c, rec, present, held, now) == Put {
		change = Put
	}
	if d.Outcome == Forward {
		g.register(d.Ticket)
	}
	return change
}

// resolved is Resolve's answer once the store has applied its transition.
func (g *Guard) resolved(d Decision, kb []byte, err, rerr error) (Decision, error) {
	if err != nil {
		if d.Outcome == Forward {
			g.unregister(d.Ticket, 0, nil)
		}
		return Decision{}, fmt.Errorf("guard: %s: %w", string(kb), err)
	}
	if rerr != nil {
		return Decision{}, fmt.Errorf("%w: %s", rerr, string(kb))
	}
	return d, nil
}

// Issue (policy Ledger) issues n more authorisations for the call's
// action: the confirmation that the action is wanted n more times.
func (g *Guard) Issue(ctx context.Context, c Call, n int, now time.Time) error {
	if g.cfg.Policy != Ledger {
		return fmt.Errorf("%w: Issue under policy %s", ErrPolicy, g.cfg.Policy)
	}
	if n <= 0 {
		return fmt.Errorf("guard: Issue of %d authorisations", n)
	}
	var buf [keyBuf]byte
	kb, _ := g.appendKey(buf[:0], c)
	var err, ierr error
	if m := g.mem; m != nil {
		// (As in begin: the MemoryStore's function stays on the stack.)
		var merr error
		err = m.update(ctx, "", kb, func(key string, rec *Record, found bool, held int) Change {
			return g.issueIn(&merr, key, c, n, rec, found, held, now)
		})
		ierr = merr
	} else {
		key := string(kb)
		var serr error
		err = g.store.Update(ctx, key, func(cur Record, found bool, held int) (Record, Change) {
			change := g.issueIn(&serr, key, c, n, &cur, found, held, now)
			return cur, change
		})
		ierr = serr
	}
	if err != nil {
		return fmt.Errorf("guard: %s: %w", string(kb), err)
	}
	if ierr != nil {
		return fmt.Errorf("%w: %s", ierr, string(kb))
	}
	return nil
}

// issueIn is Issue's transition of the key's record (rec, changed in
// place): n more authorisations, or ErrCapacity (into ierr) and no change.
func (g *Guard) issueIn(ierr *error, key string, c Call, n int, rec *Record, found bool, held int, now time.Time) Change {
	if !found {
		if g.cfg.Capacity > 0 && held >= g.cfg.Capacity {
			*ierr = ErrCapacity
			return Keep
		}
		*rec = Record{Key: key, Tool: c.Tool, Fingerprint: c.Fingerprint}
	}
	rec.Issued += n
	rec.Updated = now
	rec.State = ledgerState(rec)
	return Put
}

// Get returns the stored record of a call's key.
func (g *Guard) Get(ctx context.Context, c Call) (Record, bool, error) {
	key := g.Key(c)
	if key == "" {
		return Record{}, false, nil
	}
	return g.store.Get(ctx, key)
}

// Purge deletes the records that have expired at now.
func (g *Guard) Purge(ctx context.Context, now time.Time) (int, error) {
	if g.store == nil {
		return 0, nil
	}
	return g.store.Purge(ctx, now)
}
