package sandbox

import (
	"fmt"
	"slices"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Grade derives the outcome fields of a raw episode from its calls,
// effects and final report (docs/simulation.md, Grading: logical identity and metrics). It has the signature of
// ledger.Grader.
//
// Logical identity of an effect is recovered from the arguments of the call
// that issued it (Effect.Seq): recipient and subject; customer and amount;
// platform and normalised text; ticket and comment text; a row's table and
// primary key (from the effect's resource id, one effect per row); deploy
// target and ref. Absorbed effects (deduplicated by a key) are not commits.
//
//	duplicated  = ∃ required action with ≥ 2 commits (for a batch: any row twice)
//	task_success = every required action committed
//	eos         = task_success ∧ ¬duplicated ∧ no commit outside the required set
//	overclaim   = reported_success ∧ (duplicated ∨ ¬task_success)
//
// A line that carries its own grading rules is graded by them
// (ledger.GradeRules).
func Grade(raw *ledger.RawEpisode) (ledger.Episode, error) {
	if raw == nil {
		return ledger.Episode{}, fmt.Errorf("sandbox: grade: nil episode")
	}
	if raw.Rules != nil {
		// The line names its own tools and how to grade them (a proxied
		// episode): no task template applies.
		return ledger.GradeRules(raw)
	}
	ep := raw.Episode
	task, err := NewTask(ep.Template, int(ep.Instance))
	if err != nil {
		return ep, fmt.Errorf("episode %q: field template/instance: %w", ep.EpisodeID, err)
	}
	if ep.FocalIndex < 0 || int(ep.FocalIndex) >= len(task.Steps) {
		return ep, fmt.Errorf("episode %q: field focal_index: task %s has no step %d", ep.EpisodeID, task.ID, ep.FocalIndex)
	}
	focal := &task.Steps[ep.FocalIndex]

	args, err := callArgs(raw)
	if err != nil {
		return ep, err
	}

	// required[id] is how many times the task wants the action: 1, or
	// more for a legitimate identical repeat (two identical installments).
	required := make(map[string]int, 8)
	expected := 0
	for _, s := range task.Steps {
		for _, id := range s.ids {
			required[id]++
			expected++
		}
	}
	commits := make(map[string]int, len(required))
	var effIDs []string // each effect's action, for the agent-side columns
	if ep.AgentFault != "" {
		effIDs = make([]string, len(raw.Effects))
	}
	unrequested := false
	focalCommits := int64(0)
	for i := range raw.Effects {
		e := &raw.Effects[i]
		if e.Absorbed {
			continue
		}
		id, err := effectIdentity(e, args)
		if err != nil {
			return ep, fmt.Errorf("episode %q: effects[%d]: %w", ep.EpisodeID, i, err)
		}
		if _, ok := required[id]; !ok {
			id = rewordedAction(task, e, args, id)
		}
		if effIDs != nil {
			effIDs[i] = id
		}
		if _, ok := required[id]; ok {
			commits[id]++
		} else {
			unrequested = true
		}
		for _, fid := range focal.ids {
			if fid == id {
				focalCommits++
				break
			}
		}
	}
	dup, success := false, true
	for id, want := range required {
		n := commits[id]
		if n > want {
			dup = true
		}
		if n < want {
			success = false
		}
	}

	ep.ExpectedCommits = int64(expected)
	ep.FocalCommits = focalCommits
	ep.Duplicated = dup
	ep.TaskSuccess = success
	ep.EOS = success && !dup && !unrequested
	status := ledger.GradeReport(&ep, raw, success, dup)
	if ep.Contract == "" {
		ep.Contract = ledger.ContractNative
	}
	if ep.WriteClass == "" {
		ep.WriteClass = focal.ClassUnder(ep.Contract)
	}
	if ep.ReadPath == "" {
		ep.ReadPath = focal.ReadPath
	}
	if ep.Service == "" {
		ep.Service = task.Service
	}
	if ep.Task == "" {
		ep.Task = task.ID
	}
	if ep.FocalWrite == "" {
		ep.FocalWrite = focal.Tool
	}
	fi := focalCall(raw, args, focal)
	ep.Recovery = classifyRecovery(raw, args, focal, status, fi)
	ep.FirstMove = classifyFirstMove(raw, args, focal, fi)
	if ep.AgentFault != "" {
		gradeReplay(&ep, raw, args, task, required, commits, effIDs)
	}
	return ep, nil
}

// rewordedAction places an effect whose identity no step has: a write
// whose action includes free text is the required action of the same
// tool and target whose text it rewords (Task.ActionOf); otherwise id
// stays, unrequested.
func rewordedAction(task *Task, e *ledger.Effect, args map[int64]map[string]any, id string) string {
	ti, ok := toolIndex[e.Tool]
	if !ok || defs[ti].rows {
		return id
	}
	if si := task.ActionOf(e.Tool, args[e.Seq]); si >= 0 && len(task.Steps[si].ids) == 1 {
		return task.Steps[si].ids[0]
	}
	return id
}

// effectIdentity returns the logical identity of a committed effect.
func effectIdentity(e *ledger.Effect, args map[int64]map[string]any) (string, error) {
	ti, ok := toolIndex[e.Tool]
	if !ok {
		// A tool the catalogue lacks (another harness's ledger): the
		// resource is the best identity there is.
		return e.Tool + "|" + e.ResourceID, nil
	}
	if defs[ti].rows {
		return "data|" + e.ResourceID, nil
	}
	a, ok := args[e.Seq]
	if !ok {
		return "", fmt.Errorf("field seq: %d names no call", e.Seq)
	}
	return identity(ti, a), nil
}

// classifyRecovery names the agent's behaviour after the focal fault from
// the call trace (ledger.ClassifyRecovery, docs/ledger.md, recovery), each
// call after the focal write's first issue fi read by moveOf.
func classifyRecovery(raw *ledger.RawEpisode, args map[int64]map[string]any, focal *Step, status string, fi int) string {
	if fi < 0 {
		return ledger.RecoveryNone
	}
	service := defs[toolIndex[focal.Tool]].service
	focalSet := uniq(focal.ids)
	return ledger.ClassifyRecovery(raw.Calls, fi, func(i int) string { return moveOf(&raw.Calls[i], args, service, focalSet) }, status)
}

// focalCall is the index of the focal write's first issue that reached the
// service (the call the fault struck), -1 if it was never issued.
func focalCall(raw *ledger.RawEpisode, args map[int64]map[string]any, focal *Step) int {
	for i := range raw.Calls {
		c := &raw.Calls[i]
		if c.Tool != focal.Tool || c.Outcome == ledger.OutcomeHTTP400 {
			continue
		}
		if slices.Equal(identities(toolIndex[c.Tool], args[c.Seq]), focal.ids) {
			return i
		}
	}
	return -1
}

// classifyFirstMove names the agent's first call after the focal write's
// first issue fi (docs/ledger.md, first_move), with recovery's terms:
//
//	a read of the focal write's service, or an oracle   read_back
//	a wait                                              wait
//	a write touching the focal write's logical action   reissue
//	any other call                                      other
//	no further call                                     stop
//	the focal write never issued                        none
//
// Rejected calls (400) and tools outside the catalogue are skipped, as in
// recovery. Up to that call's answer the agent has seen the same in every
// world of the focal write's observation group (timeout_pre, _post and
// _late: a timeout), so its first move cannot depend on the hidden world;
// the recovery path that follows can, since a read-back's answer differs.
func classifyFirstMove(raw *ledger.RawEpisode, args map[int64]map[string]any, focal *Step, fi int) string {
	if fi < 0 {
		return ledger.MoveNone
	}
	service := defs[toolIndex[focal.Tool]].service
	focalSet := uniq(focal.ids)
	return ledger.FirstMove(raw.Calls, fi, func(i int) string { return moveOf(&raw.Calls[i], args, service, focalSet) })
}

// moveOf is what call c does after the focal write, whose service and
// logical identities are given: a wait, a read-back (a read of that
// service, or an oracle), a re-issue (a write touching one of the
// identities), another call; "" for a call that does not count (a
// rejected 400, a tool outside the catalogue).
func moveOf(c *ledger.Call, args map[int64]map[string]any, service string, focalSet map[string]bool) string {
	ti, ok := toolIndex[c.Tool]
	if !ok || c.Outcome == ledger.OutcomeHTTP400 {
		return ""
	}
	d := &defs[ti]
	switch {
	case ti == tWait:
		return ledger.MoveWait
	case d.oracle || (!d.write && d.service == service):
		return ledger.MoveReadBack
	case d.write && touches(identities(ti, args[c.Seq]), focalSet):
		return ledger.MoveReissue
	}
	return ledger.MoveOther
}

func touches(ids []string, set map[string]bool) bool {
	for _, id := range ids {
		if set[id] {
			return true
		}
	}
	return false
}

// callArgs decodes the arguments of every call of raw, by seq.
func callArgs(raw *ledger.RawEpisode) (map[int64]map[string]any, error) {
	args := make(map[int64]map[string]any, len(raw.Calls))
	for i := range raw.Calls {
		c := &raw.Calls[i]
		var m map[string]any
		if c.Args != "" {
			var err error
			if m, err = decodeArgs(c.Args); err != nil {
				return nil, fmt.Errorf("episode %q: calls[%d] (seq %d): field args: %w", raw.EpisodeID, i, c.Seq, err)
			}
		}
		args[c.Seq] = m
	}
	return args, nil
}
