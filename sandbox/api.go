package sandbox

import (
	"github.com/limbo-toolkit/limbo/ledger"
)

// This file is the API shared with package agent (brief-sandbox-api.md).
// Names here are stable; additions only. Decisions the brief left open:
//
//   - idempotency_key is accepted on every write, like an HTTP header, and
//     honoured only where the contract says (ToolSpec.KeyHonouredFor);
//     elsewhere it is silently ignored, as a real service ignores a header it
//     does not implement. It appears in ToolSpec.Params only where honoured.
//     Any other unknown argument is a 400.
//   - A late (timeout_late, timeout_late_tail) original is held by the
//     service: its key, when honoured, is in progress, so a same-key re-issue
//     before the commit answers 409; after the commit it returns the stored
//     result as an absorbed effect. Either way one effect (Proposition 2).
//   - Rejected calls (400) are recorded in Calls (they count as tool calls)
//     but never produce an effect.
//   - Resource ids are derived from (seed, call seq, delivery), so hidden
//     copies never shift the ids an agent sees.
//   - billing_list_charges takes customer_id as optional (omit to list all),
//     so a refund can be verified from its charge_id alone.
//   - A step that needs an earlier step's receipt (Step.Needs, a hand-off)
//     must quote it in a "receipt" argument; omitted or not one that step's
//     write returned, the call is a 400 naming the earlier write, and
//     nothing commits. The argument is in ToolSpec.Params only in worlds
//     whose task has such a step; elsewhere it is an unknown argument.

// Param is one parameter of a tool, in a JSON-schema-like form.
type Param struct {
	Name     string `json:"name"`
	Type     string `json:"type"` // "string", "integer", "number", "array", "object"
	Required bool   `json:"required"`
	Doc      string `json:"doc"`
	// The limits the request validator enforces, for schemas (MCP input
	// schemas): allowed values, numeric bounds, string length, item count.
	Enum      []string `json:"enum,omitempty"`
	Minimum   *float64 `json:"minimum,omitempty"`
	Maximum   *float64 `json:"maximum,omitempty"`
	MaxLength int      `json:"max_length,omitempty"`
	MinItems  int      `json:"min_items,omitempty"`
	MaxItems  int      `json:"max_items,omitempty"`
}

// ToolSpec is one tool of the catalogue as an agent sees it under a contract.
type ToolSpec struct {
	Name    string `json:"name"`    // "social_publish", "billing_create_charge", ... (docs/simulation.md, Tool catalogue)
	Service string `json:"service"` // social, billing, tickets, mail, data, deploy (or "oracle" for oracle/wait tools)
	Write   bool   `json:"write"`   // whether the tool writes
	// Idempotent: a write whose repeat with the same arguments has no
	// further effect by its nature (delete, refund, status update, upsert),
	// whatever the key.
	Idempotent  bool    `json:"idempotent,omitempty"`
	Description string  `json:"description"` // as the agent sees it under the contract (Table 11 text for social/billing)
	Params      []Param `json:"params"`      // parameters

	// What the description tells an agent, in structured form (exactly
	// what Description says, no more).
	KeyHonoured   bool    `json:"key_honoured"`     // an idempotency_key is accepted AND honoured (for social_publish: per platform, see KeyHonouredFor)
	ReadBack      string  `json:"read_back"`        // the read tool an agent would use to verify this write ("" if none)
	DocumentedLag float64 `json:"documented_lag_s"` // seconds the description says the read path may lag (0 strong)

	keyPlatforms []string // platforms on which the key is honoured (social_publish, native)
	contract     string
}

// Step is one required write of a task, in order.
type Step struct {
	Index      int            // focal_index
	Tool       string         // write tool
	Args       map[string]any // canonical arguments (no idempotency_key)
	Class      string         // write_class under the NATIVE contract; use ClassUnder(contract)
	ReadPath   string         // ledger.ReadStrong/ReadEventual/ReadNone
	Reversible bool           // whether the effect can be undone
	Platform   string         // social writes only
	// Needs lists the earlier steps whose receipt this step must quote
	// (a hand-off, see Task.Instruction): the receipt is in the earlier
	// write's response only, never in a listing. Empty in instance 0.
	Needs []int
	// Receipt reports whether a later step needs this write's receipt, so
	// that the service returns one with it.
	Receipt bool

	tool int      // catalogue index
	ids  []string // logical identities (one per row for a batch)
}

// Task is one task instance: a set of required logical writes.
type Task struct {
	Template    string
	Instance    int
	ID          string // "T01#0"
	Service     string
	Instruction string
	// Details are the lines of data the instruction refers to as "given
	// below" (the posts' texts, the rows to import), one per line, in step
	// order; a prompt prints them after the instruction. Empty when the
	// instruction says everything.
	Details []string
	Steps   []Step
	Setup   Setup // state the world starts from (not effects)

	handoffs bool // some step needs an earlier step's receipt
	argBytes int  // canonical JSON bytes of the steps' arguments (0 if unknown): sizes a world's argument buffer
	// actionKeys[i] is ActionKey(i), made once (a guard binds every call
	// to one); nil for a hand-built task.
	actionKeys []string
}

// Spec fixes one episode's world.
type Spec struct {
	Task           *Task
	FocalIndex     int     // which step's write is focal (the FIRST call to that step's tool+args gets the fault)
	Fault          string  // ledger.Fault* (12 modes)
	Contract       string  // ledger.ContractNative / ContractKeysEverywhere
	DelayS         float64 // in-flight delay for timeout_late (90) / timeout_late_tail (δ); 0 otherwise
	ClientTimeoutS float64 // default 30
	Oracles        []string
	Seed           uint64
	EpisodeID      string
}

// Observation is what a call returns to the agent.
type Observation struct {
	Outcome     string         // ledger.Outcome*
	Result      map[string]any // the JSON result on ok; read-only (listings share their items)
	Error       string         // error message text on failure
	RetryAfterS float64        // for 429
	LatencyS    float64
}

var _ ledger.Grader = Grade
