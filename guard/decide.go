package guard

import (
	"slices"
	"time"
)

// decide is the policies' decision: from a key's record (and the number
// of records held) at now, the outcome and the record to store. It is a
// pure function of its arguments.
func (g *Guard) decide(key string, c Call, cur Record, found bool, held int, now time.Time) (Decision, Record, Change) {
	d := Decision{Key: key}
	if found && cur.Expired(now) {
		found = false // an expired record is overwritten, in its own slot
	} else if !found && g.cfg.Capacity > 0 && held >= g.cfg.Capacity && !(g.cfg.Policy == Ledger && !g.cfg.IssueOnFirstCall) {
		d.Outcome = AtCapacity
		return d, cur, Keep
	}
	if found {
		// Attempts recorded in flight that this guard is not running were
		// sent by a process that died, or by a Begin whose store reported
		// an error after writing: their outcome is unknown.
		if r, changed := g.orphaned(key, cur, now); changed {
			d, next, _ := g.decide(key, c, r, true, held, now)
			return d, next, Put
		}
	}
	if g.cfg.Policy == Ledger {
		return g.decideLedger(d, c, cur, found, now)
	}
	if !found {
		return g.forward(d, c, Record{Attempt: cur.Attempt}, now)
	}
	if g.cfg.Policy == Keys && cur.Fingerprint != c.Fingerprint {
		d.Outcome = Conflict
		return d, cur, Keep
	}
	switch cur.State {
	case StateInFlight:
		return g.inFlight(d, cur), cur, Keep
	case StateSucceeded:
		d.Outcome, d.Result = Replay, cur.Result
	case StateFailed:
		d.Outcome, d.Result = ReplayError, cur.Result
	case StateUnknown:
		if g.cfg.ReforwardUnknown {
			d.Reforward = true
			return g.forward(d, c, cur, now)
		}
		d.Outcome, d.Since, d.VerifyAt = UnknownOutcome, cur.Began, cur.Began.Add(g.cfg.VerifyAfter)
	default:
		// A record this policy does not write (a ledger's under another
		// policy cannot share its key); treat it as unknown rather than
		// guess.
		d.Outcome, d.Since, d.VerifyAt = UnknownOutcome, cur.Began, cur.Began.Add(g.cfg.VerifyAfter)
	}
	return d, cur, Keep
}

// orphaned returns cur with its attempts in flight that no live ticket of
// this guard holds turned unknown, and whether there were any.
func (g *Guard) orphaned(key string, cur Record, now time.Time) (Record, bool) {
	if cur.State != StateInFlight {
		return cur, false
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cfg.Policy == Ledger || len(cur.Pending) > 0 {
		changed := false
		for i, a := range cur.Pending {
			if _, live := g.live[Ticket{key: key, attempt: a.N}]; !a.Lost && !live {
				if !changed {
					cur.Pending = slices.Clone(cur.Pending)
					changed = true
				}
				cur.Pending[i].Lost = true
			}
		}
		if changed {
			cur.Updated = now
			cur.State = ledgerState(cur)
		}
		return cur, changed
	}
	if _, live := g.live[Ticket{key: key, attempt: cur.Attempt}]; live {
		return cur, false
	}
	r, _ := Restarted(cur)
	r.Updated = now
	return r, true
}

// forward starts a new attempt on rec.
func (g *Guard) forward(d Decision, c Call, rec Record, now time.Time) (Decision, Record, Change) {
	rec.Tool, rec.Fingerprint = c.Tool, c.Fingerprint
	rec.State = StateInFlight
	rec.Attempt++
	rec.Began, rec.Updated = now, now
	rec.Expires, rec.Result = time.Time{}, nil
	d.Outcome = Forward
	d.Ticket = Ticket{key: d.Key, attempt: rec.Attempt}
	return d, rec, Put
}

func (g *Guard) inFlight(d Decision, cur Record) Decision {
	d.Outcome, d.Since = Wait, cur.Began
	if g.cfg.InFlight == InFlightRefuse {
		d.Outcome = RefuseInFlight
	}
	return d
}

// decideLedger spends the action's authorisations: an attempt is prepared
// while one is left; otherwise a repeat waits for one in flight, is told to
// verify the oldest lost one, or is refused as consumed.
func (g *Guard) decideLedger(d Decision, c Call, cur Record, found bool, now time.Time) (Decision, Record, Change) {
	if !found {
		if !g.cfg.IssueOnFirstCall {
			d.Outcome = Unauthorised
			return d, cur, Keep
		}
		cur = Record{Tool: c.Tool, Fingerprint: c.Fingerprint, Issued: 1, Updated: now}
	}
	if cur.Issued-cur.Committed-len(cur.Pending) > 0 {
		cur.Attempt++
		cur.Pending = append(slices.Clone(cur.Pending), Attempt{N: cur.Attempt, Sent: now})
		cur.Began, cur.Updated = now, now
		cur.State = ledgerState(cur)
		d.Outcome = Forward
		d.Ticket = Ticket{key: d.Key, attempt: cur.Attempt}
		return d, cur, Put
	}
	if i := oldest(cur.Pending, false); i >= 0 {
		d = g.inFlight(d, cur)
		d.Since = cur.Pending[i].Sent
		return d, cur, Keep
	}
	if i := oldest(cur.Pending, true); i >= 0 {
		d.Outcome, d.Since = UnknownOutcome, cur.Pending[i].Sent
		d.VerifyAt = d.Since.Add(g.cfg.VerifyAfter)
		return d, cur, Keep
	}
	d.Outcome, d.Result = Consumed, cur.Result
	return d, cur, Keep
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
func ledgerState(r Record) State {
	switch {
	case r.Prepared() > 0:
		return StateInFlight
	case r.Unresolved() > 0:
		return StateUnknown
	case r.Committed >= r.Issued:
		return StateConsumed
	}
	return StateIssued
}

// finish applies an attempt's end to its key's record.
func (g *Guard) finish(t Ticket, cur Record, found bool, end End, result []byte, now time.Time) (Record, Change, error) {
	if g.cfg.Policy == Ledger {
		i := slices.IndexFunc(cur.Pending, func(a Attempt) bool { return a.N == t.attempt && !a.Lost })
		if !found || i < 0 {
			return cur, Keep, ErrStaleTicket
		}
		cur.Pending = slices.Clone(cur.Pending)
		switch end {
		case Succeeded:
			cur.Committed++
			cur.Result = result
			cur.Pending = slices.Delete(cur.Pending, i, i+1)
		case Lost:
			cur.Pending[i].Lost = true
		default:
			// Failed and NotSent hand the authorisation back: nothing ran.
			cur.Pending = slices.Delete(cur.Pending, i, i+1)
		}
		cur.Updated = now
		cur.State = ledgerState(cur)
		return cur, Put, nil
	}
	if !found || cur.State != StateInFlight || cur.Attempt != t.attempt {
		return cur, Keep, ErrStaleTicket
	}
	cur.Updated = now
	switch end {
	case Succeeded:
		if g.cfg.Policy == Verify {
			return cur, Delete, nil // the read-back guard remembers only lost outcomes
		}
		cur.State, cur.Result = StateSucceeded, result
		cur.Expires = g.expiry(cur.Began)
		return cur, Put, nil
	case Failed:
		if !g.cfg.CacheErrors {
			return cur, Delete, nil
		}
		cur.State, cur.Result = StateFailed, result
		cur.Expires = g.expiry(cur.Began)
		return cur, Put, nil
	case Lost:
		cur.State = StateUnknown
		return cur, Put, nil
	}
	return cur, Delete, nil // NotSent
}

func (g *Guard) expiry(began time.Time) time.Time {
	if g.cfg.TTL <= 0 {
		return time.Time{}
	}
	return began.Add(g.cfg.TTL)
}

// resolve applies a verification's finding to an unknown key.
func (g *Guard) resolve(cur Record, found, executed bool, result []byte, now time.Time) (Record, Change, error) {
	if g.cfg.Policy == Ledger {
		// The oldest lost attempt: the one an UnknownOutcome names.
		i := oldest(cur.Pending, true)
		if !found || i < 0 {
			return cur, Keep, ErrNotUnknown
		}
		if !executed && g.cfg.VerifyAfter > 0 && now.Before(cur.Pending[i].Sent.Add(g.cfg.VerifyAfter)) {
			return cur, Keep, ErrTooEarly
		}
		cur.Pending = slices.Delete(slices.Clone(cur.Pending), i, i+1)
		if executed {
			cur.Committed++
			cur.Result = result
		}
		cur.Updated = now
		cur.State = ledgerState(cur)
		return cur, Put, nil
	}
	if !found || cur.State != StateUnknown {
		return cur, Keep, ErrNotUnknown
	}
	if !executed && g.cfg.VerifyAfter > 0 && now.Before(cur.Began.Add(g.cfg.VerifyAfter)) {
		return cur, Keep, ErrTooEarly
	}
	cur.Updated = now
	if !executed {
		return cur, Delete, nil
	}
	cur.State, cur.Result = StateSucceeded, result
	cur.Expires = g.expiry(cur.Began)
	return cur, Put, nil
}
