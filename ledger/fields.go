package ledger

// Column indices into EpisodeColumns, and typed access to an episode's
// fields by index, shared by the readers and writers so that no format
// walks the schema by name per row.

// colMask is a set of EpisodeColumns indices.
type colMask uint64

func (m colMask) has(i int) bool { return m&(1<<uint(i)) != 0 }

var (
	colIndex    = map[string]int{} // name → index in EpisodeColumns
	allCols     colMask            // every schema column
	requiredSet colMask            // columns a graded row must have
	designCols  colMask            // design columns (what a raw line carries)
)

const (
	colEpisodeID = 0
	colPairKey   = 14
	colCostUSD   = 30
)

func init() {
	if len(EpisodeColumns) > 64 {
		panic("ledger: more than 64 episode columns; widen colMask")
	}
	for i, c := range EpisodeColumns {
		colIndex[c.Name] = i
		allCols |= 1 << uint(i)
		if !c.Optional {
			requiredSet |= 1 << uint(i)
		}
		if !c.Outcome {
			designCols |= 1 << uint(i)
		}
	}
	if EpisodeColumns[colEpisodeID].Name != "episode_id" || EpisodeColumns[colPairKey].Name != "pair_key" || EpisodeColumns[colCostUSD].Name != "cost_usd" {
		panic("ledger: EpisodeColumns order changed; update fields.go")
	}
}

// maskOf returns the set of the named schema columns; unknown names are
// ignored (they may be extra columns).
func maskOf(names []string) colMask {
	if names == nil {
		return allCols
	}
	var m colMask
	for _, n := range names {
		if i, ok := colIndex[n]; ok {
			m |= 1 << uint(i)
		}
	}
	return m
}

// fieldRef points at one field of an episode; exactly one pointer is set,
// as the column's Kind says (cost_usd uses opt).
type fieldRef struct {
	s   *string
	i   *int64
	f   *float64
	b   *bool
	opt **float64
}

// ref returns a reference to column i of e.
func (e *Episode) ref(i int) fieldRef {
	switch i {
	case 0:
		return fieldRef{s: &e.EpisodeID}
	case 1:
		return fieldRef{s: &e.Experiment}
	case 2:
		return fieldRef{s: &e.Model}
	case 3:
		return fieldRef{s: &e.Harness}
	case 4:
		return fieldRef{s: &e.Contract}
	case 5:
		return fieldRef{s: &e.Condition}
	case 6:
		return fieldRef{s: &e.Cue}
	case 7:
		return fieldRef{s: &e.Service}
	case 8:
		return fieldRef{s: &e.Template}
	case 9:
		return fieldRef{i: &e.Instance}
	case 10:
		return fieldRef{s: &e.Task}
	case 11:
		return fieldRef{s: &e.FocalWrite}
	case 12:
		return fieldRef{i: &e.FocalIndex}
	case 13:
		return fieldRef{s: &e.Platform}
	case 14:
		return fieldRef{s: &e.PairKey}
	case 15:
		return fieldRef{s: &e.WriteClass}
	case 16:
		return fieldRef{s: &e.ReadPath}
	case 17:
		return fieldRef{b: &e.Reversible}
	case 18:
		return fieldRef{s: &e.FaultMode}
	case 19:
		return fieldRef{b: &e.FaultFired}
	case 20:
		return fieldRef{f: &e.DelayS}
	case 21:
		return fieldRef{f: &e.Weight}
	case 22:
		return fieldRef{i: &e.Seed}
	case 23:
		return fieldRef{i: &e.ExpectedCommits}
	case 24:
		return fieldRef{i: &e.FocalCommits}
	case 25:
		return fieldRef{b: &e.Duplicated}
	case 26:
		return fieldRef{b: &e.TaskSuccess}
	case 27:
		return fieldRef{b: &e.EOS}
	case 28:
		return fieldRef{i: &e.ToolCalls}
	case 29:
		return fieldRef{f: &e.AgentTimeS}
	case 30:
		return fieldRef{opt: &e.CostUSD}
	case 31:
		return fieldRef{b: &e.ReportedSuccess}
	case 32:
		return fieldRef{b: &e.UncertaintyListed}
	case 33:
		return fieldRef{b: &e.Overclaim}
	case 34:
		return fieldRef{s: &e.Recovery}
	}
	panic("ledger: column index out of range")
}

// Column returns the value of e's column i, an index into EpisodeColumns
// (the typed counterpart of Get, with no lookup by name: for code that
// walks the schema once per episode). A nil cost_usd is Null.
func (e *Episode) Column(i int) Value {
	r := e.ref(i)
	switch {
	case r.s != nil:
		return Value{Kind: KindString, Str: *r.s}
	case r.i != nil:
		return Value{Kind: KindInt, Int: *r.i}
	case r.f != nil:
		return Value{Kind: KindFloat, Num: *r.f}
	case r.b != nil:
		return Value{Kind: KindBool, Bool: *r.b}
	}
	if *r.opt == nil {
		return Value{Kind: KindFloat, Null: true}
	}
	return Value{Kind: KindFloat, Num: **r.opt}
}
