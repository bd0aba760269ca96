package paper

import "github.com/limbo-toolkit/limbo/analysis/table"

// held is an episode table with the column views the tables read, taken
// once (table.Data's Strings, Bools, Ints and Floats).
type held struct {
	d *table.Data

	experiment, model, harness, contract, condition, cue, template, pairKey, writeClass, faultMode, recovery, firstMove table.Strings

	instance, focalIndex, toolCalls table.Ints

	delayS, weight, agentTimeS, costUSD table.Floats

	faultFired, duplicated, taskSuccess, eos table.Bools
}

// hold takes the column views of d.
func hold(d *table.Data) *held {
	h := &held{d: d}
	for name, v := range map[string]*table.Strings{
		"experiment": &h.experiment, "model": &h.model, "harness": &h.harness, "contract": &h.contract,
		"condition": &h.condition, "cue": &h.cue, "template": &h.template, "pair_key": &h.pairKey,
		"write_class": &h.writeClass, "fault_mode": &h.faultMode, "recovery": &h.recovery,
		"first_move": &h.firstMove,
	} {
		*v = must(d.Strings(name))
	}
	for name, v := range map[string]*table.Ints{"instance": &h.instance, "focal_index": &h.focalIndex, "tool_calls": &h.toolCalls} {
		*v = must(d.Ints(name))
	}
	for name, v := range map[string]*table.Floats{"delay_s": &h.delayS, "weight": &h.weight, "agent_time_s": &h.agentTimeS, "cost_usd": &h.costUSD} {
		*v = must(d.Floats(name))
	}
	for name, v := range map[string]*table.Bools{"fault_fired": &h.faultFired, "duplicated": &h.duplicated, "task_success": &h.taskSuccess, "eos": &h.eos} {
		*v = must(d.Bools(name))
	}
	return h
}

// must is a view of a schema column, which every Data has.
func must[V any](v V, ok bool) V {
	if !ok {
		panic("paper: a schema column has no view") // a build defect
	}
	return v
}

// row is episode i of a held table: what the tables read of an episode,
// by accessors named as ledger.Episode's fields.
type row struct {
	h *held
	i int
}

func (r row) Experiment() string  { return r.h.experiment.Value(r.i) }
func (r row) Model() string       { return r.h.model.Value(r.i) }
func (r row) Harness() string     { return r.h.harness.Value(r.i) }
func (r row) Contract() string    { return r.h.contract.Value(r.i) }
func (r row) Condition() string   { return r.h.condition.Value(r.i) }
func (r row) Cue() string         { return r.h.cue.Value(r.i) }
func (r row) Template() string    { return r.h.template.Value(r.i) }
func (r row) WriteClass() string  { return r.h.writeClass.Value(r.i) }
func (r row) FaultMode() string   { return r.h.faultMode.Value(r.i) }
func (r row) Recovery() string    { return r.h.recovery.Value(r.i) }
func (r row) FirstMove() string   { return r.h.firstMove.Value(r.i) }
func (r row) Instance() int64     { return r.h.instance.Value(r.i) }
func (r row) FocalIndex() int64   { return r.h.focalIndex.Value(r.i) }
func (r row) ToolCalls() int64    { return r.h.toolCalls.Value(r.i) }
func (r row) DelayS() float64     { return r.h.delayS.Value(r.i) }
func (r row) Weight() float64     { return r.h.weight.Value(r.i) }
func (r row) AgentTimeS() float64 { return r.h.agentTimeS.Value(r.i) }
func (r row) FaultFired() bool    { return r.h.faultFired.Value(r.i) }
func (r row) Duplicated() bool    { return r.h.duplicated.Value(r.i) }
func (r row) TaskSuccess() bool   { return r.h.taskSuccess.Value(r.i) }
func (r row) EOS() bool           { return r.h.eos.Value(r.i) }

// CostUSD is the optional cost; ok is false when the episode has none.
func (r row) CostUSD() (float64, bool) {
	return r.h.costUSD.Value(r.i), r.h.costUSD.Valid(r.i)
}

// harnessPair is the codes of the episode's harness and pair_key, which
// identify them within its Data ({−1, −1} for columns not read).
func (r row) harnessPair() [2]int32 {
	return [2]int32{r.h.harness.Code(r.i), r.h.pairKey.Code(r.i)}
}

// pairIndex maps the {harness, pair_key} codes of rows (harnessPair) to a
// row. pair_key has a value per world, millions on a large ledger, so
// the index is a slice by pair_key code holding the row of the first
// harness seen with it; other harnesses of the same pair_key, rare, go to
// a map.
type pairIndex struct {
	rows    []int32 // by pair_key code + 1: row + 1, 0 for none
	harness []int32 // by pair_key code + 1: the harness code of rows'
	spill   map[[2]int32]int32
}

func (x *pairIndex) get(h *held, k [2]int32) (row, bool) {
	p := int(k[1]) + 1
	if p < len(x.rows) && x.rows[p] != 0 && x.harness[p] == k[0] {
		return row{h, int(x.rows[p] - 1)}, true
	}
	if i, ok := x.spill[k]; ok {
		return row{h, int(i)}, true
	}
	return row{}, false
}

func (x *pairIndex) set(k [2]int32, i int) {
	p := int(k[1]) + 1
	if p >= len(x.rows) {
		n := max(p+1, 2*len(x.rows))
		x.rows = append(x.rows, make([]int32, n-len(x.rows))...)
		x.harness = append(x.harness, make([]int32, n-len(x.harness))...)
	}
	switch {
	case x.rows[p] == 0:
		x.rows[p], x.harness[p] = int32(i)+1, k[0]
	case x.harness[p] == k[0]:
		x.rows[p] = int32(i) + 1
	default:
		if x.spill == nil {
			x.spill = map[[2]int32]int32{}
		}
		x.spill[k] = int32(i)
	}
}
