package analysis

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
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
	// MinMatched is the share of the baseline's episodes (after Where)
	// that must have a partner in the candidate run, in (0, 1]; 0 =
	// DefaultMinMatched. Fewer is an UnmatchedError: a crashed, truncated
	// or other run is no evidence either way.
	MinMatched float64
}

// DefaultMinMatched is GateSpec.MinMatched's default: a candidate run
// missing more than 5% of the baseline's worlds is refused.
const DefaultMinMatched = 0.95

// GateResult is the gate's decision: Tango's score test of H₀ Δ ≥ δ, Δ =
// p_candidate − p_baseline on the matched pairs, at level
// stats.TOSTAlpha; it rejects exactly when the upper end of Tango's 90%
// score interval is below δ. Unlike the paired Wald interval, the score
// interval does not shrink to a point when no pair is discordant, so a
// handful of identical pairs is not evidence of non-inferiority.
type GateResult struct {
	Spec                   GateSpec
	Pairs                  int       // matched pairs
	Baseline, Candidate    int       // episodes of each run after Where
	B, C                   int       // discordant pairs: bad in the candidate only, in the baseline only
	Diff                   float64   // Δ̂ over the pairs
	Lo90, Hi90             float64   // Tango's 90% score interval
	NewcombeLo, NewcombeHi float64   // Newcombe's 90% square-and-add interval, for reporting
	P                      float64   // Tango's score p-value of H₀ Δ ≥ δ
	Pass                   bool      // H₀ rejected: non-inferior within δ
	Warnings               []Warning // unpaired episodes dropped
}

// UnmatchedError refuses a gate whose runs match too few of the
// baseline's episodes.
type UnmatchedError struct {
	Pairs, Baseline, Candidate int
	MinMatched                 float64
}

func (e *UnmatchedError) Error() string { return e.Unwrap().Error() }

// Unwrap returns the message as a field error naming MinMatched, which a
// command renames to its flag.
func (e *UnmatchedError) Unwrap() error {
	return fieldtext.New("MinMatched", "only %d of the baseline's %d episodes (%.1f%%) have a partner among the candidate's %d; the gate needs %g%% ({MinMatched}): a crashed, truncated or other-plan run is no evidence",
		e.Pairs, e.Baseline, 100*float64(e.Pairs)/float64(max(e.Baseline, 1)), e.Candidate, 100*e.MinMatched)
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
	if spec.MinMatched == 0 {
		spec.MinMatched = DefaultMinMatched
	}
	switch {
	case !(spec.Margin > 0 && spec.Margin < 1):
		return nil, fieldf("Margin", "%v: want a worsening in (0, 1), e.g. 0.02", spec.Margin)
	case !(spec.MinMatched > 0 && spec.MinMatched <= 1):
		return nil, fieldf("MinMatched", "%v: want a share of the baseline in (0, 1], e.g. 0.95", spec.MinMatched)
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
	var warn warnings
	q := Query{Source: table.Rows(rows), Where: spec.Where}
	pr, err := q.readPairing(spec.Outcome, gateArm, spec.PairBy, "", "candidate", []string{"baseline"}, &warn)
	if err != nil {
		return nil, err
	}
	lc, err := armLevel(pr.arm, "Candidate", "candidate")
	if err != nil {
		return nil, err
	}
	lb, err := armLevel(pr.arm, "Baseline", "baseline")
	if err != nil {
		return nil, err
	}
	tb := pr.table(lc, lb)
	out := &GateResult{Spec: spec, Pairs: tb.pairs(), Candidate: tb.pairs() + tb.unmatched1, Baseline: tb.pairs() + tb.unmatched2, B: tb.b, C: tb.c}
	if float64(out.Pairs) < spec.MinMatched*float64(out.Baseline) {
		return nil, &UnmatchedError{Pairs: out.Pairs, Baseline: out.Baseline, Candidate: out.Candidate, MinMatched: spec.MinMatched}
	}
	if tb.unmatched1+tb.unmatched2 > 0 {
		warn.addf(WarnUnmatched, "%d candidate and %d baseline episode(s) without a partner dropped", tb.unmatched1, tb.unmatched2)
	}
	// NewcombePaired's table: a both bad, b the candidate only.
	out.Diff = (float64(tb.b) - float64(tb.c)) / float64(out.Pairs)
	out.Lo90, out.Hi90 = stats.TangoPairedCI(tb.a, tb.b, tb.c, tb.d, 1-2*stats.TOSTAlpha)
	out.NewcombeLo, out.NewcombeHi = stats.NewcombePaired(tb.a, tb.b, tb.c, tb.d, 1-2*stats.TOSTAlpha)
	out.P = stats.NormalCDF(stats.TangoPaired(tb.a, tb.b, tb.c, tb.d, spec.Margin))
	out.Pass = out.P < stats.TOSTAlpha // NaN fails
	out.Warnings = warn.items()
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
