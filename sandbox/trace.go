package sandbox

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Traces: an episode read as a timeline on the virtual clock, with each
// call's role and what the agent observed, the fault and where it was
// injected, each effect's origin and the grader's verdict in words. Figure 1
// and the episode viewer draw these; neither interprets a ledger itself.

// Trace is one episode as a timeline.
type Trace struct {
	EpisodeID string
	Fault     FaultNote
	Calls     []TracedCall
	Effects   []TracedEffect
	// Commits is the number of non-absorbed effects of the focal write.
	Commits int
	// Reason is the grader's verdict in words, e.g. "two charges for one
	// logical charge: calls 2 and 5".
	Reason string
}

// FaultNote says which fault was planned and where it was injected.
type FaultNote struct {
	Mode   string  // ledger.Fault*
	DelayS float64 // in-flight delay of a late commit, else 0
	// Seq is the call the fault was injected on (the focal write's first
	// issue), 0 when it never fired or the mode is none.
	Seq int64
	// Text describes the fault for a reader: what the agent saw and what
	// happened underneath.
	Text string
}

// Call roles in a trace.
const (
	RoleFocal    = "focal write" // the focal write's first issue
	RoleReissue  = "re-issue"    // a later write of the focal write's logical action
	RoleReadBack = "read-back"   // a read of the focal write's read path after it
	RoleWrite    = "write"       // another write of the task
	RoleRead     = "read"
	RoleWait     = "wait"
	RoleOracle   = "oracle"
	RoleUnknown  = "unknown tool" // not in the catalogue (another harness's ledger)
)

// TracedCall is a call with its role and what the agent observed.
type TracedCall struct {
	ledger.Call
	Role     string
	Observed string // e.g. "timeout after 30 s (no response)"
	Faulted  bool   // the fault was injected on this call
}

// TracedEffect is an effect with its origin in words.
type TracedEffect struct {
	ledger.Effect
	// Origin names where the effect came from: "call 2", "late commit of
	// call 2 (δ = 90 s)", "redelivery of call 2", "partial batch of
	// call 2", "keyed repeat absorbed: call 5".
	Origin string
	// Repeat marks a second or later commit of one logical action (the
	// commits that make an episode duplicated).
	Repeat bool
}

// TraceOf reads a raw episode as a timeline. ep is its graded row (from
// Grade, or from an episode table beside the calls and effects); the
// verdict in words follows ep's grades. An episode of a template the task
// suite lacks still gets roles and origins that need no task (writes,
// reads, waits) and a reason from its grades alone.
func TraceOf(raw *ledger.RawEpisode, ep *ledger.Episode) (Trace, error) {
	if raw == nil || ep == nil {
		return Trace{}, errors.New("sandbox: trace: nil episode")
	}
	tr := Trace{EpisodeID: raw.EpisodeID, Fault: FaultNote{Mode: ep.FaultMode, DelayS: ep.DelayS}}
	args, err := callArgs(raw)
	if err != nil {
		return tr, err
	}
	var focal *Step
	task, terr := NewTask(ep.Template, int(ep.Instance))
	if terr == nil && ep.FocalIndex >= 0 && int(ep.FocalIndex) < len(task.Steps) {
		focal = &task.Steps[ep.FocalIndex]
	}
	want := map[string]int{} // identity → times the task wants it
	if terr == nil {
		for _, s := range task.Steps {
			for _, id := range s.ids {
				want[id]++
			}
		}
	}

	// Roles. The fault is injected on the focal write's first issue that
	// passed validation (a 400 never reaches the service).
	readTool := ""
	if focal != nil {
		readTool, _, _ = ReadArgsFor(focal.Tool, focal.Args)
	}
	seenFocal := false
	tr.Calls = make([]TracedCall, len(raw.Calls))
	for i, c := range raw.Calls {
		tc := TracedCall{Call: c, Observed: observed(&c)}
		ti, known := toolIndex[c.Tool]
		switch {
		case !known:
			tc.Role = RoleUnknown
		case ti == tWait:
			tc.Role = RoleWait
		case defs[ti].oracle:
			tc.Role = RoleOracle
		case defs[ti].write && focal != nil && c.Tool == focal.Tool && c.Outcome != ledger.OutcomeHTTP400 &&
			slices.Equal(identities(ti, args[c.Seq]), focal.ids):
			if seenFocal {
				tc.Role = RoleReissue
			} else {
				seenFocal = true
				tc.Role = RoleFocal
				if m, ok := ledger.FaultByName(ep.FaultMode); ep.FaultFired && !(ok && m.Control()) {
					tc.Faulted = true
					tr.Fault.Seq = c.Seq
				}
			}
		case defs[ti].write:
			tc.Role = RoleWrite
		case seenFocal && c.Tool == readTool:
			tc.Role = RoleReadBack
		default:
			tc.Role = RoleRead
		}
		tr.Calls[i] = tc
	}
	tr.Fault.Text = faultText(ep, tr.Fault.Seq)

	// Effects: origins, and which commits repeat a logical action.
	commits := map[string][]int{} // identity → indices of non-absorbed effects
	var order []string
	tr.Effects = make([]TracedEffect, len(raw.Effects))
	for i, e := range raw.Effects {
		te := TracedEffect{Effect: e, Origin: origin(&e)}
		if e.Focal && !e.Absorbed {
			tr.Commits++
		}
		if !e.Absorbed {
			id, err := effectIdentity(&raw.Effects[i], args)
			if err != nil {
				return tr, fmt.Errorf("episode %q: effects[%d]: %w", raw.EpisodeID, i, err)
			}
			if _, req := want[id]; !req && terr == nil {
				id = rewordedAction(task, &raw.Effects[i], args, id)
			}
			if _, ok := commits[id]; !ok {
				order = append(order, id)
			}
			commits[id] = append(commits[id], i)
			te.Repeat = len(commits[id]) > max(want[id], 1)
		}
		tr.Effects[i] = te
	}
	tr.Reason = reason(raw, ep, &tr, commits, order)
	return tr, nil
}

// observed says what the agent saw of a call.
func observed(c *ledger.Call) string {
	lat := seconds(c.LatencyS)
	switch c.Outcome {
	case ledger.OutcomeOK:
		if c.Tool == ToolWait {
			return "waited " + lat + " s"
		}
		return "ok"
	case ledger.OutcomeTimeout:
		return "timeout after " + lat + " s (no response)"
	case ledger.OutcomeHTTP400:
		return "400 rejected (bad request)"
	case ledger.OutcomeHTTP404:
		return "404 not found"
	case ledger.OutcomeHTTP409:
		return "409 conflict (key in flight or already used)"
	case ledger.OutcomeHTTP412:
		return "412 precondition failed"
	case ledger.OutcomeHTTP429:
		return "429 rate limited (retry after 30 s)"
	case ledger.OutcomeHTTP500:
		return "500 internal server error"
	case ledger.OutcomeConnRefused:
		return "connection refused"
	}
	return c.Outcome
}

// faultText describes the planned fault and where it struck, in the
// catalogue's words (ledger.FaultMode.Text).
func faultText(ep *ledger.Episode, seq int64) string {
	what := ep.FaultMode
	if m, ok := ledger.FaultByName(ep.FaultMode); ok {
		if m.Control() {
			return m.Text
		}
		what = m.Text
		if m.Late() {
			what += " by δ = " + seconds(ep.DelayS) + " s"
		}
	}
	if !ep.FaultFired {
		return what + "; planned, but the focal write was never issued"
	}
	if seq == 0 {
		return what + "; on the focal write"
	}
	return what + "; injected on call " + strconv.FormatInt(seq, 10)
}

// origin names where an effect came from.
func origin(e *ledger.Effect) string {
	call := "call " + strconv.FormatInt(e.Seq, 10)
	if e.Absorbed {
		return "keyed repeat absorbed: " + call
	}
	switch e.Source {
	case ledger.SourceLate:
		return "late commit of " + call + " (δ = " + seconds(e.CommittedAtS-e.IssuedAtS) + " s)"
	case ledger.SourceRedelivery:
		return "redelivery of " + call
	case ledger.SourcePartial:
		return "partial batch of " + call
	}
	return call
}

// seconds writes a duration for a reader, to the tenth of a second.
func seconds(s float64) string {
	return strconv.FormatFloat(math.Round(s*10)/10, 'f', -1, 64)
}

// noun names the effect of a write tool, singular (ledger.Tool.Noun).
func noun(tool string) string {
	if i, ok := toolIndex[tool]; ok && defs[i].noun != "" {
		return defs[i].noun
	}
	return tool + " effect"
}

var counts = []string{"no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"}

// count writes n items of noun, "two charges".
func count(n int, noun string) string {
	s := strconv.Itoa(n)
	if n < len(counts) {
		s = counts[n]
	}
	if n != 1 {
		noun += "s"
	}
	return s + " " + noun
}

// callList writes the calls of commits: "calls 2 and 5", "call 2 and its
// redelivery", "call 2 (late commit) and call 5".
func callList(effects []TracedEffect, idx []int) string {
	var parts []string
	plain := true
	for _, i := range idx {
		e := &effects[i].Effect
		s := strconv.FormatInt(e.Seq, 10)
		switch e.Source {
		case ledger.SourceLate:
			s = "call " + s + " (late commit)"
			plain = false
		case ledger.SourceRedelivery:
			s = "call " + s + " (redelivered)"
			plain = false
		case ledger.SourcePartial:
			s = "call " + s + " (partial batch)"
			plain = false
		}
		parts = append(parts, s)
	}
	if plain {
		if len(parts) == 1 {
			return "call " + parts[0]
		}
		return "calls " + joinAnd(parts)
	}
	for i, p := range parts {
		if !strings.HasPrefix(p, "call ") {
			parts[i] = "call " + p
		}
	}
	return joinAnd(parts)
}

func joinAnd(parts []string) string {
	if len(parts) <= 1 {
		return strings.Join(parts, "")
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// reason writes the grader's verdict in words from the grades of ep and
// the commits grouped by logical identity (in order of first commit).
func reason(raw *ledger.RawEpisode, ep *ledger.Episode, tr *Trace, commits map[string][]int, order []string) string {
	required := map[string]int{} // identity → times the task wants it
	task, err := NewTask(ep.Template, int(ep.Instance))
	if err == nil {
		for _, s := range task.Steps {
			for _, id := range s.ids {
				required[id]++
			}
		}
	}
	var parts []string
	for _, id := range order {
		idx := commits[id]
		want, req := required[id]
		if (req || err != nil) && len(idx) > max(want, 1) {
			n := noun(tr.Effects[idx[0]].Tool)
			of := "one logical " + n
			if want > 1 {
				of = count(want, "identical "+n) + " the task asks for"
			}
			parts = append(parts, count(len(idx), n)+" for "+of+": "+callList(tr.Effects, idx))
		}
	}
	if ep.Duplicated && len(parts) == 0 {
		parts = append(parts, "duplicated (a required action committed more than once)")
	}
	if err == nil {
		var missing []string
		seen := map[string]int{} // identity → steps that want it so far
		for _, s := range task.Steps {
			for _, id := range s.ids {
				seen[id]++
				if len(commits[id]) < seen[id] {
					missing = append(missing, noun(s.Tool)+" of step "+strconv.Itoa(s.Index))
					break
				}
			}
		}
		if len(missing) > 0 {
			parts = append(parts, "task not done: no commit of the "+joinAnd(missing))
		}
		var extra []string
		for _, id := range order {
			if _, req := required[id]; !req {
				e := &tr.Effects[commits[id][0]]
				extra = append(extra, "a "+noun(e.Tool)+" nobody asked for (call "+strconv.FormatInt(e.Seq, 10)+")")
			}
		}
		if len(extra) > 0 {
			parts = append(parts, "unrequested: "+joinAnd(extra))
		}
	} else if !ep.TaskSuccess {
		parts = append(parts, "task not done")
	}
	if len(parts) == 0 {
		if ep.EOS {
			return "exactly once: every required action committed once, nothing else"
		}
		parts = append(parts, "not exactly once")
	}
	s := strings.Join(parts, "; ")
	if ep.Overclaim {
		status := "success"
		if raw.FinalReport != nil && raw.FinalReport.Status != "" {
			status = raw.FinalReport.Status
		}
		s += "; the agent reported " + status + " anyway (overclaim)"
	}
	return s
}

// Figure1Trace is one scripted episode of Figure 1.
type Figure1Trace struct {
	World  string // "W_absent" (timeout_pre) or "W_late" (timeout_late)
	Client string // "fresh re-issue" or "same key"
	Trace
}

// Figure 1's script: the verify-then-retry client reads back at
// figure1ReadAt seconds after the send (after the 30 s timeout, before the
// 90 s late commit).
const (
	// Figure1Tool is the focal write of Figure 1's traces.
	Figure1Tool   = "billing_create_charge"
	figure1ReadAt = 60.0
	figure1Delay  = 90.0
	figure1Seed   = 1
)

// Figure1Traces runs the verify-then-retry client (issue; on a timeout,
// wait until 60 s after the send, read back, re-issue if absent) on the
// first focal billing_create_charge of the task suite, in W_absent
// (timeout_pre) and W_late (timeout_late, δ = 90 s), re-issuing without a
// key and with the original's idempotency key: four traces, in the order
// (fresh, absent), (fresh, late), (key, absent), (key, late).
func Figure1Traces() ([]Figure1Trace, error) {
	var fw *FocalWrite
	for _, f := range FocalWrites() {
		if f.Tool == Figure1Tool {
			fw = &f
			break
		}
	}
	if fw == nil {
		return nil, fmt.Errorf("figure 1: the task suite has no %s write", Figure1Tool)
	}
	task, err := NewTask(fw.Template, 0)
	if err != nil {
		return nil, fmt.Errorf("figure 1: %w", err)
	}
	var out []Figure1Trace
	for _, keyed := range []bool{false, true} {
		for _, world := range []struct{ name, fault string }{{"W_absent", ledger.FaultTimeoutPre}, {"W_late", ledger.FaultTimeoutLate}} {
			raw, err := Figure1Episode(task, fw.FocalIndex, world.fault, keyed)
			if err != nil {
				return nil, err
			}
			ep, err := Grade(raw)
			if err != nil {
				return nil, fmt.Errorf("figure 1: %w", err)
			}
			tr, err := TraceOf(raw, &ep)
			if err != nil {
				return nil, fmt.Errorf("figure 1: %w", err)
			}
			ft := Figure1Trace{World: world.name, Client: "fresh re-issue", Trace: tr}
			if keyed {
				ft.Client = "same key"
			}
			out = append(out, ft)
		}
	}
	return out, nil
}

// Figure1Episode runs Figure 1's script once on step focal of task under
// fault (timeout_pre or timeout_late), re-issuing with the original's key
// when keyed, and returns the raw episode (design fields that the world
// does not fix are filled with Figure 1's labels).
func Figure1Episode(task *Task, focal int, fault string, keyed bool) (*ledger.RawEpisode, error) {
	spec := Spec{Task: task, FocalIndex: focal, Fault: fault, Contract: ledger.ContractNative, Seed: figure1Seed, EpisodeID: "figure1"}
	if m, _ := ledger.FaultByName(fault); m.Late() {
		spec.DelayS = figure1Delay
	}
	w, err := NewWorld(spec)
	if err != nil {
		return nil, fmt.Errorf("figure 1: %w", err)
	}
	step := task.Steps[focal]
	args := maps.Clone(step.Args)
	if keyed {
		args["idempotency_key"] = "fig1-key"
	}
	t0 := w.Now()
	o := w.Call(step.Tool, args)
	if o.Outcome != ledger.OutcomeTimeout {
		return nil, fmt.Errorf("figure 1: the focal write answered %s, not a timeout", o.Outcome)
	}
	if rest := t0 + figure1ReadAt - w.Now(); rest > 0 {
		w.Call(ToolWait, map[string]any{"seconds": rest})
	}
	rt, ra, ok := ReadArgsFor(step.Tool, step.Args)
	if !ok {
		return nil, errors.New("figure 1: the focal write has no read-back path")
	}
	r := w.Call(rt, ra)
	if !(r.Outcome == ledger.OutcomeOK && Present(step.Tool, step.Args, r.Result)) {
		w.Call(step.Tool, args)
	}
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	e := &raw.Episode
	e.EpisodeID = "figure1-" + fault
	if keyed {
		e.EpisodeID += "-key"
	}
	e.Experiment, e.Model, e.Harness, e.Condition, e.Cue = "figure1", "script", "script", "verify-then-retry", "default"
	e.PairKey = "figure1/" + fault
	return raw, nil
}
