package mcp

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/limbo-toolkit/limbo/ledger"
)

// lineDesign is what a ledger line says of the design fields its planned
// episode fixes.
type lineDesign struct {
	EpisodeID   string  `json:"episode_id"`
	Experiment  string  `json:"experiment"`
	Model       string  `json:"model"`
	Harness     string  `json:"harness"`
	Contract    string  `json:"contract"`
	Condition   string  `json:"condition"`
	Cue         string  `json:"cue"`
	Template    string  `json:"template"`
	Instance    int64   `json:"instance"`
	FocalIndex  int64   `json:"focal_index"`
	PairKey     string  `json:"pair_key"`
	FaultMode   string  `json:"fault_mode"`
	DelayS      float64 `json:"delay_s"`
	Weight      float64 `json:"weight"`
	Seed        int64   `json:"seed"`
	Annotations *bool   `json:"annotations"` // absent in lines of older servers
}

// LineMismatchError says that a ledger line is not the episode its plan
// entry describes: another run's line under the same id (another seed,
// model, harness label or plan), or an edited one.
type LineMismatchError struct {
	Field      string
	Line, Plan string // the values, as JSON
}

func (e *LineMismatchError) Error() string {
	return fmt.Sprintf("field %s: %s, the plan says %s", e.Field, e.Line, e.Plan)
}

// CheckLine checks the ledger line of the (normalized) planned episode e:
// the design fields the plan fixes (labels, world, seed, weight) must be
// the plan's. A line of another plan that shares the episode id (ids do
// not carry the seed) or one edited by hand is a *LineMismatchError naming
// the first field that differs.
func (e *Episode) CheckLine(line []byte) error {
	var d lineDesign
	if err := json.Unmarshal(line, &d); err != nil {
		return fmt.Errorf("not a JSON episode line: %v", err)
	}
	str := strconv.Quote
	num := func(v int64) string { return strconv.FormatInt(v, 10) }
	flt := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	delay := 0.0
	if m, _ := ledger.FaultByName(e.FaultMode); m.Late() {
		delay = e.DelayS
	}
	checks := []struct{ field, line, plan string }{
		{"episode_id", str(d.EpisodeID), str(e.EpisodeID)},
		{"experiment", str(d.Experiment), str(e.Experiment)},
		{"model", str(d.Model), str(e.Model)},
		{"harness", str(d.Harness), str(e.Harness)},
		{"contract", str(d.Contract), str(e.Contract)},
		{"condition", str(d.Condition), str(e.Condition)},
		{"cue", str(d.Cue), str(e.Cue)},
		{"template", str(d.Template), str(e.Template)},
		{"instance", num(d.Instance), num(int64(e.Instance))},
		{"focal_index", num(d.FocalIndex), num(int64(e.FocalIndex))},
		{"fault_mode", str(d.FaultMode), str(e.FaultMode)},
		{"pair_key", str(d.PairKey), str(e.PairKey())},
		{"delay_s", flt(d.DelayS), flt(delay)},
		{"weight", flt(d.Weight), flt(e.Weight)},
		{"seed", num(d.Seed), num(int64(e.Seed))},
	}
	if d.Annotations != nil {
		checks = append(checks, struct{ field, line, plan string }{"annotations", strconv.FormatBool(*d.Annotations), strconv.FormatBool(e.Annotations)})
	}
	for _, c := range checks {
		if c.line != c.plan {
			return &LineMismatchError{Field: c.field, Line: c.line, Plan: c.plan}
		}
	}
	return nil
}

// CheckLedger reads the ledger's recorded lines and checks each line of
// a planned episode against its plan entry (CheckLine). With onlyPlanned,
// a line of an episode the plan lacks is refused too (a shard's ledger
// holds its slice of the plan and nothing else); without, it is left
// alone (a ledger may collect several plans' episodes). The error names
// the file, the line and the field, and says what to do.
func CheckLedger(l *Ledger, plan *Plan, onlyPlanned bool) error {
	if l.Len() == 0 {
		return nil
	}
	byID := make(map[string]*Episode, plan.Len())
	for i := range plan.Episodes {
		byID[plan.Episodes[i].EpisodeID] = &plan.Episodes[i]
	}
	const what = "the ledger holds episodes of another plan (another run seed, model or harness label, plan file or annotations) or edited lines; resume with the plan it was written with, or write to another ledger"
	return l.Lines(func(lineNo int, line []byte) error {
		var head struct {
			EpisodeID string `json:"episode_id"`
		}
		if json.Unmarshal(line, &head) != nil || head.EpisodeID == "" {
			return nil // Open refused anything else
		}
		ep := byID[head.EpisodeID]
		if ep == nil {
			if onlyPlanned {
				return ledger.Problem{File: l.Path(), Line: lineNo, Field: "episode_id", Msg: fmt.Sprintf("%q is not an episode of this plan: %s", head.EpisodeID, what)}
			}
			return nil
		}
		if err := ep.CheckLine(line); err != nil {
			return ledger.Problem{File: l.Path(), Line: lineNo, Msg: fmt.Sprintf("episode %s: %v: %s", head.EpisodeID, err, what)}
		}
		return nil
	})
}
