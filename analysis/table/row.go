package table

import "github.com/limbo-toolkit/limbo/ledger"

// row is episode i of d, by accessors named as ledger.Episode's fields
// (Data.Episode materialises it); its Get makes it a frame.Row.
type row struct {
	d *Data
	i int32
}

func (r row) Experiment() string      { return r.d.strs[sExperiment].str(r.i) }
func (r row) Model() string           { return r.d.strs[sModel].str(r.i) }
func (r row) Harness() string         { return r.d.strs[sHarness].str(r.i) }
func (r row) Contract() string        { return r.d.strs[sContract].str(r.i) }
func (r row) Condition() string       { return r.d.strs[sCondition].str(r.i) }
func (r row) Cue() string             { return r.d.strs[sCue].str(r.i) }
func (r row) Service() string         { return r.d.strs[sService].str(r.i) }
func (r row) Template() string        { return r.d.strs[sTemplate].str(r.i) }
func (r row) Task() string            { return r.d.strs[sTask].str(r.i) }
func (r row) FocalWrite() string      { return r.d.strs[sFocalWrite].str(r.i) }
func (r row) Platform() string        { return r.d.strs[sPlatform].str(r.i) }
func (r row) PairKey() string         { return r.d.strs[sPairKey].str(r.i) }
func (r row) WriteClass() string      { return r.d.strs[sWriteClass].str(r.i) }
func (r row) ReadPath() string        { return r.d.strs[sReadPath].str(r.i) }
func (r row) FaultMode() string       { return r.d.strs[sFaultMode].str(r.i) }
func (r row) Recovery() string        { return r.d.strs[sRecovery].str(r.i) }
func (r row) Instance() int64         { return r.d.ints[iInstance].get(r.i) }
func (r row) FocalIndex() int64       { return r.d.ints[iFocalIndex].get(r.i) }
func (r row) Seed() int64             { return r.d.ints[iSeed].get(r.i) }
func (r row) ExpectedCommits() int64  { return r.d.ints[iExpectedCommits].get(r.i) }
func (r row) FocalCommits() int64     { return r.d.ints[iFocalCommits].get(r.i) }
func (r row) ToolCalls() int64        { return r.d.ints[iToolCalls].get(r.i) }
func (r row) DelayS() float64         { return r.d.floats[fDelayS].get(r.i) }
func (r row) Weight() float64         { return r.d.floats[fWeight].get(r.i) }
func (r row) AgentTimeS() float64     { return r.d.floats[fAgentTimeS].get(r.i) }
func (r row) Reversible() bool        { return r.d.bools[bReversible].bits.get(int(r.i)) }
func (r row) FaultFired() bool        { return r.d.bools[bFaultFired].bits.get(int(r.i)) }
func (r row) Duplicated() bool        { return r.d.bools[bDuplicated].bits.get(int(r.i)) }
func (r row) TaskSuccess() bool       { return r.d.bools[bTaskSuccess].bits.get(int(r.i)) }
func (r row) EOS() bool               { return r.d.bools[bEOS].bits.get(int(r.i)) }
func (r row) ReportedSuccess() bool   { return r.d.bools[bReportedSuccess].bits.get(int(r.i)) }
func (r row) UncertaintyListed() bool { return r.d.bools[bUncertaintyListed].bits.get(int(r.i)) }
func (r row) Overclaim() bool         { return r.d.bools[bOverclaim].bits.get(int(r.i)) }

// CostUSD is the optional cost; ok is false when the episode has none.
func (r row) CostUSD() (float64, bool) {
	c := &r.d.floats[fCostUSD]
	if !c.active() || c.valid != nil && !c.valid.get(int(r.i)) {
		return 0, false
	}
	return c.get(r.i), true
}

// episodeID is the episode's id ("" when not read).
func (r row) episodeID() string {
	st := r.d.ids
	if st == nil {
		return ""
	}
	if st.end == nil {
		r.d.loadIDs()
	}
	lo := int64(0)
	if r.i > 0 {
		lo = st.end[r.i-1]
	}
	return string(st.bytes[lo:st.end[r.i]])
}

// Get returns the named column as ledger.Episode.Get does (a schema
// column not read is its zero value), so a row is a frame.Row; derived
// columns (WithBools) come first.
func (r row) Get(name string) (ledger.Value, bool) {
	if s, ok := r.d.derived[name]; ok {
		return ledger.Value{Kind: ledger.KindBool, Bool: s.get(int(r.i))}, true
	}
	s, ok := slots[name]
	if !ok {
		if name == "episode_id" {
			return ledger.Value{Kind: ledger.KindString, Str: r.episodeID()}, true
		}
		x := r.d.extras[name]
		if x == nil || !x.has.get(int(r.i)) {
			return ledger.Value{}, false
		}
		v := x.str(r.i)
		return ledger.Value{Kind: ledger.KindString, Str: v, Null: v == ""}, true
	}
	switch s.kind {
	case ledger.KindString:
		return ledger.Value{Kind: ledger.KindString, Str: r.d.strs[s.i].str(r.i)}, true
	case ledger.KindInt:
		return ledger.Value{Kind: ledger.KindInt, Int: r.d.ints[s.i].get(r.i)}, true
	case ledger.KindFloat:
		if s.i == fCostUSD {
			c, ok := r.CostUSD()
			return ledger.Value{Kind: ledger.KindFloat, Num: c, Null: !ok}, true
		}
		return ledger.Value{Kind: ledger.KindFloat, Num: r.d.floats[s.i].get(r.i)}, true
	}
	return ledger.Value{Kind: ledger.KindBool, Bool: r.d.bools[s.i].bits.get(int(r.i))}, true
}

// rowPtr is a row behind a pointer, so that one value serves as the
// frame.Row of every row of a scan without an allocation each.
type rowPtr struct{ row }

func (r *rowPtr) Get(name string) (ledger.Value, bool) { return r.row.Get(name) }
