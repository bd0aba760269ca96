package ledger

import (
	"encoding/json"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Validate checks one episode row on its own: enumerations (the registry in
// enums.go), ranges (weight finite and > 0, counts ≥ 0, times finite and
// ≥ 0), non-empty identifiers (every design string except platform), valid
// UTF-8, and eos ⇒ task_success ∧ ¬duplicated are errors; what is merely
// implausible for the paper's sandbox (docs/ledger.md, Validation) is a warning. The
// problems carry no file or line. Cross-row checks (unique episode_id,
// references) are the readers' (ReadEpisodes).
func Validate(e *Episode) []Problem {
	var ps []Problem
	validateEpisode(e, allCols, func(p Problem) { ps = append(ps, p) })
	return ps
}

// ValidateRaw checks a raw episode's design fields, calls, effects and
// final report; outcome fields are the grader's and are not checked.
// Calls and effects without an episode_id inherit the episode's.
//
// A line that carries its grading rules (a proxied episode's) names its
// own tools, harness and conditions: the warnings that a value is not the
// paper's sandbox's are not given for it.
func ValidateRaw(r *RawEpisode) []Problem {
	var ps []Problem
	add := func(p Problem) { ps = append(ps, p) }
	if r.Rules != nil {
		add = func(p Problem) {
			if !(p.Warning && paperColumns[p.Field]) {
				ps = append(ps, p)
			}
		}
	}
	validateEpisode(&r.Episode, designCols, add)
	validateNested(r, add)
	return ps
}

// paperColumns are the free-text design columns whose values are checked
// against the paper's (checkString).
var paperColumns = map[string]bool{"focal_write": true, "harness": true, "condition": true, "experiment": true}

// enumOf maps a column index to the enumeration constraining it (nil
// Values for free-text columns).
var enumOf = make([]Enum, len(EpisodeColumns))

// maskFor memoises the column sets the cross-field checks need.
func maskFor(names ...string) colMask {
	m := maskOf(names)
	if len(names) != popcount(m) {
		panic("ledger: unknown column in " + strings.Join(names, ","))
	}
	return m
}

func popcount(m colMask) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

var mEOS, mPlatform, mDelay, mBatch, mReplay colMask

func init() {
	for _, en := range []Enum{FaultModes, Contracts, Recoveries, FirstMoves, WriteClasses, ReadPaths, Cues, AgentFaultNames, CrashWindows, GuardNames} {
		if i, ok := colIndex[en.Field]; ok {
			enumOf[i] = en
		}
	}
	mEOS = maskFor("eos", "task_success", "duplicated")
	mPlatform = maskFor("service", "platform")
	mDelay = maskFor("fault_mode", "fault_fired", "delay_s")
	mBatch = maskFor("fault_mode", "focal_write")
	mReplay = maskFor("agent_fault", "crash_window", "guard")
}

func enumMsg(en Enum, v string) string {
	return "unknown value " + strconv.Quote(v) + " (want one of " + strings.Join(en.Values, ", ") + ")"
}

// validateEpisode checks the columns in m.
func validateEpisode(e *Episode, m colMask, add func(Problem)) {
	var c *checker // no cache for a single row
	c.episode(e, m, add)
}

// checker validates rows one after another. It remembers, per string
// column, the last value that passed, so that the repeated values of a
// ledger (models, conditions, fault modes) are checked once rather than
// once per row.
type checker struct {
	// ok is a small direct-mapped cache per column of values that passed;
	// a slot is valid when its bit in okSet is set.
	ok    [64][16]string
	okSet [64]uint16
	// more holds, per column, up to maxPassed values that passed, for
	// those that collide in ok (an enumeration of a dozen values does).
	more [64]map[string]bool
}

const maxPassed = 1024

// slot picks v's cache slot from its length and end bytes.
func slot[S string | []byte](v S) int {
	if len(v) == 0 {
		return 0
	}
	return (len(v)*31 + int(v[0]) + 7*int(v[len(v)-1])) & 15
}

// episode checks the columns in m of e. A nil checker checks without a
// cache.
func (ck *checker) episode(e *Episode, m colMask, add func(Problem)) {
	errf := func(field, msg string) { add(Problem{Field: field, Msg: msg}) }
	warnf := func(field, msg string) { add(Problem{Field: field, Msg: msg, Warning: true}) }
	for rest := m; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(uint64(rest))
		c := &EpisodeColumns[i]
		r := e.ref(i)
		switch c.Kind {
		case KindString:
			v := *r.s
			if ck == nil {
				checkString(i, v, add)
				continue
			}
			k := slot(v)
			if ck.okSet[i]&(1<<k) != 0 && v == ck.ok[i][k] {
				continue
			}
			passed := ck.more[i][v]
			if !passed && checkString(i, v, add) {
				passed = true
				if ck.more[i] == nil {
					ck.more[i] = map[string]bool{}
				}
				if len(ck.more[i]) < maxPassed {
					v = strings.Clone(v) // v may share a whole CSV record
					ck.more[i][v] = true
				}
			}
			if passed {
				ck.ok[i][k] = v
				ck.okSet[i] |= 1 << k
			}
		case KindInt:
			if c.Name != "seed" && *r.i < 0 {
				errf(c.Name, "negative ("+strconv.FormatInt(*r.i, 10)+"); must be ≥ 0")
			}
		case KindFloat:
			var v float64
			if r.opt != nil {
				if *r.opt == nil {
					continue
				}
				v = **r.opt
			} else {
				v = *r.f
			}
			switch {
			case math.IsNaN(v) || math.IsInf(v, 0):
				errf(c.Name, notFinite(v))
			case c.Name == "weight" && v <= 0:
				errf(c.Name, "must be > 0, is "+fmtFloat(v))
			case v < 0:
				errf(c.Name, "negative ("+fmtFloat(v)+"); must be ≥ 0")
			}
		}
	}
	has := func(want colMask) bool { return m&want == want }
	if has(mEOS) && e.EOS {
		if !e.TaskSuccess {
			errf("eos", "true but task_success is false (eos requires task success)")
		}
		if e.Duplicated {
			errf("eos", "true but duplicated is true (eos requires no duplicate)")
		}
	}

	// Plausibility for the paper's sandbox: warnings only.
	if has(mPlatform) {
		if platformed(e.Service) && e.Platform == "" {
			warnf("platform", "empty on a "+e.Service+" write")
		} else if !platformed(e.Service) && e.Platform != "" {
			warnf("platform", "set ("+strconv.Quote(e.Platform)+") on a "+strconv.Quote(e.Service)+" write; platform is for "+platformServices+" writes")
		}
	}
	if has(mDelay) {
		late := slices.Contains(LateModes, e.FaultMode)
		if late && e.FaultFired && e.DelayS == 0 {
			warnf("delay_s", "0 for late mode "+e.FaultMode+" that fired")
		} else if !late && e.DelayS > 0 && !math.IsInf(e.DelayS, 0) {
			// An infinite delay (1e400 in a CSV) is already an error.
			warnf("delay_s", fmtFloat(e.DelayS)+" for non-late mode "+e.FaultMode)
		}
	}
	// fault_fired means the focal write was issued, so the assigned mode
	// was applied to it; that holds for none as for every other mode, so
	// fault_fired with none is not a warning (docs/ledger.md).
	//
	// A batch-only mode (partial_batch) is injected on a batch tool. The
	// write class does not tell it: under keys-everywhere that tool is
	// classed keyed (E2k). A focal write outside the paper's catalogue is
	// already warned about by checkString, so it is not flagged again.
	// The agent-side columns go together: a guard with an agent fault, a
	// crash window with crash_resume and only with it.
	if has(mReplay) && (e.AgentFault != "" || e.Guard != "" || e.CrashWindow != "") {
		switch {
		case (e.AgentFault == "") != (e.Guard == ""):
			warnf("guard", "agent_fault "+strconv.Quote(e.AgentFault)+" with guard "+strconv.Quote(e.Guard)+"; the agent-side design sets both")
		case (e.AgentFault == AgentFaultCrashResume) != (e.CrashWindow != ""):
			warnf("crash_window", strconv.Quote(e.CrashWindow)+" with agent_fault "+strconv.Quote(e.AgentFault)+"; a crash window goes with crash_resume, and only with it")
		}
	}
	if has(mBatch) && offBatch(e.FaultMode, e.FocalWrite) {
		warnf("fault_mode", e.FaultMode+" on focal write "+strconv.Quote(e.FocalWrite)+" (the paper's sandbox injects it on "+batchTools+" only)")
	}
}

// platformed reports whether writes of the service carry a platform.
func platformed(name string) bool {
	s := service(name)
	return s != nil && len(s.Platforms) > 0
}

// offBatch reports a batch-only mode on a focal write of the paper's
// catalogue that is not a batch write.
func offBatch(mode, focalWrite string) bool {
	if !slices.Contains(batchModes, mode) {
		return false
	}
	t := tool(focalWrite)
	return t != nil && t.Write() && !t.Batch
}

// The catalogue's names as the plausibility checks use them.
var (
	batchModes       = FaultNames(func(m FaultMode) bool { return m.Batch })
	batchTools       = strings.Join(toolNames(func(t Tool) bool { return t.Batch }), ", ")
	platformServices = strings.Join(func() (out []string) {
		for _, s := range services {
			if len(s.Platforms) > 0 {
				out = append(out, s.Name)
			}
		}
		return out
	}(), ", ")
)

// checkString checks the value v of string column i on its own (type,
// enumeration, emptiness, and the single-column plausibility warnings);
// it reports whether v raised nothing.
func checkString(i int, v string, add func(Problem)) bool {
	name := EpisodeColumns[i].Name
	errf := func(field, msg string) { add(Problem{Field: field, Msg: msg}) }
	warnf := func(field, msg string) { add(Problem{Field: field, Msg: msg, Warning: true}) }
	if !utf8.ValidString(v) {
		errf(name, "invalid UTF-8")
		return false
	}
	if r, ok := controlIn(v); ok {
		errf(name, controlMsg(r))
		return false
	}
	if v == "" && sparseCols.has(i) {
		return true // absent: the ledger lacks the column's group, or the row has no value
	}
	if en := enumOf[i]; en.Values != nil {
		if v == "" && EpisodeColumns[i].Optional {
			return true // an optional column left empty: absent
		}
		if !en.Has(v) {
			errf(name, enumMsg(en, v))
			return false
		}
		return true
	}
	if v == "" {
		if name == "platform" {
			return true
		}
		errf(name, "empty (every design string except platform is required)")
		return false
	}
	var paper []string
	var what string
	switch i {
	case colFocalWrite:
		paper, what = PaperWriteTools, "a write in the paper's catalogue"
	case colHarness:
		paper, what = PaperHarnesses, "one of the paper's harnesses"
	case colCondition:
		paper, what = PaperConditions, "one of the paper's conditions"
	case colExperiment:
		paper, what = PaperExperiments, "one of the paper's experiments"
	default:
		return true
	}
	if !slices.Contains(paper, v) && !(i == colHarness && slices.Contains(ToolkitHarnesses, v)) && !(i == colExperiment && slices.Contains(ReplayExperiments, v)) {
		warnf(name, strconv.Quote(v)+" is not "+what)
		return false
	}
	return true
}

// validateNested checks a raw episode's calls, effects and final report.
// Field names ("calls[2].outcome") are built only for problems: this runs
// for every nested object of every raw line.
func validateNested(r *RawEpisode, add func(Problem)) {
	var kind string
	var idx int
	name := func(f string) string { return kind + "[" + strconv.Itoa(idx) + "]." + f }
	errf := func(f, msg string) { add(Problem{Field: name(f), Msg: msg}) }
	warnf := func(f, msg string) { add(Problem{Field: name(f), Msg: msg, Warning: true}) }
	nonNeg := func(f string, v float64) {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			errf(f, notFinite(v))
		} else if v < 0 {
			errf(f, "negative ("+fmtFloat(v)+"); must be ≥ 0")
		}
	}
	// str checks text; a required one is a label: not empty, printable.
	str := func(f, v string, required bool) {
		if !utf8.ValidString(v) {
			errf(f, "invalid UTF-8")
		} else if required && v == "" {
			errf(f, "empty")
		} else if r, ok := controlIn(v); ok && required {
			errf(f, controlMsg(r))
		}
	}
	// own gives a nested row without an episode_id the episode's and
	// reports one that differs; ok is false for a negative seq.
	own := func(id *string, seq int64) (ok bool) {
		if *id == "" {
			*id = r.EpisodeID
		} else if *id != r.EpisodeID {
			errf("episode_id", strconv.Quote(*id)+" differs from the episode's "+strconv.Quote(r.EpisodeID))
		}
		if seq < 0 {
			errf("seq", "negative")
		}
		return seq >= 0
	}
	hasSeq := func(seq int64) bool {
		for i := range r.Calls {
			if r.Calls[i].Seq == seq {
				return true
			}
		}
		return false
	}
	last := int64(-1)
	kind = "calls"
	for i := range r.Calls {
		idx = i
		c := &r.Calls[i]
		if own(&c.EpisodeID, c.Seq) && c.Seq <= last {
			warnf("seq", "not increasing ("+strconv.FormatInt(c.Seq, 10)+" after "+strconv.FormatInt(last, 10)+")")
		}
		last = max(last, c.Seq)
		nonNeg("t_s", c.TS)
		nonNeg("latency_s", c.LatencyS)
		str("tool", c.Tool, true)
		str("idempotency_key", c.IdempotencyKey, false)
		str("args", c.Args, false)
		if !Outcomes.Has(c.Outcome) {
			errf("outcome", enumMsg(Outcomes, c.Outcome))
		}
		if r.Rules == nil && c.Tool != "" && !slices.Contains(PaperWriteTools, c.Tool) && !slices.Contains(PaperOtherTools, c.Tool) {
			warnf("tool", strconv.Quote(c.Tool)+" is not in the paper's tool catalogue")
		}
		if c.Args != "" && !json.Valid([]byte(c.Args)) {
			warnf("args", "not valid JSON text")
		}
	}
	kind = "effects"
	for i := range r.Effects {
		idx = i
		f := &r.Effects[i]
		if own(&f.EpisodeID, f.Seq) && len(r.Calls) > 0 && !hasSeq(f.Seq) {
			warnf("seq", "no call with seq "+strconv.FormatInt(f.Seq, 10))
		}
		if f.Attempt < 0 {
			errf("attempt", "negative")
		}
		str("service", f.Service, true)
		str("tool", f.Tool, true)
		str("resource_id", f.ResourceID, false)
		str("idempotency_key", f.IdempotencyKey, false)
		nonNeg("issued_at_s", f.IssuedAtS)
		nonNeg("committed_at_s", f.CommittedAtS)
		// Non-finite times are already errors; no warning on top.
		if f.CommittedAtS < f.IssuedAtS && !math.IsInf(f.IssuedAtS, 0) && !math.IsInf(f.CommittedAtS, 0) {
			warnf("committed_at_s", "before issued_at_s")
		}
		if !Sources.Has(f.Source) {
			errf("source", enumMsg(Sources, f.Source))
		}
	}
	if r.FinalReport == nil {
		add(Problem{Field: "final_report", Msg: "missing (a raw episode needs the agent's final report)"})
		return
	}
	if !Statuses.Has(r.FinalReport.Status) {
		add(Problem{Field: "final_report.status", Msg: enumMsg(Statuses, r.FinalReport.Status)})
	}
	for i, u := range r.FinalReport.Uncertainties {
		if !utf8.ValidString(u) {
			add(Problem{Field: "final_report.uncertainties[" + strconv.Itoa(i) + "]", Msg: "invalid UTF-8"})
		}
	}
}

// validateCall checks a call row read from a calls table.
func validateCall(c *Call, add func(Problem)) {
	r := RawEpisode{Episode: Episode{EpisodeID: c.EpisodeID}, Calls: []Call{*c}, FinalReport: &FinalReport{Status: StatusCompleted}}
	validateNested(&r, func(p Problem) { p.Field = strings.TrimPrefix(p.Field, "calls[0]."); add(p) })
	if c.EpisodeID == "" {
		add(Problem{Field: "episode_id", Msg: "empty"})
	}
}

// validateEffect checks an effect row read from an effects table.
func validateEffect(f *Effect, add func(Problem)) {
	r := RawEpisode{Episode: Episode{EpisodeID: f.EpisodeID}, Effects: []Effect{*f}, FinalReport: &FinalReport{Status: StatusCompleted}}
	validateNested(&r, func(p Problem) { p.Field = strings.TrimPrefix(p.Field, "effects[0]."); add(p) })
	if f.EpisodeID == "" {
		add(Problem{Field: "episode_id", Msg: "empty"})
	}
}

// notFinite describes a NaN (which is also how an empty CSV cell or a JSON
// null reads) or an infinity.
func notFinite(v float64) string {
	if math.IsNaN(v) {
		return "missing or NaN; must be a finite number"
	}
	return "infinite; must be a finite number"
}

// fmtFloat formats a float the way the ledger writes it.
func fmtFloat(v float64) string { return string(appendFloat(nil, v)) }
