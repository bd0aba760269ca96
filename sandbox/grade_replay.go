package sandbox

import (
	"github.com/limbo-toolkit/limbo/ledger"
)

// gradeReplay derives the agent-side outcome columns (group replay,
// docs/ledger.md) of an episode that carries agent_fault, from the same
// calls and effects as the rest of the grade:
//
//	exact_duplicated = ∃ action a: commits(a) > wanted(a) ∧ max over argument texts t of commits(a, t) > wanted(a)
//	perturbed        = a later issue of a required action carries other arguments than its first issue
//	suppressed       = ∃ a: commits(a) < wanted(a) ∧ (the guard answered an attempt of a with a result or a
//	                   refusal ∨ a service absorbed an attempt of a under an idempotency key)
//	error_replayed   = ∃ a: commits(a) < wanted(a) ∧ the guard answered an attempt of a with a stored error
//	guard_answers    = writes the guard answered without forwarding them
//
// where an effect's argument text is its call's canonical arguments
// without the idempotency key and a quoted receipt (a batch row: the row
// itself), so that two commits are an exact repeat when a key derived from
// those arguments would have named both. effIDs[i] is effect i's action
// as Grade placed it ("" for an absorbed one).
func gradeReplay(ep *ledger.Episode, raw *ledger.RawEpisode, args map[int64]map[string]any, task *Task, required, commits map[string]int, effIDs []string) {
	texts := map[string]map[string]int{} // action → argument text → commits
	var absorbed map[string]bool         // actions with an attempt a key absorbed
	for i := range raw.Effects {
		e := &raw.Effects[i]
		if e.Absorbed {
			if ti, ok := toolIndex[e.Tool]; ok {
				if absorbed == nil {
					absorbed = map[string]bool{}
				}
				for _, id := range callActions(task, ti, args[e.Seq]) {
					absorbed[id] = true
				}
			}
			continue
		}
		id := effIDs[i]
		if commits[id] <= required[id] {
			continue
		}
		ti, ok := toolIndex[e.Tool]
		if !ok {
			continue
		}
		m := texts[id]
		if m == nil {
			m = map[string]int{}
			texts[id] = m
		}
		m[effectArgs(ti, args[e.Seq], e.ResourceID)]++
	}
	for id, m := range texts {
		for _, n := range m {
			if n > required[id] {
				ep.ExactDuplicated = true
			}
		}
	}

	first := map[string]string{} // action → argument text of its first issue
	var replayed, refused, errored map[string]bool
	mark := func(set *map[string]bool, ids []string) {
		if *set == nil {
			*set = map[string]bool{}
		}
		for _, id := range ids {
			(*set)[id] = true
		}
	}
	for i := range raw.Calls {
		c := &raw.Calls[i]
		ti, ok := toolIndex[c.Tool]
		if !ok || !defs[ti].write || c.Outcome == ledger.OutcomeHTTP400 {
			continue
		}
		a := args[c.Seq]
		ids := callActions(task, ti, a)
		switch c.Outcome {
		case ledger.OutcomeGuardReplay:
			ep.GuardAnswers++
			mark(&replayed, ids)
		case ledger.OutcomeGuardRefused:
			ep.GuardAnswers++
			mark(&refused, ids)
		case ledger.OutcomeGuardError:
			ep.GuardAnswers++
			mark(&errored, ids)
		}
		for _, id := range ids {
			if _, req := required[id]; !req {
				continue
			}
			text := effectArgs(ti, a, rowOf(id))
			if f, seen := first[id]; !seen {
				first[id] = text
			} else if f != text {
				ep.Perturbed = true
			}
		}
	}
	for id, want := range required {
		if commits[id] >= want {
			continue
		}
		if replayed[id] || refused[id] || absorbed[id] {
			ep.Suppressed = true
		}
		if errored[id] {
			ep.ErrorReplayed = true
		}
	}
}

// callActions returns the logical actions a write call touches: its
// identities, or the required action whose free text it rewords
// (Task.ActionOf).
func callActions(task *Task, ti int, args map[string]any) []string {
	ids := identities(ti, args)
	if defs[ti].rows || len(ids) != 1 {
		return ids
	}
	for _, s := range task.Steps {
		for _, id := range s.ids {
			if id == ids[0] {
				return ids
			}
		}
	}
	if si := task.ActionOf(defs[ti].name, args); si >= 0 && len(task.Steps[si].ids) == 1 {
		return task.Steps[si].ids
	}
	return ids
}

// rowOf returns the resource of a row identity ("data|table/pk" →
// "table/pk"), "" for another action.
func rowOf(id string) string {
	if len(id) > 5 && id[:5] == "data|" {
		return id[5:]
	}
	return ""
}
