package guard

import (
	"fmt"
	"strings"
)

// Outcome is what a guard decides to do with one call.
type Outcome uint8

const (
	// Forward: execute the call. Nothing is known of the key (or the
	// policy does not guard the call), so executing is the only way to do
	// the work. The attempt is recorded as in flight before Begin returns,
	// and the caller must end it with Finish.
	Forward Outcome = iota + 1

	// Wait: the original is in flight, forwarded by this guard and not yet
	// answered. Executing again could commit the effect twice and
	// answering now would guess its result, so the caller waits for the
	// original (Await) and asks again.
	Wait

	// RefuseInFlight: as Wait, but the policy refuses the repeat at once
	// with a retryable error (HTTP 409 in Stripe's API) instead of holding
	// the caller, who retries later.
	RefuseInFlight

	// Replay: the key's execution succeeded; answer with its stored result
	// and do not execute, since executing again is the duplicate the key
	// exists to prevent.
	Replay

	// ReplayError: the key's execution ended in a definite error that the
	// policy caches (Stripe does); answer with the stored error. When the
	// error came before the commit, the work is lost: the repeat that
	// would have done it is answered with the old failure.
	ReplayError

	// Conflict: the key was first used with other effect arguments. A key
	// names one call; replaying the other call's result as this one's, or
	// executing under a key already spent, would both be wrong.
	Conflict

	// UnknownOutcome: an earlier execution was sent and its result never
	// learned (the upstream timed out, the process died). It may have
	// committed, may yet commit, or may never have run; replaying it as a
	// success could lose the work and forwarding could duplicate it. The
	// caller verifies (a read-back) and records the answer with Resolve.
	UnknownOutcome

	// AtCapacity: the store holds its maximum number of keys and this key
	// is new. It is refused rather than another key evicted, since
	// eviction forgets a key whose repeat would then be admitted as new.
	AtCapacity

	// Consumed: the action ledger's authorisations for this action are all
	// used. The action has been executed as many times as it was
	// authorised, so another execution would exceed what was authorised.
	Consumed

	// Unauthorised: the action ledger holds no authorisation for this
	// action. An action is executed only under an authorisation issued
	// for it; a re-synthesised call that no authorisation covers is
	// refused, not guessed to be the same action.
	Unauthorised
)

var outcomeNames = [...]string{
	Forward:        "forward",
	Wait:           "wait",
	RefuseInFlight: "refuse_in_flight",
	Replay:         "replay",
	ReplayError:    "replay_error",
	Conflict:       "conflict",
	UnknownOutcome: "unknown_outcome",
	AtCapacity:     "at_capacity",
	Consumed:       "consumed",
	Unauthorised:   "unauthorised",
}

// Outcomes lists every outcome, in declaration order.
func Outcomes() []Outcome {
	out := make([]Outcome, 0, len(outcomeNames)-1)
	for o := Forward; int(o) < len(outcomeNames); o++ {
		out = append(out, o)
	}
	return out
}

// String returns the outcome's snake_case name.
func (o Outcome) String() string { return name(o, outcomeNames[:], "Outcome") }

// MarshalText returns the outcome's name.
func (o Outcome) MarshalText() ([]byte, error) { return marshalName(o, outcomeNames[:], "outcome") }

// UnmarshalText reads an outcome's name.
func (o *Outcome) UnmarshalText(b []byte) error {
	v, err := parseName(string(b), "outcome", outcomeNames[:])
	*o = Outcome(v)
	return err
}

// Retryable reports whether the same call may succeed if sent again later
// unchanged: the original may finish (Wait, RefuseInFlight), keys may be
// freed (AtCapacity), or a verification may settle the key (UnknownOutcome).
func (o Outcome) Retryable() bool {
	switch o {
	case Wait, RefuseInFlight, AtCapacity, UnknownOutcome:
		return true
	}
	return false
}

// Policy is the rule a guard applies.
type Policy uint8

const (
	// None forwards every call and stores nothing.
	None Policy = iota + 1
	// Keys guards calls that carry an idempotency key chosen by the agent.
	Keys
	// Derived keys each call by its tool and canonical effect arguments,
	// for a time to live.
	Derived
	// Ledger executes a logical action only under an authorisation issued
	// for it, each consumed once.
	Ledger
	// Verify remembers only calls whose outcome was lost and has a repeat
	// of one verified first.
	Verify
)

var policyNames = [...]string{None: "none", Keys: "keys", Derived: "derived", Ledger: "ledger", Verify: "verify"}

// Policies lists every policy, in declaration order.
func Policies() []Policy { return []Policy{None, Keys, Derived, Ledger, Verify} }

// String returns the policy's name.
func (p Policy) String() string { return name(p, policyNames[:], "Policy") }

// MarshalText returns the policy's name.
func (p Policy) MarshalText() ([]byte, error) { return marshalName(p, policyNames[:], "policy") }

// UnmarshalText reads a policy's name.
func (p *Policy) UnmarshalText(b []byte) error {
	v, err := parseName(string(b), "policy", policyNames[:])
	*p = Policy(v)
	return err
}

// ParsePolicy returns the policy named s.
func ParsePolicy(s string) (Policy, error) {
	var p Policy
	err := p.UnmarshalText([]byte(s))
	return p, err
}

// InFlight is what a repeat sees while the original is in flight.
type InFlight uint8

const (
	// InFlightWait holds the repeat until the original finishes (Wait).
	InFlightWait InFlight = iota
	// InFlightRefuse refuses the repeat with a retryable error
	// (RefuseInFlight).
	InFlightRefuse
)

var inFlightNames = [...]string{InFlightWait: "wait", InFlightRefuse: "refuse"}

// String returns "wait" or "refuse".
func (f InFlight) String() string { return name(f, inFlightNames[:], "InFlight") }

// UnmarshalText reads "wait" or "refuse".
func (f *InFlight) UnmarshalText(b []byte) error {
	v, err := parseName(string(b), "in-flight rule", inFlightNames[:])
	*f = InFlight(v)
	return err
}

// End is how a forwarded attempt ended, as far as the caller learned.
type End uint8

const (
	// Succeeded: the upstream answered with a success; the result is
	// stored and replayed to repeats.
	Succeeded End = iota + 1
	// Failed: the upstream answered with an error. Under CacheErrors the
	// error is stored and replayed; otherwise the key is released and a
	// repeat is forwarded. Whether an error proves that nothing was
	// executed is the caller's judgement: an HTTP 500 may follow a commit,
	// and a caller that cannot rule that out reports Lost.
	Failed
	// Lost: no answer was learned (a timeout, a dropped connection). The
	// key's outcome becomes unknown.
	Lost
	// NotSent: the caller never sent the call (a fault before the
	// upstream, a refusal of its own). The key is released.
	NotSent
)

var endNames = [...]string{Succeeded: "succeeded", Failed: "failed", Lost: "lost", NotSent: "not_sent"}

// String returns the end's name.
func (e End) String() string { return name(e, endNames[:], "End") }

// State is a stored key's state.
type State uint8

const (
	// StateInFlight: an attempt was forwarded and has not ended.
	StateInFlight State = iota + 1
	// StateSucceeded: the attempt succeeded; Result holds its answer.
	StateSucceeded
	// StateFailed: the attempt failed definitely and the error is cached;
	// Result holds it.
	StateFailed
	// StateUnknown: an attempt's outcome was never learned.
	StateUnknown
	// StateIssued: a ledger action with authorisations left and none in
	// flight or unknown.
	StateIssued
	// StateConsumed: a ledger action whose authorisations are all used.
	StateConsumed
)

var stateNames = [...]string{
	StateInFlight:  "in_flight",
	StateSucceeded: "succeeded",
	StateFailed:    "failed",
	StateUnknown:   "unknown",
	StateIssued:    "issued",
	StateConsumed:  "consumed",
}

// String returns the state's snake_case name, as a SQLite store writes it.
func (s State) String() string { return name(s, stateNames[:], "State") }

// MarshalText returns the state's name.
func (s State) MarshalText() ([]byte, error) { return marshalName(s, stateNames[:], "state") }

// UnmarshalText reads a state's name.
func (s *State) UnmarshalText(b []byte) error {
	v, err := parseName(string(b), "state", stateNames[:])
	*s = State(v)
	return err
}

// name returns v's name in names, or the type and number of a value
// that has none.
func name[T ~uint8](v T, names []string, typ string) string {
	if int(v) < len(names) && names[v] != "" {
		return names[v]
	}
	return fmt.Sprintf("%s(%d)", typ, uint8(v))
}

// marshalName returns v's name in names, or an error for a value that has
// none.
func marshalName[T ~uint8](v T, names []string, what string) ([]byte, error) {
	if int(v) >= len(names) || names[v] == "" {
		return nil, fmt.Errorf("guard: invalid %s %d", what, uint8(v))
	}
	return []byte(names[v]), nil
}

// parseName returns the index of s in names, or an error naming the
// accepted values.
func parseName(s, what string, names []string) (uint8, error) {
	var ok []string
	for i, n := range names {
		if n == "" {
			continue
		}
		if n == s {
			return uint8(i), nil
		}
		ok = append(ok, n)
	}
	return 0, fmt.Errorf("guard: unknown %s %q (want one of %s)", what, s, strings.Join(ok, ", "))
}
