package power

import (
	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/ledger"
)

// designColumns are the episode columns the plan fixes before anything is
// simulated.
var designColumns = map[string]bool{
	"episode_id": true, "experiment": true, "model": true, "harness": true, "contract": true,
	"condition": true, "cue": true, "template": true, "instance": true, "task": true,
	"focal_index": true, "pair_key": true, "fault_mode": true, "weight": true,
}

// designRow answers the design columns of a planned episode and the
// derived columns that depend on them alone; every other column is
// unknown, so a filter that reads one fails rather than guesses.
type designRow struct {
	ep      ledger.Episode
	derived map[string]bool // known derived values
}

func (r *designRow) Get(name string) (ledger.Value, bool) {
	if v, ok := r.derived[name]; ok {
		return ledger.Value{Kind: ledger.KindBool, Bool: v}, true
	}
	if !designColumns[name] {
		return ledger.Value{}, false
	}
	return r.ep.Get(name)
}

// Needed lists the plan's episodes that some population of f can keep, in
// design order. An episode is left out only when every hypothesis's and
// part's population is false on its design columns alone — where filters
// short-circuit, so "false" never read an unknown column, and a filter
// that needs an outcome fails and keeps the episode. Evaluating f on the
// needed episodes gives the same result as on the whole design, at a
// fraction of the simulation (the paper's H1–H6 read E1, E1s and E3 only).
func Needed(f *prereg.File, plan *design.Plan) ([]int, error) {
	var wheres []*formula.Where
	for _, h := range f.Hypotheses {
		for _, p := range h.Parts {
			w, err := formula.ParseWhere(formula.And(h.Population, p.Population))
			if err != nil {
				return nil, err
			}
			if w.Empty() {
				return all(plan.Len()), nil
			}
			wheres = append(wheres, w)
		}
	}
	derived := make([]*formula.Where, len(f.Derive))
	for i, d := range f.Derive {
		w, err := formula.ParseWhere(d.Where)
		if err != nil {
			return nil, err
		}
		derived[i] = w
	}
	var out []int
	row := &designRow{derived: map[string]bool{}}
	for i := range plan.Len() {
		e := plan.Episode(i)
		w := e.World
		row.ep = ledger.Episode{
			EpisodeID: e.ID(), Experiment: e.Experiment, Model: e.Model, Harness: e.Harness,
			Contract: e.Contract, Condition: e.Condition, Cue: e.Cue, Template: w.Task.Template,
			Instance: int64(w.Task.Instance), Task: w.Task.ID, FocalIndex: int64(w.FocalIndex),
			PairKey: e.PairKey(), FaultMode: w.Mode, Weight: e.Weight,
		}
		clear(row.derived)
		for j, d := range f.Derive {
			if v, err := derived[j].Keep(row); err == nil {
				row.derived[d.Name] = v
			}
		}
		for _, wh := range wheres {
			if keep, err := wh.Keep(row); err != nil || keep {
				out = append(out, i)
				break
			}
		}
	}
	return out, nil
}

func all(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}
