package guard

import "time"

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
	if cur.State != StateInFlight && cur.Prepared == 0 {
		return cur, false
	}
	g.mu.Lock()
	live := 0
	if w := g.keys[key]; w != nil {
		live = w.live
	}
	g.mu.Unlock()
	if cur.Prepared > 0 {
		if n := cur.Prepared - live; n > 0 {
			cur.Prepared -= n
			cur.Unresolved += n
			cur.Updated = now
			cur.State = ledgerState(cur)
			return cur, true
		}
		return cur, false
	}
	if live > 0 {
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
// verify one unknown, or is refused as consumed.
func (g *Guard) decideLedger(d Decision, c Call, cur Record, found bool, now time.Time) (Decision, Record, Change) {
	if !found {
		if !g.cfg.IssueOnFirstCall {
			d.Outcome = Unauthorised
			return d, cur, Keep
		}
		cur = Record{Tool: c.Tool, Fingerprint: c.Fingerprint, Issued: 1, Updated: now}
	}
	switch {
	case cur.Issued-cur.Committed-cur.Prepared-cur.Unresolved > 0:
		cur.Prepared++
		cur.Attempt++
		cur.Began, cur.Updated = now, now
		cur.State = ledgerState(cur)
		d.Outcome = Forward
		d.Ticket = Ticket{key: d.Key, attempt: cur.Attempt}
		return d, cur, Put
	case cur.Prepared > 0:
		return g.inFlight(d, cur), cur, Keep
	case cur.Unresolved > 0:
		d.Outcome, d.Since, d.VerifyAt = UnknownOutcome, cur.Began, cur.Began.Add(g.cfg.VerifyAfter)
	default:
		d.Outcome, d.Result = Consumed, cur.Result
	}
	return d, cur, Keep
}

// ledgerState summarises a ledger record's counts as one state, for people
// reading the store.
func ledgerState(r Record) State {
	switch {
	case r.Prepared > 0:
		return StateInFlight
	case r.Unresolved > 0:
		return StateUnknown
	case r.Committed >= r.Issued:
		return StateConsumed
	}
	return StateIssued
}

// finish applies an attempt's end to its key's record.
func (g *Guard) finish(t Ticket, cur Record, found bool, end End, result []byte, now time.Time) (Record, Change, error) {
	if g.cfg.Policy == Ledger {
		if !found || cur.Prepared == 0 || t.attempt > cur.Attempt {
			return cur, Keep, ErrStaleTicket
		}
		cur.Prepared--
		switch end {
		case Succeeded:
			cur.Committed++
			cur.Result = result
		case Lost:
			cur.Unresolved++
		}
		// Failed and NotSent hand the authorisation back: nothing ran.
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
	unknown := found && (cur.Unresolved > 0 || (g.cfg.Policy != Ledger && cur.State == StateUnknown))
	if !unknown {
		return cur, Keep, ErrNotUnknown
	}
	if !executed && g.cfg.VerifyAfter > 0 && now.Before(cur.Began.Add(g.cfg.VerifyAfter)) {
		return cur, Keep, ErrTooEarly
	}
	cur.Updated = now
	if g.cfg.Policy == Ledger {
		cur.Unresolved--
		if executed {
			cur.Committed++
			cur.Result = result
		}
		cur.State = ledgerState(cur)
		return cur, Put, nil
	}
	if !executed {
		return cur, Delete, nil
	}
	cur.State, cur.Result = StateSucceeded, result
	cur.Expires = g.expiry(cur.Began)
	return cur, Put, nil
}
