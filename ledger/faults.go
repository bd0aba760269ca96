package ledger

import "slices"

// The fault catalogue (docs/simulation.md, Fault modes): every fault mode
// as data, with what the agent observes, what happened underneath, the
// exactly-once recovery (the columns of the paper's Table 2), its family,
// its observation group and its labels. The ledger validates fault_mode
// against it; the sandbox registers one mechanic per mode it can inject
// (package sandbox, faults.go); the design, the MCP server, the paper's
// tables and figures and the plots read it instead of naming modes.
//
// Adding a mode is one entry in faultModes below (and, for the sandbox to
// inject it, one mechanic in package sandbox). Agent-side faults (a crash
// and resume, a run retried, a re-plan) are not modes: they combine with
// a mode, so they belong on an axis of their own beside fault_mode.

// Fault modes (docs/ledger.md; semantics in package sandbox).
const (
	FaultNone            = "none"
	FaultTimeoutPre      = "timeout_pre"
	FaultTimeoutPost     = "timeout_post"
	FaultTimeoutLate     = "timeout_late"
	FaultTimeoutLateTail = "timeout_late_tail"
	FaultHTTP500Pre      = "http500_pre"
	FaultHTTP500Post     = "http500_post"
	FaultPartialBatch    = "partial_batch"
	FaultRedelivery      = "redelivery"
	FaultHTTP429Pre      = "http429_pre"
	FaultConnRefusedPre  = "conn_refused_pre"
	FaultStaleRead       = "stale_read"
	// Faults of the MCP transport itself, which only the proxy injects
	// (over streamable HTTP; the sandbox has no transport to lose).
	FaultSessionLost = "session_lost"
	FaultStreamDrop  = "stream_drop"
)

// Fault families: what a fault does to the focal write and so how a run
// is scored on it. The paper's tables split results by these (Tables 3,
// 4, 8 and 10).
const (
	FamilyNone       = "none"       // no fault: the control
	FamilyPre        = "pre"        // not executed: scored on task success (omission)
	FamilyResolves   = "resolves"   // committed at the send, an error observed: a read-back resolves it
	FamilyLate       = "late"       // committed after the send, a timeout observed: a read-back cannot resolve it yet
	FamilyRedelivery = "redelivery" // delivered twice below the agent, success observed: nothing the agent sees
	FamilyStale      = "stale"      // committed, success observed, hidden from the read path for a while
)

// FaultFamily is one family of fault modes.
type FaultFamily struct {
	Name  string // Family*
	Label string // for a reader: "read-back resolves", "late commit"
	// Committed: the original did or will commit while the agent saw a
	// failure (the paper's committed faults, over which duplicate rates
	// are reported).
	Committed bool
	// ReadBack is what an immediate read-back of the write can tell
	// (Table 4's split): ReadBackResolves or ReadBackCannot, "" when the
	// family is not a commit the agent must find out about.
	ReadBack string
}

// What an immediate read-back tells of a family's faults.
const (
	ReadBackResolves = "resolves" // the effect is visible once the documented lag has passed
	ReadBackCannot   = "cannot"   // still in flight, or below the agent
)

var faultFamilies = [...]FaultFamily{
	{Name: FamilyNone, Label: "no fault"},
	{Name: FamilyPre, Label: "not executed"},
	{Name: FamilyResolves, Label: "read-back resolves", Committed: true, ReadBack: ReadBackResolves},
	{Name: FamilyLate, Label: "late commit", Committed: true, ReadBack: ReadBackCannot},
	{Name: FamilyRedelivery, Label: "redelivery", ReadBack: ReadBackCannot},
	{Name: FamilyStale, Label: "stale read"},
}

// FaultFamilies returns the families in documentation order.
func FaultFamilies() []FaultFamily { return slices.Clone(faultFamilies[:]) }

// FamilyByName returns the family named name.
func FamilyByName(name string) (FaultFamily, bool) {
	for _, f := range faultFamilies {
		if f.Name == name {
			return f, true
		}
	}
	return FaultFamily{}, false
}

// Observation groups: modes in one group are observation-equivalent at the
// time of the response (the paper's Table 2).
const (
	GroupTimeout     = "timeout"
	GroupHTTP500     = "HTTP 500"
	GroupBatchError  = "batch error"
	GroupSuccess     = "success"
	GroupHonestError = "honest error"
	GroupReadSide    = "read side"
	GroupTransport   = "transport"
)

// FaultGroup is one observation group, with its headings in Figure 2.
type FaultGroup struct {
	Name string // Group*: the column group of Figure 2's data
	// Figure is the heading of the group's columns in the drawn Figure 2
	// (the paper's grouping; several groups may share one), FigureShort
	// the heading where the columns are narrower than it.
	Figure, FigureShort string
}

var faultGroups = [...]FaultGroup{
	{Name: GroupTimeout, Figure: "timeout", FigureShort: "t/o"},
	{Name: GroupHTTP500, Figure: "HTTP 500", FigureShort: "500"},
	{Name: GroupBatchError, Figure: "batch", FigureShort: "batch"},
	{Name: GroupSuccess, Figure: "success", FigureShort: "ok"},
	{Name: GroupHonestError, Figure: "other", FigureShort: "other"},
	{Name: GroupReadSide, Figure: "other", FigureShort: "other"},
	{Name: GroupTransport, Figure: "other", FigureShort: "other"},
}

// FaultGroups returns the observation groups in the paper's order (Table
// 2, Figure 2).
func FaultGroups() []FaultGroup { return slices.Clone(faultGroups[:]) }

// Fate is what happened to the focal write underneath, whatever the agent
// observed. Its order is the order of the paper's committed-fault columns
// (Table 5: committed, late, partial, redelivered).
type Fate uint8

// Fates.
const (
	FateNotExecuted Fate = iota + 1 // the request never took effect
	FateCommitted                   // committed at the send
	FateLate                        // held in flight, committed later
	FatePartial                     // committed in part (a prefix of a batch)
	FateRedelivered                 // committed, and delivered a second time below the agent
)

// String names the fate as Figure 6 names its worlds.
func (f Fate) String() string {
	switch f {
	case FateNotExecuted:
		return "not executed"
	case FateCommitted:
		return "committed"
	case FateLate:
		return "late"
	case FatePartial:
		return "partial"
	case FateRedelivered:
		return "redelivered"
	}
	return "unknown fate"
}

// Delay says whether a mode holds the write in flight, and for how long.
type Delay uint8

// Delays.
const (
	DelayNone  Delay = iota // no in-flight delay: delay_s is 0
	DelayFixed              // a fixed delay: delay_s, DefaultLateDelayS when 0
	DelayDrawn              // drawn per world (the heavy tail): delay_s must be > 0
)

// DefaultLateDelayS is the in-flight delay of a DelayFixed mode when none
// is given (the paper's 90 s).
const DefaultLateDelayS = 90

// Site is a bit set of the places a fault mode can be injected.
type Site uint8

// Sites.
const (
	SiteSandbox Site = 1 << iota // the simulated sandbox (simulate, serve, drive)
	SiteProxy                    // the MCP proxy in front of a user's server
)

// FaultMode is one fault mode of the catalogue.
type FaultMode struct {
	Name   string // the fault_mode value
	Family string // Family*
	Group  string // Group*: the observation group (Table 2)
	// Observed is the outcome the agent sees on the faulted call
	// (Outcome*); the sandbox answers with it.
	Observed string
	// Table 2's columns, in words: what the agent observes, what happened
	// underneath, and the recovery that gives exactly one effect.
	Sees, Hidden, Recovery string
	// Inferred marks a mode (or a recovery) the paper's Table 2 does not
	// list: docs/simulation.md tags it [I].
	Inferred bool
	Fate     Fate
	Delay    Delay
	// Batch: the mode applies only to a batch write (Tool.Batch).
	Batch bool
	Sites Site
	// Label names the mode in a table's column ("timeout (committed)");
	// Short names it under its group's heading (Figure 2: "post").
	Label, Short string
	// Text describes the fault in a trace: what the agent saw and what
	// happened underneath ("late commit: timeout, the request held in
	// flight and committed late"; a delayed mode's trace adds the delay).
	Text string
}

// InjectedBy reports whether the mode can be injected at site s.
func (m FaultMode) InjectedBy(s Site) bool { return m.Sites&s != 0 }

// Control reports whether the mode is the no-fault control (one world per
// task, not per write).
func (m FaultMode) Control() bool { return m.Family == FamilyNone }

// NotExecuted reports whether the focal write never takes effect (the
// paper's _pre worlds, where task success measures omission).
func (m FaultMode) NotExecuted() bool { return m.Fate == FateNotExecuted }

// Late reports whether the mode holds the write in flight (delay_s).
func (m FaultMode) Late() bool { return m.Delay != DelayNone }

// Committed reports whether the mode is one of the paper's committed
// faults: the original did or will commit while the agent saw a failure.
func (m FaultMode) Committed() bool {
	f, _ := FamilyByName(m.Family)
	return f.Committed
}

// ReadBack is what an immediate read-back tells of the mode
// (ReadBackResolves, ReadBackCannot or "").
func (m FaultMode) ReadBack() string {
	f, _ := FamilyByName(m.Family)
	return f.ReadBack
}

// faultModes is the catalogue, in documentation order (the order of
// fault_mode's values in docs/ledger.md and in messages).
var faultModes = [...]FaultMode{
	{Name: FaultNone, Family: FamilyNone, Group: GroupSuccess, Observed: OutcomeOK,
		Sees: "success", Hidden: "executed once (the control)", Recovery: "none needed",
		Inferred: true, Fate: FateCommitted, Sites: SiteSandbox | SiteProxy,
		Label: "no fault", Short: "none", Text: "no fault (control)"},
	{Name: FaultTimeoutPre, Family: FamilyPre, Group: GroupTimeout, Observed: OutcomeTimeout,
		Sees: "timeout after 30 s", Hidden: "not executed", Recovery: "verify, then re-issue",
		Fate: FateNotExecuted, Sites: SiteSandbox | SiteProxy,
		Label: "timeout (not executed)", Short: "pre",
		Text: "timeout before the commit: the request was dropped, nothing executed"},
	{Name: FaultTimeoutPost, Family: FamilyResolves, Group: GroupTimeout, Observed: OutcomeTimeout,
		Sees: "timeout after 30 s", Hidden: "executed, response lost", Recovery: "verify, then skip",
		Fate: FateCommitted, Sites: SiteSandbox | SiteProxy,
		Label: "timeout (committed)", Short: "post",
		Text: "timeout after the commit: executed, the response was lost"},
	{Name: FaultTimeoutLate, Family: FamilyLate, Group: GroupTimeout, Observed: OutcomeTimeout,
		Sees: "timeout after 30 s", Hidden: "executes 90 s after the send (still in flight)", Recovery: "same key, or wait and escalate",
		Fate: FateLate, Delay: DelayFixed, Sites: SiteSandbox | SiteProxy,
		Label: "timeout (late commit)", Short: "late",
		Text: "late commit: timeout, the request held in flight and committed late"},
	{Name: FaultTimeoutLateTail, Family: FamilyLate, Group: GroupTimeout, Observed: OutcomeTimeout,
		Sees: "timeout after 30 s", Hidden: "executes δ after the send, δ heavy-tailed on 40 s–2 h", Recovery: "same key",
		Fate: FateLate, Delay: DelayDrawn, Sites: SiteSandbox | SiteProxy,
		Label: "timeout (late commit, heavy tail)", Short: "tail",
		Text: "late commit (heavy tail): timeout, the request held in flight and committed late"},
	{Name: FaultHTTP500Pre, Family: FamilyPre, Group: GroupHTTP500, Observed: OutcomeHTTP500,
		Sees: "HTTP 500", Hidden: "not executed", Recovery: "verify, then re-issue",
		Fate: FateNotExecuted, Sites: SiteSandbox | SiteProxy,
		Label: "500 (not executed)", Short: "pre",
		Text: "HTTP 500 before the commit: rejected, not executed"},
	{Name: FaultHTTP500Post, Family: FamilyResolves, Group: GroupHTTP500, Observed: OutcomeHTTP500,
		Sees: "HTTP 500", Hidden: "executed (a misleading 500)", Recovery: "verify, then skip",
		Fate: FateCommitted, Sites: SiteSandbox | SiteProxy,
		Label: "500 (committed)", Short: "post",
		Text: "HTTP 500 after the commit: executed, a misleading error"},
	{Name: FaultPartialBatch, Family: FamilyResolves, Group: GroupBatchError, Observed: OutcomeHTTP500,
		Sees: "HTTP 500 on a batch insert", Hidden: "the first ⌈n/2⌉ rows committed", Recovery: "verify, then insert the missing rows (or repeat with the same key)",
		Fate: FatePartial, Batch: true, Sites: SiteSandbox | SiteProxy,
		Label: "partial batch", Short: "partial",
		Text: "partial batch: HTTP 500 after the first half of the rows committed"},
	{Name: FaultRedelivery, Family: FamilyRedelivery, Group: GroupSuccess, Observed: OutcomeOK,
		Sees: "success", Hidden: "the transport delivers the request a second time, same key if any", Recovery: "a key on the original, honoured by the service",
		Fate: FateRedelivered, Sites: SiteSandbox | SiteProxy,
		Label: "redelivery", Short: "redeliv.",
		Text: "redelivery: answered ok, and the transport delivered the request a second time"},
	{Name: FaultHTTP429Pre, Family: FamilyPre, Group: GroupHonestError, Observed: OutcomeHTTP429,
		Sees: "HTTP 429 with Retry-After 30 s", Hidden: "not executed", Recovery: "wait as told, then re-issue",
		Inferred: true, Fate: FateNotExecuted, Sites: SiteSandbox,
		Label: "429 (not executed)", Short: "429",
		Text: "HTTP 429 before the commit: rate limited, not executed"},
	{Name: FaultConnRefusedPre, Family: FamilyPre, Group: GroupHonestError, Observed: OutcomeConnRefused,
		Sees: "connection refused", Hidden: "not executed", Recovery: "re-issue",
		Inferred: true, Fate: FateNotExecuted, Sites: SiteSandbox,
		Label: "connection refused (not executed)", Short: "refused",
		Text: "connection refused before sending: not executed"},
	{Name: FaultStaleRead, Family: FamilyStale, Group: GroupReadSide, Observed: OutcomeOK,
		Sees: "success", Hidden: "committed; the read path hides it for 10 min", Recovery: "trust the success: no re-issue",
		Inferred: true, Fate: FateCommitted, Sites: SiteSandbox,
		Label: "stale read", Short: "stale",
		Text: "stale read: committed, but hidden from the read path for 10 min"},
	{Name: FaultSessionLost, Family: FamilyResolves, Group: GroupTransport, Observed: OutcomeTimeout,
		Sees: "the MCP session is gone (HTTP 404), no response", Hidden: "executed; the session was lost before the response", Recovery: "a new session: verify, then skip",
		Inferred: true, Fate: FateCommitted, Sites: SiteProxy,
		Label: "session lost (committed)", Short: "lost",
		Text: "session lost: executed, then the MCP session was closed before the response"},
	{Name: FaultStreamDrop, Family: FamilyResolves, Group: GroupTransport, Observed: OutcomeTimeout,
		Sees: "the connection breaks before the response", Hidden: "executed, response lost", Recovery: "verify, then skip",
		Inferred: true, Fate: FateCommitted, Sites: SiteProxy,
		Label: "stream dropped (committed)", Short: "drop",
		Text: "stream drop: executed, then the connection was cut before the response"},
}

// Faults returns the fault catalogue in documentation order.
func Faults() []FaultMode { return slices.Clone(faultModes[:]) }

// FaultByName returns the catalogue's entry for the mode named name.
func FaultByName(name string) (FaultMode, bool) {
	for i := range faultModes {
		if faultModes[i].Name == name {
			return faultModes[i], true
		}
	}
	return FaultMode{}, false
}

// FaultNames returns the names of the modes for which keep is true, in
// catalogue order: a set to test rows against.
func FaultNames(keep func(FaultMode) bool) []string {
	var out []string
	for _, m := range faultModes {
		if keep(m) {
			out = append(out, m.Name)
		}
	}
	return out
}

// CommittedFaults are the modes whose original did or will commit
// (docs/simulation.md, Fault modes); duplicate rates are reported over
// these and redelivery.
var CommittedFaults = FaultNames(FaultMode.Committed)

// LateModes are the modes with an in-flight delay.
var LateModes = FaultNames(FaultMode.Late)
