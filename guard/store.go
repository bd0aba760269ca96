package guard

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
	"time"
)

// Record is the stored state of one key.
type Record struct {
	Key         string // the store key (see Guard.Key)
	Tool        string
	Fingerprint string // of the call that created the record
	State       State
	Attempt     uint64    // attempts forwarded under the key so far
	Began       time.Time // when the latest attempt was forwarded
	Updated     time.Time // the latest transition
	Expires     time.Time // when the record stops protecting the key; zero: never
	Result      []byte    // the stored answer (StateSucceeded, StateFailed, a consumed action's last)

	// An action ledger's budget: authorisations issued and executions
	// committed, and its attempts in flight or lost, oldest first.
	Issued, Committed int
	Pending           []Attempt
}

// Attempt is an action ledger's prepared attempt: sent, and not known to
// have committed or failed.
type Attempt struct {
	N    uint64    // its number under the key (Ticket.Attempt)
	Sent time.Time // when it was forwarded
	Lost bool      // its outcome was never learned; else it is in flight
}

// Prepared is the number of the ledger's attempts in flight.
func (r Record) Prepared() int { return r.count(false) }

// Unresolved is the number of the ledger's attempts whose outcome was lost.
func (r Record) Unresolved() int { return r.count(true) }

func (r *Record) count(lost bool) int {
	n := 0
	for _, a := range r.Pending {
		if a.Lost == lost {
			n++
		}
	}
	return n
}

// clone returns r with its slices copied, so that a caller's changes do
// not reach a store's copy.
func (r Record) clone() Record {
	r.Result = slices.Clone(r.Result)
	r.Pending = slices.Clone(r.Pending)
	return r
}

// Change is what an UpdateFunc asks the store to do with a key's record.
type Change uint8

const (
	// Keep leaves the record as it was.
	Keep Change = iota
	// Put stores the returned record.
	Put
	// Delete removes the record.
	Delete
)

// UpdateFunc computes a key's next record from its current one (found
// false and a zero Record when there is none) and the number of records the
// store holds.
type UpdateFunc func(cur Record, found bool, held int) (next Record, change Change)

// A Store holds the guard's records.
//
// Update is the one way to change a record. It calls fn exactly once and
// applies the change fn returns, atomically: no other Update of the same
// key runs between the read and the write, so of two concurrent first
// calls with one key exactly one sees the key absent. A durable store has
// the change on stable storage before Update returns, and returns only
// after every change fn's decision read is durable too. fn must not call
// the store, and must be quick. When Update returns an error, the change
// may not have happened and the caller must not act on fn's result. When
// ctx ends before the change is applied, Update returns ctx.Err() without
// calling fn; once applied, Update waits for the change to be durable.
//
// Get returns a key's record. Purge deletes the records whose Expires has
// passed at now (never one in flight or unknown, which do not expire) and
// returns how many it deleted. Close releases the store; later calls
// return ErrClosed.
type Store interface {
	Update(ctx context.Context, key string, fn UpdateFunc) error
	Get(ctx context.Context, key string) (Record, bool, error)
	Purge(ctx context.Context, now time.Time) (int, error)
	Close() error
}

// ErrClosed is returned by a closed store.
var ErrClosed = errors.New("guard: store closed")

// Restarted returns what a record becomes when the process that forwarded
// its attempts has died: attempts in flight have unknown outcomes, since
// they may have committed after the last transition was recorded. It
// reports whether the record changed. A durable store applies it to every
// record when it opens; MemoryStore.Restart applies it to model a restart.
func Restarted(r Record) (Record, bool) {
	switch {
	case r.Prepared() > 0:
		r.Pending = slices.Clone(r.Pending)
		for i := range r.Pending {
			r.Pending[i].Lost = true
		}
		r.State = ledgerState(&r)
		return r, true
	case r.State == StateInFlight:
		r.State = StateUnknown
		r.Result = nil
		return r, true
	}
	return r, false
}

// Expired reports whether r no longer protects its key at now, so that a
// store may purge it. Records in flight or unknown never expire: their
// outcome is still to be learned.
func (r Record) Expired(now time.Time) bool { return r.expired(now) }

func (r *Record) expired(now time.Time) bool {
	return !r.Expires.IsZero() && !now.Before(r.Expires) && r.State != StateInFlight && r.State != StateUnknown && len(r.Pending) == 0
}

// MemoryStore is a Store in memory: deterministic, for the simulated
// sandbox (whose clock is virtual) and for tests. Its state is lost with
// the process; Restart models the restart of a durable store.
type MemoryStore struct {
	mu sync.Mutex
	// recs holds each key's record, updated in place: a Record is too
	// large for a map to hold by value without copying it on every
	// update.
	recs   map[string]*Record
	closed bool
	// Storage of the first records, allocated with the store (a
	// simulated episode's guard holds a few).
	recsN [4]Record
	nrecs int
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{recs: map[string]*Record{}} }

// Update implements Store.
func (m *MemoryStore) Update(ctx context.Context, key string, fn UpdateFunc) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	p := m.recs[key]
	var cur Record
	if p != nil {
		cur = p.clone()
	}
	next, change := fn(cur, p != nil, len(m.recs))
	switch change {
	case Put:
		next.Key = key
		if p == nil {
			if m.nrecs < len(m.recsN) {
				p = &m.recsN[m.nrecs]
				m.nrecs++
			} else {
				p = new(Record)
			}
			m.recs[key] = p
		}
		*p = next.clone()
	case Delete:
		delete(m.recs, key)
	}
	return nil
}

// transition is a transition of this package's (a Guard's): it changes
// rec, a key's record, in place to the record to store, given the key as
// the store holds it. It changes rec only when it returns Put (then
// perhaps rec.Pending in place too), never changes rec.Result in place,
// and keeps no reference to rec past the call but the Result it hands on.
type transition func(key string, rec *Record, found bool, held int) Change

// update is Update for a Guard over this store, without the copies that
// Update makes for an UpdateFunc it does not know: fn changes the stored
// record itself, the key it is given is the stored one (key, or kb's
// string made only for a new key when key is ""), and only a Result fn
// puts in that is not the stored one is copied (the caller's answer,
// which the caller may change). A Result fn hands on out of the stored
// record is the store's: the Guard copies it before it leaves the
// package.
func (m *MemoryStore) update(ctx context.Context, key string, kb []byte, fn transition) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return ErrClosed
	}
	var p *Record
	if key != "" {
		p = m.recs[key]
	} else {
		p = m.recs[string(kb)]
	}
	if p != nil {
		key = p.Key
		result := p.Result
		switch fn(key, p, true, len(m.recs)) {
		case Put:
			p.Key = key
			if !sameSlice(p.Result, result) {
				p.Result = slices.Clone(p.Result)
			}
		case Delete:
			delete(m.recs, key)
		}
		return nil
	}
	if key == "" {
		key = string(kb)
	}
	// The new record is made in its slot (a slot is used once, so it
	// is zero), and the slot taken only if fn stores it.
	slot := m.nrecs < len(m.recsN)
	if slot {
		p = &m.recsN[m.nrecs]
	} else {
		p = new(Record)
	}
	if fn(key, p, false, len(m.recs)) != Put {
		*p = Record{}
		return nil
	}
	if slot {
		m.nrecs++
	}
	p.Key = key
	p.Result = slices.Clone(p.Result)
	m.recs[key] = p
	return nil
}

// sameSlice reports whether a and b are the same slice (one array, one
// length).
func sameSlice(a, b []byte) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// Get implements Store.
func (m *MemoryStore) Get(ctx context.Context, key string) (Record, bool, error) {
	if err := ctx.Err(); err != nil {
		return Record{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return Record{}, false, ErrClosed
	}
	p := m.recs[key]
	if p == nil {
		return Record{}, false, nil
	}
	return p.clone(), true, nil
}

// Purge implements Store.
func (m *MemoryStore) Purge(ctx context.Context, now time.Time) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0, ErrClosed
	}
	n := 0
	for k, p := range m.recs {
		if p.Expired(now) {
			delete(m.recs, k)
			n++
		}
	}
	return n, nil
}

// Len returns the number of records held.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.recs)
}

// Keys returns the keys held, sorted.
func (m *MemoryStore) Keys() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Sorted(maps.Keys(m.recs))
}

// Restart applies Restarted to every record, as a durable store does when
// it is opened after its process died: what a simulated guard's crash
// leaves behind.
func (m *MemoryStore) Restart() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, p := range m.recs {
		if r, ok := Restarted(*p); ok {
			*p = r
		}
	}
}

// Reset empties the store, and opens it again if it was closed, keeping
// its storage: a simulation that makes a store per episode reuses one
// instead of allocating tens of thousands.
func (m *MemoryStore) Reset() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.recs == nil {
		m.recs = map[string]*Record{}
	} else {
		clear(m.recs)
	}
	clear(m.recsN[:m.nrecs])
	m.nrecs, m.closed = 0, false
}

// Close implements Store.
func (m *MemoryStore) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	return nil
}
