package ledger

import "strconv"

// Kind is the type of a ledger column.
type Kind int

// Column kinds; Parquet types follow DESIGN §3 (BOOLEAN, INT64, DOUBLE,
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
}

// EpisodeColumns lists the episode table's columns in canonical order.
var EpisodeColumns = []Column{
	{Name: "episode_id", Kind: KindString},
	{Name: "experiment", Kind: KindString},
	{Name: "model", Kind: KindString},
	{Name: "harness", Kind: KindString},
	{Name: "contract", Kind: KindString},
	{Name: "condition", Kind: KindString},
	{Name: "cue", Kind: KindString},
	{Name: "service", Kind: KindString},
	{Name: "template", Kind: KindString},
	{Name: "instance", Kind: KindInt},
	{Name: "task", Kind: KindString},
	{Name: "focal_write", Kind: KindString},
	{Name: "focal_index", Kind: KindInt},
	{Name: "platform", Kind: KindString},
	{Name: "pair_key", Kind: KindString},
	{Name: "write_class", Kind: KindString},
	{Name: "read_path", Kind: KindString},
	{Name: "reversible", Kind: KindBool},
	{Name: "fault_mode", Kind: KindString},
	{Name: "fault_fired", Kind: KindBool},
	{Name: "delay_s", Kind: KindFloat},
	{Name: "weight", Kind: KindFloat},
	{Name: "seed", Kind: KindInt},
	{Name: "expected_commits", Kind: KindInt, Outcome: true},
	{Name: "focal_commits", Kind: KindInt, Outcome: true},
	{Name: "duplicated", Kind: KindBool, Outcome: true},
	{Name: "task_success", Kind: KindBool, Outcome: true},
	{Name: "eos", Kind: KindBool, Outcome: true},
	{Name: "tool_calls", Kind: KindInt, Outcome: true},
	{Name: "agent_time_s", Kind: KindFloat, Outcome: true},
	{Name: "cost_usd", Kind: KindFloat, Outcome: true, Optional: true},
	{Name: "reported_success", Kind: KindBool, Outcome: true},
	{Name: "uncertainty_listed", Kind: KindBool, Outcome: true},
	{Name: "overclaim", Kind: KindBool, Outcome: true},
	{Name: "recovery", Kind: KindString, Outcome: true},
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
	s := func(x string) (Value, bool) { return Value{Kind: KindString, Str: x}, true }
	i := func(x int64) (Value, bool) { return Value{Kind: KindInt, Int: x}, true }
	f := func(x float64) (Value, bool) { return Value{Kind: KindFloat, Num: x}, true }
	b := func(x bool) (Value, bool) { return Value{Kind: KindBool, Bool: x}, true }
	switch name {
	case "episode_id":
		return s(e.EpisodeID)
	case "experiment":
		return s(e.Experiment)
	case "model":
		return s(e.Model)
	case "harness":
		return s(e.Harness)
	case "contract":
		return s(e.Contract)
	case "condition":
		return s(e.Condition)
	case "cue":
		return s(e.Cue)
	case "service":
		return s(e.Service)
	case "template":
		return s(e.Template)
	case "instance":
		return i(e.Instance)
	case "task":
		return s(e.Task)
	case "focal_write":
		return s(e.FocalWrite)
	case "focal_index":
		return i(e.FocalIndex)
	case "platform":
		return s(e.Platform)
	case "pair_key":
		return s(e.PairKey)
	case "write_class":
		return s(e.WriteClass)
	case "read_path":
		return s(e.ReadPath)
	case "reversible":
		return b(e.Reversible)
	case "fault_mode":
		return s(e.FaultMode)
	case "fault_fired":
		return b(e.FaultFired)
	case "delay_s":
		return f(e.DelayS)
	case "weight":
		return f(e.Weight)
	case "seed":
		return i(e.Seed)
	case "expected_commits":
		return i(e.ExpectedCommits)
	case "focal_commits":
		return i(e.FocalCommits)
	case "duplicated":
		return b(e.Duplicated)
	case "task_success":
		return b(e.TaskSuccess)
	case "eos":
		return b(e.EOS)
	case "tool_calls":
		return i(e.ToolCalls)
	case "agent_time_s":
		return f(e.AgentTimeS)
	case "cost_usd":
		if e.CostUSD == nil {
			return Value{Kind: KindFloat, Null: true}, true
		}
		return f(*e.CostUSD)
	case "reported_success":
		return b(e.ReportedSuccess)
	case "uncertainty_listed":
		return b(e.UncertaintyListed)
	case "overclaim":
		return b(e.Overclaim)
	case "recovery":
		return s(e.Recovery)
	}
	if x, ok := e.Extra[name]; ok {
		return Value{Kind: KindString, Str: x, Null: x == ""}, true
	}
	return Value{}, false
}
