package ledger

import (
	"strconv"
	"strings"
)

// Kind is the type of a ledger column.
type Kind int

// Column kinds; Parquet types follow docs/ledger.md (BOOLEAN, INT64, DOUBLE,
// dictionary-encoded UTF8).
const (
	KindString Kind = iota
	KindInt
	KindFloat
	KindBool
)

func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindBool:
		return "bool"
	}
	return "kind(" + strconv.Itoa(int(k)) + ")"
}

// Column describes one column of the episode table.
type Column struct {
	Name     string
	Kind     Kind
	Outcome  bool // an outcome field (derived by the grader), not a design field
	Optional bool // may be absent from a ledger (cost_usd)
	// Group names the column group of a sparse column: one a ledger
	// carries only when its design has it (GroupReplay). A sparse column
	// is Optional and held as its plain type, zero when absent; a JSONL
	// line leaves out its zero value, and a CSV or Parquet file has the
	// column only when the writer is told that the ledger carries its
	// group (WriteOptions.Groups), so that ledgers without the group keep
	// their bytes. "" for the columns every ledger has.
	Group string
	// Domain is the column's type as the documentation states it, with
	// its range ("int ≥ 0", "enum"); Doc is its meaning, one sentence in
	// Markdown. Both are written into Parquet files (limbo.columns), printed
	// by limbo-analyze schema and shown in docs/ledger.md: the one source.
	Domain string
	Doc    string
}

// EpisodeColumns lists the episode table's columns in canonical order. It
// is the schema's one declaration: every reader and writer, the analysis
// engine's columns and the viewer's fields are driven by it (through the
// code schemagen writes from it into columns_gen.go, and
// analysis/slots_gen.go). A column is added here, with its field in
// Episode tagged with its name, and go generate run.
//
//go:generate go run ../internal/schemagen
var EpisodeColumns = []Column{
	{Name: "episode_id", Kind: KindString,
		Domain: "string", Doc: "unique in the ledger; stable for a given design and seed"},
	{Name: "experiment", Kind: KindString,
		Domain: "string", Doc: "E1, E1s, E2, E2k, E3, E3k, E5, E6 for the paper; free text for yours"},
	{Name: "model", Kind: KindString,
		Domain: "string", Doc: "the agent's model"},
	{Name: "harness", Kind: KindString,
		Domain: "string", Doc: "the paper's: minimal, copilot, hermes, codex"},
	{Name: "contract", Kind: KindString,
		Domain: "enum", Doc: enumDoc(Contracts, " | ")},
	{Name: "condition", Kind: KindString,
		Domain: "string", Doc: "the paper's: vanilla, aware, reflect, sdk-retry, rules, vbr, guard, state-oracle, outcome-oracle, wait-0, wait-60, wait-120, wait-300, wait-3600"},
	{Name: "cue", Kind: KindString,
		Domain: "enum", Doc: "`default` | `plain` (the E6 plain arm is condition vanilla, cue plain)"},
	{Name: "service", Kind: KindString,
		Domain: "string", Doc: strings.Join(PaperServices, ", ") + " in the paper"},
	{Name: "template", Kind: KindString,
		Domain: "string", Doc: "task template (T01…T12 in the paper)"},
	{Name: "instance", Kind: KindInt,
		Domain: "int ≥ 0", Doc: "task instance"},
	{Name: "task", Kind: KindString,
		Domain: "string", Doc: "`template#instance`: the cluster for intervals"},
	{Name: "focal_write", Kind: KindString,
		Domain: "string", Doc: "the tool name of the faulted write (e.g. `mail_send`)"},
	{Name: "focal_index", Kind: KindInt,
		Domain: "int ≥ 0", Doc: "which write of the task is focal (a task may call the same tool several times)"},
	{Name: "platform", Kind: KindString,
		Domain: "string", Doc: "social writes only (mastodon, linkedin, weibo, x), else empty"},
	{Name: "pair_key", Kind: KindString,
		Domain: "string", Doc: "model/template/instance/focal_index/fault_mode: shared by design by every episode of the same world across conditions, contracts and cue arms (not unique per row), so paired analyses match them"},
	{Name: "write_class", Kind: KindString,
		Domain: "enum", Doc: "`keyed` | `idempotent` | `strong` | `eventual` | `batch` | `missing`, under the episode's contract"},
	{Name: "read_path", Kind: KindString,
		Domain: "enum", Doc: "`strong` | `eventual` | `none`"},
	{Name: "reversible", Kind: KindBool,
		Domain: "bool", Doc: "the focal write can be undone"},
	{Name: "fault_mode", Kind: KindString,
		Domain: "enum", Doc: enumDoc(FaultModes, ", ")},
	{Name: "fault_fired", Kind: KindBool,
		Domain: "bool", Doc: "the focal write was issued, so the assigned mode was applied to it (true for `none` too: \"no fault\" was applied); false when the agent never issued it"},
	{Name: "delay_s", Kind: KindFloat,
		Domain: "float ≥ 0", Doc: "in-flight delay of a late commit, else 0"},
	{Name: "weight", Kind: KindFloat,
		Domain: "float > 0", Doc: "design weight; 1 unless a design sets it"},
	{Name: "seed", Kind: KindInt,
		Domain: "int", Doc: "the episode's seed"},
	{Name: "agent_fault", Kind: KindString, Optional: true, Group: GroupReplay,
		Domain: "enum, group replay", Doc: "the agent-side fault combined with the fault mode: " + enumDoc(AgentFaultNames, ", ")},
	{Name: "crash_window", Kind: KindString, Optional: true, Group: GroupReplay,
		Domain: "enum or empty, group replay", Doc: "`crash_resume` only: `before_journal` (the last checkpoint precedes the focal write's journaled result) | `after_journal` (it holds it); empty otherwise"},
	{Name: "guard", Kind: KindString, Optional: true, Group: GroupReplay,
		Domain: "enum, group replay", Doc: "what stands between the agent and the services: " + enumDoc(GuardNames, ", ")},
	{Name: "expected_commits", Kind: KindInt, Outcome: true,
		Domain: "int ≥ 0", Doc: "required logical actions of the task"},
	{Name: "focal_commits", Kind: KindInt, Outcome: true,
		Domain: "int ≥ 0", Doc: "committed, non-absorbed effects of the focal action"},
	{Name: "duplicated", Kind: KindBool, Outcome: true,
		Domain: "bool", Doc: "a required logical action committed more than once"},
	{Name: "task_success", Kind: KindBool, Outcome: true,
		Domain: "bool", Doc: "every required action committed"},
	{Name: "eos", Kind: KindBool, Outcome: true,
		Domain: "bool", Doc: "exactly-once success: task success, no duplicate, no unrequested effect"},
	{Name: "tool_calls", Kind: KindInt, Outcome: true,
		Domain: "int ≥ 0", Doc: "calls the agent made"},
	{Name: "agent_time_s", Kind: KindFloat, Outcome: true,
		Domain: "float ≥ 0", Doc: "agent-visible (simulated) seconds"},
	{Name: "cost_usd", Kind: KindFloat, Outcome: true, Optional: true,
		Domain: "float ≥ 0, optional", Doc: "model cost, if the harness reports it; may be absent"},
	{Name: "reported_success", Kind: KindBool, Outcome: true,
		Domain: "bool", Doc: "the final report claims success"},
	{Name: "uncertainty_listed", Kind: KindBool, Outcome: true,
		Domain: "bool", Doc: "the final report lists an uncertainty"},
	{Name: "overclaim", Kind: KindBool, Outcome: true,
		Domain: "bool", Doc: "reported success while the episode duplicated or failed"},
	{Name: "recovery", Kind: KindString, Outcome: true,
		Domain: "enum", Doc: "behaviour after the focal fault: `none`, `blind_retry`, `verify_then_retry`, `verify_then_skip`, `wait_then_verify`, `key_reuse`, `fresh_key`, `give_up`, `escalate`"},
	{Name: "first_move", Kind: KindString, Outcome: true, Optional: true,
		Domain: "enum, optional", Doc: "the agent's first call after the focal write answered, before the hidden worlds can differ (a read-back's answer is the first thing that can): " + enumDoc(FirstMoves, ", ") + "; absent (or empty) in ledgers graded before it was added"},
	{Name: "exact_duplicated", Kind: KindBool, Outcome: true, Optional: true, Group: GroupReplay,
		Domain: "bool, group replay", Doc: "a required action committed more often than required, and more of its commits than required carried one and the same canonical arguments: an exact repeat, which `duplicated` counts among its logical ones"},
	{Name: "perturbed", Kind: KindBool, Outcome: true, Optional: true, Group: GroupReplay,
		Domain: "bool, group replay", Doc: "a later issue of a required action carried canonical arguments other than its first issue's (a re-synthesised or drifted write)"},
	{Name: "suppressed", Kind: KindBool, Outcome: true, Optional: true, Group: GroupReplay,
		Domain: "bool, group replay", Doc: "a required action committed less often than required after the guard answered an attempt of it in the service's stead (a replayed result or a refusal) or a service absorbed one under an idempotency key: work wrongly suppressed"},
	{Name: "error_replayed", Kind: KindBool, Outcome: true, Optional: true, Group: GroupReplay,
		Domain: "bool, group replay", Doc: "a required action committed less often than required after the guard replayed a cached error to an attempt of it: work lost to a replayed error"},
	{Name: "guard_answers", Kind: KindInt, Outcome: true, Optional: true, Group: GroupReplay,
		Domain: "int ≥ 0, group replay", Doc: "writes the guard answered without forwarding them to the service"},
}

// Column groups: sparse columns that a ledger carries only when its
// design has them (Column.Group).
const (
	// GroupReplay is the agent-side design (agent faults and guards,
	// docs/simulation.md, Agent-side faults).
	GroupReplay = "replay"
)

// enumDoc lists an enumeration's values as a column's meaning: each in
// backquotes, joined by sep (the catalogue's modes and contracts document
// themselves).
func enumDoc(e Enum, sep string) string {
	q := make([]string, len(e.Values))
	for i, v := range e.Values {
		q[i] = "`" + v + "`"
	}
	return strings.Join(q, sep)
}

// LookupColumn returns the schema column called name.
func LookupColumn(name string) (Column, bool) {
	for _, c := range EpisodeColumns {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// Value is one cell of the episode table. Exactly one of the typed fields
// is meaningful, as Kind says; Null marks a missing optional value (or an
// empty extra column).
type Value struct {
	Kind Kind
	Str  string
	Int  int64
	Num  float64
	Bool bool
	Null bool
}

// Float returns the value as a number: ints and floats as they are, booleans
// as 0/1. ok is false for strings and nulls.
func (v Value) Float() (f float64, ok bool) {
	if v.Null {
		return 0, false
	}
	switch v.Kind {
	case KindInt:
		return float64(v.Int), true
	case KindFloat:
		return v.Num, true
	case KindBool:
		if v.Bool {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// String renders the value as CSV would write it (empty for null).
func (v Value) String() string {
	if v.Null {
		return ""
	}
	switch v.Kind {
	case KindInt:
		return strconv.FormatInt(v.Int, 10)
	case KindFloat:
		return strconv.FormatFloat(v.Num, 'g', -1, 64)
	case KindBool:
		return strconv.FormatBool(v.Bool)
	}
	return v.Str
}

// Get returns the named column of e: a schema column, or one of e's extra
// columns (as a string). ok is false if e has no such column.
func (e *Episode) Get(name string) (v Value, ok bool) {
	if i, ok := colIndex[name]; ok {
		return e.Column(i), true
	}
	if x, ok := e.Extra[name]; ok {
		return Value{Kind: KindString, Str: x, Null: x == ""}, true
	}
	return Value{}, false
}
