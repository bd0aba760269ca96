package analysis

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// WorldColumns are the design columns that fix an episode's world across
// models and runs of the same plan: the default pairing of Gate. (The
// pair_key column names the model too, so it pairs only runs of one
// model.) focal_write follows from template and focal_index in the
// sandbox's tasks, not in a proxy's, whose worlds differ by tool.
var WorldColumns = []string{"template", "instance", "focal_write", "focal_index", "fault_mode", "contract", "condition", "cue"}

// GateSpec is a non-inferiority gate: is the candidate's rate of a bad
// outcome (higher is worse) no worse than the baseline's by Margin or
// more, on episodes paired world by world?
type GateSpec struct {
	// Candidate and Baseline are the two runs of the same plan (their
	// Where is ignored; Where below filters both).
	Candidate, Baseline Query
	Outcome             string   // the bad outcome; "" = duplicated
	Margin              float64  // δ in (0, 1): the worsening tolerated
	PairBy              []string // "" = WorldColumns
	Where               string   // filter on both runs
}

// GateResult is the gate's decision: the paired test of H₀ Δ ≥ δ, Δ =
// p_candidate − p_baseline, at level stats.TOSTAlpha (the upper one-sided
// test of TOST's paired Wald test; the 90% interval's upper end is below δ
// exactly when it rejects).
type GateResult struct {
	Spec                   GateSpec
	Pairs                  int
	Diff                   float64   // Δ̂ over the pairs
	Hi90                   float64   // upper end of the paired Wald 90% interval
	NewcombeLo, NewcombeHi float64   // Newcombe's 90% interval, for reporting
	P                      float64   // p-value of H₀ Δ ≥ δ
	Pass                   bool      // H₀ rejected: non-inferior within δ
	Warnings               []Warning // unpaired episodes dropped, undefined tests
}

// gateArm is the virtual column that tells the two runs apart.
const gateArm = "gate_arm"

// Gate runs the non-inferiority gate. Errors name the spec fields.
func Gate(spec GateSpec) (*GateResult, error) {
	if spec.Outcome == "" {
		spec.Outcome = "duplicated"
	}
	if len(spec.PairBy) == 0 {
		spec.PairBy = WorldColumns
	}
	switch {
	case !(spec.Margin > 0 && spec.Margin < 1):
		return nil, fieldf("Margin", "%v: want a worsening in (0, 1), e.g. 0.02", spec.Margin)
	case noLedger(spec.Candidate):
		return nil, fieldf("Candidate", "no ledger given (required)")
	case noLedger(spec.Baseline):
		return nil, fieldf("Baseline", "no ledger given (required)")
	}
	var rows []frame.Row
	for _, run := range []struct {
		arm string
		q   Query
	}{{"candidate", spec.Candidate}, {"baseline", spec.Baseline}} {
		n := len(rows)
		q := run.q
		q.Where = ""
		src, err := q.source()
		if err != nil {
			return nil, err
		}
		// No columns named: every episode, whole, as a row.
		err = src.Scan(nil, nil, func(b *table.Batch) error {
			for i := range b.N {
				ep, ok := b.Row(i).(*ledger.Episode)
				if !ok {
					return errors.New("gate: a run's rows must be episodes")
				}
				c := *ep
				c.Extra = maps.Clone(ep.Extra)
				rows = append(rows, &armRow{Episode: &c, arm: run.arm})
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		if len(rows) == n {
			return nil, fmt.Errorf("%s run %s: no episodes", run.arm, q.name())
		}
	}
	res, err := TOST(Query{Source: table.Rows(rows), Where: spec.Where}, TOSTSpec{Outcome: spec.Outcome, Arm: gateArm,
		A: "candidate", B: "baseline", Margin: spec.Margin, PairedBy: spec.PairBy})
	if err != nil {
		return nil, err
	}
	out := &GateResult{Spec: spec, Pairs: res.Pairs, Diff: res.Diff, Hi90: res.Hi90, P: res.PUpper,
		NewcombeLo: res.NewcombeLo, NewcombeHi: res.NewcombeHi, Warnings: res.Warnings}
	out.Pass = res.PUpper < stats.TOSTAlpha
	if math.IsNaN(res.PUpper) {
		out.Pass = false
	}
	return out, nil
}

func noLedger(q Query) bool {
	if s, ok := q.Source.(*table.Files); ok {
		return len(s.Paths) == 0 || slices.Contains(s.Paths, "")
	}
	return q.Source == nil
}

// armRow is an episode of one run, with the run as the gate_arm column
// and its id made distinct from the other run's.
type armRow struct {
	*ledger.Episode
	arm string
}

func (r *armRow) Get(name string) (ledger.Value, bool) {
	switch name {
	case gateArm:
		return ledger.Value{Kind: ledger.KindString, Str: r.arm}, true
	case "episode_id":
		return ledger.Value{Kind: ledger.KindString, Str: r.arm + "/" + r.Episode.EpisodeID}, true
	}
	return r.Episode.Get(name)
}
