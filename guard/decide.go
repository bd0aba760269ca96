package guard

import (
	"slices"
	"time"
)

// decide is the policies' decision: from a key's record rec (and the
// number of records held) at now, the outcome (into d) and the change to
// make. rec becomes the record to store when the change is Put, and is
// left as it was otherwise. Its Pending may be changed in place: it is
// the guard's to change (a MemoryStore's own record, or a copy made for
// the transition), and no Decision refers to it. It depends on nothing
// but its arguments and the guard's live attempts.
func (g *Guard) decide(d *Decision, key string, c Call, rec *Record, found bool, held int, now time.Time) Change {
	*d = Decision{Key: key}
	if found && rec.expired(now) {
		found = false // an expired record is overwritten, in its own slot
	} else if !found && g.cfg.Capacity > 0 && held >= g.cfg.Capacity && !(g.cfg.Policy == Ledger && !g.cfg.IssueOnFirstCall) {
		d.Outcome = AtCapacity
		return Keep
	}
	if found {
		// Attempts recorded in flight that this guard is not running were
		// sent by a process that died, or by a Begin whose store reported
		// an error after writing: their outcome is unknown.
		if g.orphaned(key, rec, now) {
			g.decide(d, key, c, rec, true, held, now)
			return Put
		}
	}
	if g.cfg.Policy == Ledger {
		return g.decideLedger(d, c, rec, found, now)
	}
	if !found {
		*rec = Record{Attempt: rec.Attempt}
		return g.forward(d, c, rec, now)
	}
	if g.cfg.Policy == Keys && rec.Fingerprint != c.Fingerprint {
		d.Outcome = Conflict
		return Keep
	}
	switch rec.State {
	case StateInFlight:
		g.inFlight(d, rec)
		return Keep
	case StateSucceeded:
		d.Outcome, d.Result = Replay, rec.Result
	case StateFailed:
		d.Outcome, d.Result = ReplayError, rec.Result
	case StateUnknown:
		if g.cfg.ReforwardUnknown {
			d.Reforward = true
			return g.forward(d, c, rec, now)
		}
		d.Outcome, d.Since, d.VerifyAt = UnknownOutcome, rec.Began, rec.Began.Add(g.cfg.VerifyAfter)
	default:
		// A record this policy does not write (a ledger's under another
		// policy cannot share its key); treat it as unknown rather than
		// guess.
		d.Outcome, d.Since, d.VerifyAt = UnknownOutcome, rec.Began, rec.Began.Add(g.cfg.VerifyAfter)
	}
	return Keep
}

// orphaned turns rec's attempts in flight that no live ticket of this
// guard holds unknown, and reports whether there were any (rec is
// unchanged when there were none).
func (g *Guard) orphaned(key string, rec *Record, now time.Time) bool {
	if rec.State != StateInFlight {
		return false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cfg.Policy == Ledger || len(rec.Pending) > 0 {
		changed := false
		for i, a := range rec.Pending {
			if !a.Lost && !g.liveLocked(key, a.N) {
				rec.Pending[i].Lost = true
				changed = true
			}
		}
		if changed {
			rec.Updated = now
			rec.State = ledgerState(rec)
		}
		return changed
	}
	if g.liveLocked(key, rec.Attempt) {
		return false
	}
	*rec, _ = Restarted(*rec)
	rec.Updated = now
	return true
}

// forward starts a new attempt on rec.
func (g *Guard) forward(d *Decision, c Call, rec *Record, now time.Time) Change {
	rec.Tool, rec.Fingerprint = c.Tool, c.Fingerprint
	rec.State = StateInFlight
	rec.Attempt++
	rec.Began, rec.Updated = now, now
	rec.Expires, rec.Result = time.Time{}, nil
	d.Outcome = Forward
	d.Ticket = Ticket{key: d.Key, attempt: rec.Attempt}
	return Put
}

func (g *Guard) inFlight(d *Decision, rec *Record) {
	d.Outcome, d.Since = Wait, rec.Began
	if g.cfg.InFlight == InFlightRefuse {
		d.Outcome = RefuseInFlight
	}
}

// decideLedger spends the action's authorisations: an attempt is prepared
// while one is left; otherwise a repeat waits for one in flight, is told to
// verify the oldest lost one, or is refused as consumed.
func (g *Guard) decideLedger(d *Decision, c Call, rec *Record, found bool, now time.Time) Change {
	if !found {
		if !g.cfg.IssueOnFirstCall {
			d.Outcome = Unauthorised
			return Keep
		}
		*rec = Record{Tool: c.Tool, Fingerprint: c.Fingerprint, Issued: 1, Updated: now}
	}
	if rec.Issued-rec.Committed-len(rec.Pending) > 0 {
		rec.Attempt++
		rec.Pending = append(rec.Pending, Attempt{N: rec.Attempt, Sent: now})
		rec.Began, rec.Updated = now, now
		rec.State = ledgerState(rec)
		d.Outcome = Forward
		d.Ticket = Ticket{key: d.Key, attempt: rec.Attempt}
		return Put
	}
	if i := oldest(rec.Pending, false); i >= 0 {
		g.inFlight(d, rec)
		d.Since = rec.Pending[i].Sent
		return Keep
	}
	if i := oldest(rec.Pending, true); i >= 0 {
		d.Outcome, d.Since = UnknownOutcome, rec.Pending[i].Sent
		d.VerifyAt = d.Since.Add(g.cfg.VerifyAfter)
		return Keep
	}
	d.Outcome, d.Result = Consumed, rec.Result
	return Keep
}

// oldest returns the index of the first attempt in flight (lost false) or
// lost (lost true), or -1.
func oldest(p []Attempt, lost bool) int {
	for i, a := range p {
		if a.Lost == lost {
			return i
		}
	}
	return -1
}

// ledgerState summarises a ledger record as one state, for people reading
// the store.
func ledgerState(r *Record) State {
	switch {
	case r.count(false) > 0:
		return StateInFlight
	case r.count(true) > 0:
		return StateUnknown
	case r.Committed >= r.Issued:
		return StateConsumed
	}
	return StateIssued
}

// finish applies an attempt's end to its key's record rec (in place, as
// decide changes it), or returns an error and leaves rec as it was.
func (g *Guard) finish(t Ticket, rec *Record, found bool, end End, result []byte, now time.Time) (Change, error) {
	if g.cfg.Policy == Ledger {
		i := slices.IndexFunc(rec.Pending, func(a Attempt) bool { return a.N == t.attempt && !a.Lost })
		if !found || i < 0 {
			return Keep, ErrStaleTicket
		}
		switch end {
		case Succeeded:
			rec.Committed++
			rec.Result = result
			rec.Pending = slices.Delete(rec.Pending, i, i+1)
		case Lost:
			rec.Pending[i].Lost = true
		default:
			// Failed and NotSent hand the authorisation back: nothing ran.
			rec.Pending = slices.Delete(rec.Pending, i, i+1)
		}
		rec.Updated = now
		rec.State = ledgerState(rec)
		return Put, nil
	}
	if !found || rec.State != StateInFlight || rec.Attempt != t.attempt {
		return Keep, ErrStaleTicket
	}
	switch end {
	case Succeeded:
		if g.cfg.Policy == Verify {
			return Delete, nil // the read-back guard remembers only lost outcomes
		}
		rec.Updated = now
		rec.State, rec.Result = StateSucceeded, result
		rec.Expires = g.expiry(rec.Began)
		return Put, nil
	case Failed:
		if !g.cfg.CacheErrors {
			return Delete, nil
		}
		rec.Updated = now
		rec.State, rec.Result = StateFailed, result
		rec.Expires = g.expiry(rec.Began)
		return Put, nil
	case Lost:
		rec.Updated = now
		rec.State = StateUnknown
		return Put, nil
	}
	return Delete, nil // NotSent
}

func (g *Guard) expiry(began time.Time) time.Time {
	if g.cfg.TTL <= 0 {
		return time.Time{}
	}
	return began.Add(g.cfg.TTL)
}

// resolve applies a verification's finding to an unknown key's record
// rec (in place), or returns an error and leaves rec as it was.
func (g *Guard) resolve(rec *Record, found, executed bool, result []byte, now time.Time) (Change, error) {
	if g.cfg.Policy == Ledger {
		// The oldest lost attempt: the one an UnknownOutcome names.
		i := oldest(rec.Pending, true)
		if !found || i < 0 {
			return Keep, ErrNotUnknown
		}
		if !executed && g.cfg.VerifyAfter > 0 && now.Before(rec.Pending[i].Sent.Add(g.cfg.VerifyAfter)) {
			return Keep, ErrTooEarly
		}
		rec.Pending = slices.Delete(rec.Pending, i, i+1)
		if executed {
			rec.Committed++
			rec.Result = result
		}
		rec.Updated = now
		rec.State = ledgerState(rec)
		return Put, nil
	}
	if !found || rec.State != StateUnknown {
		return Keep, ErrNotUnknown
	}
	if !executed && g.cfg.VerifyAfter > 0 && now.Before(rec.Began.Add(g.cfg.VerifyAfter)) {
		return Keep, ErrTooEarly
	}
	rec.Updated = now
	if !executed {
		return Delete, nil
	}
	rec.State, rec.Result = StateSucceeded, result
	rec.Expires = g.expiry(rec.Began)
	return Put, nil
}
