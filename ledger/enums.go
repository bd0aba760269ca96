package ledger

import "slices"

// Enum is a closed set of values that carry meaning for grading. Every
// enumeration the validator checks lives in the registry below, so that
// readers, the sandbox and the analysis agree on one spelling.
type Enum struct {
	Field  string   // the column it constrains, as in docs/ledger.md
	Values []string // the allowed values, in documentation order
}

// Has reports whether v is one of e's values.
func (e Enum) Has(v string) bool { return slices.Contains(e.Values, v) }

// Recovery behaviours after the focal fault.
const (
	RecoveryNone            = "none"
	RecoveryBlindRetry      = "blind_retry"
	RecoveryVerifyThenRetry = "verify_then_retry"
	RecoveryVerifyThenSkip  = "verify_then_skip"
	RecoveryWaitThenVerify  = "wait_then_verify"
	RecoveryKeyReuse        = "key_reuse"
	RecoveryFreshKey        = "fresh_key"
	RecoveryGiveUp          = "give_up"
	RecoveryEscalate        = "escalate"
)

// First moves: what the agent does first after the focal write answers,
// before the hidden worlds can differ (docs/ledger.md, first_move).
const (
	MoveNone     = "none"      // the focal write was never issued
	MoveReadBack = "read_back" // a read of the focal write's service, or an oracle
	MoveWait     = "wait"      // a wait
	MoveReissue  = "reissue"   // a write of the focal write's logical action
	MoveOther    = "other"     // any other call (the next write, another service)
	MoveStop     = "stop"      // no further call: the agent ended the episode
)

// Call outcomes.
const (
	OutcomeOK          = "ok"
	OutcomeTimeout     = "timeout"
	OutcomeHTTP400     = "http400"
	OutcomeHTTP404     = "http404"
	OutcomeHTTP409     = "http409"
	OutcomeHTTP412     = "http412"
	OutcomeHTTP429     = "http429"
	OutcomeHTTP500     = "http500"
	OutcomeConnRefused = "conn_refused"
	// A guard in front of the services answered the call without
	// forwarding it: with a stored result, with a refusal, or with a
	// stored error (the agent saw that error's outcome). The call never
	// reached a service.
	OutcomeGuardReplay  = "guard_replay"
	OutcomeGuardRefused = "guard_refused"
	OutcomeGuardError   = "guard_error"
)

// Effect sources.
const (
	SourceAgent      = "agent"
	SourceLate       = "late"
	SourceRedelivery = "redelivery"
	SourcePartial    = "partial"
)

// Write classes under the episode's contract.
const (
	ClassKeyed      = "keyed"
	ClassIdempotent = "idempotent"
	ClassStrong     = "strong"
	ClassEventual   = "eventual"
	ClassBatch      = "batch"
	ClassMissing    = "missing"
)

// Read paths.
const (
	ReadStrong   = "strong"
	ReadEventual = "eventual"
	ReadNone     = "none"
)

// Final report statuses.
const (
	StatusCompleted = "completed"
	StatusPartial   = "partial"
	StatusFailed    = "failed"
	StatusEscalated = "escalated"
)

// Cue arms (E6).
const (
	CueDefault = "default"
	CuePlain   = "plain"
)

// The registry of enumerations that validation enforces. Conditions,
// harnesses, models and experiments are free text (users' ledgers come
// from other harnesses); their paper values are in Paper* below and only
// warn when unknown.
var (
	FaultModes   = Enum{"fault_mode", FaultNames(func(FaultMode) bool { return true })}
	Contracts    = Enum{"contract", contractNames()}
	Recoveries   = Enum{"recovery", []string{RecoveryNone, RecoveryBlindRetry, RecoveryVerifyThenRetry, RecoveryVerifyThenSkip, RecoveryWaitThenVerify, RecoveryKeyReuse, RecoveryFreshKey, RecoveryGiveUp, RecoveryEscalate}}
	FirstMoves   = Enum{"first_move", []string{MoveNone, MoveReadBack, MoveWait, MoveReissue, MoveOther, MoveStop}}
	Outcomes     = Enum{"outcome", []string{OutcomeOK, OutcomeTimeout, OutcomeHTTP400, OutcomeHTTP404, OutcomeHTTP409, OutcomeHTTP412, OutcomeHTTP429, OutcomeHTTP500, OutcomeConnRefused, OutcomeGuardReplay, OutcomeGuardRefused, OutcomeGuardError}}
	Sources      = Enum{"source", []string{SourceAgent, SourceLate, SourceRedelivery, SourcePartial}}
	WriteClasses = Enum{"write_class", []string{ClassKeyed, ClassIdempotent, ClassStrong, ClassEventual, ClassBatch, ClassMissing}}
	ReadPaths    = Enum{"read_path", []string{ReadStrong, ReadEventual, ReadNone}}
	Statuses     = Enum{"status", []string{StatusCompleted, StatusPartial, StatusFailed, StatusEscalated}}
	Cues         = Enum{"cue", []string{CueDefault, CuePlain}}
	// The agent-side columns (group replay), empty in a ledger without
	// them.
	AgentFaultNames = Enum{"agent_fault", agentFaultNames()}
	CrashWindows    = Enum{"crash_window", []string{WindowBeforeJournal, WindowAfterJournal}}
	GuardNames      = Enum{"guard", guardArmNames()}
)

// Values the paper's sandbox uses for free-text design columns. A value
// outside these is a plausibility warning, never an error.
var (
	PaperHarnesses   = []string{"minimal", "copilot", "hermes", "codex"}
	PaperConditions  = []string{"vanilla", "aware", "reflect", "sdk-retry", "rules", "vbr", "guard", "state-oracle", "outcome-oracle", "wait-0", "wait-60", "wait-120", "wait-300", "wait-3600"}
	PaperExperiments = []string{"E1", "E1s", "E2", "E2k", "E3", "E3k", "E5", "E6"}
	// ToolkitHarnesses are the harness labels of this toolkit's own
	// harnesses (the Inspect AI task): known, so not a warning either.
	ToolkitHarnesses = []string{"inspect"}
	// ReplayExperiments are the agent-side design's (design replay).
	ReplayExperiments = []string{"R1"}
)
