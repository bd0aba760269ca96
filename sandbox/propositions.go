package sandbox

import (
	"fmt"
	"strconv"

	"github.com/limbo-toolkit/limbo/ledger"
)

// The paper's two propositions as executable checks on the real sandbox
// (docs/simulation.md, Mechanical identities and the propositions). `limbo-analyze prove` renders their results.

// DefaultReadBackGrid is the grid of read-back times T (seconds after the
// original send) for the verification-only policies of Proposition 1.
var DefaultReadBackGrid = []float64{30, 60, 120, 300, 600, 1800, 3600, 7200}

// DefaultTailDelays are the in-flight delays δ of the heavy-tail worlds of
// Proposition 2: the support's ends and two inner points (docs/simulation.md, Heavy-tailed delay).
var DefaultTailDelays = []float64{40, 300, 3600, 7200}

// FocalWrite names one focal write of the instance-0 suite.
type FocalWrite struct {
	Template   string
	Task       string
	FocalIndex int
	Tool       string
	Platform   string
	Class      string // under the native contract
	ReadPath   string
}

// FocalWrites returns every step of instance 0 of every template: the 34
// focal writes of E1 (docs/simulation.md, Task suite).
func FocalWrites() []FocalWrite {
	var out []FocalWrite
	for _, tpl := range Templates() {
		task, err := NewTask(tpl, 0)
		if err != nil {
			continue
		}
		for _, s := range task.Steps {
			out = append(out, FocalWrite{Template: tpl, Task: task.ID, FocalIndex: s.Index, Tool: s.Tool, Platform: s.Platform, Class: s.Class, ReadPath: s.ReadPath})
		}
	}
	return out
}

// Prop1Row is Proposition 1 for one focal write over the policy grid.
type Prop1Row struct {
	FocalWrite
	Natural        bool // naturally idempotent or conditional: a re-issue cannot duplicate
	Policies       int  // policies run (one per T)
	Identical      int  // policies whose W_absent and W_late traces agree until the late commit
	ReissuedAbsent int  // policies that re-issue in W_absent (needed for task success)
	DupLate        int  // policies that duplicate in W_late
	OK             bool
}

// Prop1Result is the Proposition 1 check.
type Prop1Result struct {
	Grid     []float64
	Rows     []Prop1Row
	Pass     bool
	Failures []string
}

// CheckProposition1 runs, for every focal write and every read-back time T
// of grid, the verification-only policy "issue (no key); on a timeout wait
// until T after the send, read back through the documented read path
// ; re-issue if absent" in W_absent
// (timeout_pre) and in W_late (a late commit with δ = T + lag + 60 s). It
// checks that the agent-visible traces are identical until t₀+δ, that the
// policy re-issues in W_absent, and that it then duplicates in W_late unless
// the write is naturally idempotent.
func CheckProposition1(grid []float64) Prop1Result {
	res := Prop1Result{Grid: grid, Pass: true}
	for _, fw := range FocalWrites() {
		task, _ := NewTask(fw.Template, 0)
		step := task.Steps[fw.FocalIndex]
		d := &defs[step.tool]
		row := Prop1Row{FocalWrite: fw, Natural: d.natural}
		for _, T := range grid {
			row.Policies++
			lag := d.documentedLag(step.Platform)
			delta := T + lag + 60
			absent, reA, _ := runVerifyPolicy(task, fw.FocalIndex, ledger.FaultTimeoutPre, 0, T)
			late, _, dupL := runVerifyPolicy(task, fw.FocalIndex, ledger.FaultTimeoutLateTail, delta, T)
			if sameTrace(absent, late, delta) {
				row.Identical++
			} else {
				res.Failures = append(res.Failures, fmt.Sprintf("%s step %d T=%g: traces differ before the late commit", fw.Task, fw.FocalIndex, T))
			}
			if reA {
				row.ReissuedAbsent++
			}
			if dupL {
				row.DupLate++
			}
		}
		row.OK = row.Identical == row.Policies && row.ReissuedAbsent == row.Policies
		if row.Natural {
			row.OK = row.OK && row.DupLate == 0
		} else {
			row.OK = row.OK && row.DupLate == row.Policies
		}
		if !row.OK {
			res.Pass = false
			res.Failures = append(res.Failures, fmt.Sprintf("%s step %d (%s): identical %d/%d, re-issued %d/%d, duplicated %d/%d",
				fw.Task, fw.FocalIndex, fw.Tool, row.Identical, row.Policies, row.ReissuedAbsent, row.Policies, row.DupLate, row.Policies))
		}
		res.Rows = append(res.Rows, row)
	}
	if len(res.Rows) == 0 {
		res.Pass = false
	}
	return res
}

type traceItem struct {
	t   float64
	obs string
}

// traced returns a caller of w that appends what the agent sees of each
// call, at the call's start time, to *trace.
func traced(w *World, trace *[]traceItem) func(tool string, args map[string]any) Observation {
	return func(tool string, args map[string]any) Observation {
		at := w.Now()
		o := w.Call(tool, args)
		*trace = append(*trace, traceItem{at, obsString(tool, args, o)})
		return o
	}
}

// runVerifyPolicy runs the verification-only policy with read-back time T
// on the focal write alone. It returns the agent-visible trace, whether it
// re-issued, and whether the drained ledger holds a duplicate of the write.
func runVerifyPolicy(task *Task, focal int, fault string, delay, T float64) ([]traceItem, bool, bool) {
	w, err := NewWorld(Spec{Task: task, FocalIndex: focal, Fault: fault, DelayS: delay, Contract: ledger.ContractNative, Seed: 1})
	if err != nil {
		return nil, false, false
	}
	step := task.Steps[focal]
	var trace []traceItem
	call := traced(w, &trace)
	t0 := w.Now()
	o := call(step.Tool, step.Args)
	reissued := false
	if o.Outcome != ledger.OutcomeOK {
		if rest := t0 + T - w.Now(); rest > 0 {
			call(ToolWait, map[string]any{"seconds": rest})
		}
		present := false
		if rt, ra, ok := ReadArgsFor(step.Tool, step.Args); ok {
			r := call(rt, ra)
			present = r.Outcome == ledger.OutcomeOK && Present(step.Tool, step.Args, r.Result)
		}
		if !present {
			call(step.Tool, step.Args)
			reissued = true
		}
	}
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	return trace, reissued, focalCommits(w, raw, step) > 1
}

// focalCommits returns the largest number of non-absorbed commits of any
// logical identity of the step (each row of a batch counts separately).
func focalCommits(w *World, raw *ledger.RawEpisode, step Step) int {
	maxN := 0
	for _, id := range step.ids {
		n := 0
		for i, e := range raw.Effects {
			if !e.Absorbed && w.effIDs[i] == id {
				n++
			}
		}
		maxN = max(maxN, n)
	}
	return maxN
}

// minFocalCommits is the smallest commit count over the step's identities.
func minFocalCommits(w *World, raw *ledger.RawEpisode, step Step) int {
	minN := -1
	for _, id := range step.ids {
		n := 0
		for i, e := range raw.Effects {
			if !e.Absorbed && w.effIDs[i] == id {
				n++
			}
		}
		if minN < 0 || n < minN {
			minN = n
		}
	}
	return max(minN, 0)
}

func obsString(tool string, args map[string]any, o Observation) string {
	b := appendCanon(nil, args, "")
	b = append(b, ' ')
	b = append(b, o.Outcome...)
	b = append(b, ' ')
	b = appendCanon(b, o.Result, "")
	b = append(b, ' ')
	b = append(b, o.Error...)
	b = append(b, ' ')
	b = strconv.AppendFloat(b, o.LatencyS, 'g', -1, 64)
	b = strconv.AppendFloat(b, o.RetryAfterS, 'g', -1, 64)
	return tool + " " + string(b)
}

// sameTrace reports whether two traces agree on every observation made
// before time until, and make the same number of them.
func sameTrace(a, b []traceItem, until float64) bool {
	var na, nb int
	for _, x := range a {
		if x.t < until {
			na++
		}
	}
	for _, x := range b {
		if x.t < until {
			nb++
		}
	}
	if na != nb {
		return false
	}
	for i := 0; i < na; i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Prop2World is one world of Proposition 2.
type Prop2World struct {
	Name   string
	Fault  string
	DelayS float64
}

// Prop2Worlds returns the worlds of Proposition 2: absent, post, late,
// tail at each delay, redelivery, and (for the batch write) partial.
func Prop2Worlds(tailDelays []float64) []Prop2World {
	ws := []Prop2World{
		{"absent", ledger.FaultTimeoutPre, 0},
		{"post", ledger.FaultTimeoutPost, 0},
		{"late", ledger.FaultTimeoutLate, ledger.DefaultLateDelayS},
	}
	for _, d := range tailDelays {
		ws = append(ws, Prop2World{"tail " + strconv.FormatFloat(d, 'f', -1, 64) + "s", ledger.FaultTimeoutLateTail, d})
	}
	return append(ws, Prop2World{"redelivery", ledger.FaultRedelivery, 0}, Prop2World{"partial", ledger.FaultPartialBatch, 0})
}

// NotApplicable marks a Prop2Row cell whose world does not apply to the
// write (partial_batch on anything but data_insert_many); Uneven marks a
// batch whose rows committed unequally often.
const (
	NotApplicable = -2
	Uneven        = -1
)

// Prop2Row is Proposition 2 for one focal write under one contract:
// the number of commits of the write in each world.
type Prop2Row struct {
	FocalWrite
	Contract string
	Commits  []int // per world, in Prop2Result.Worlds order; NotApplicable or Uneven otherwise
	OK       bool
}

// Prop2Result is the Proposition 2 check.
type Prop2Result struct {
	Worlds   []Prop2World
	Rows     []Prop2Row
	Pass     bool
	Failures []string
}

// CheckProposition2 runs, for every focal write whose key the contract
// honours (all of them under keys-everywhere; the natively keyed ones under
// native), the policy "issue with key k; after any failure wait 30 s and
// re-issue with the same k until it succeeds" in every world of
// Prop2Worlds, drains the ledger and checks that the write committed exactly
// once.
func CheckProposition2(tailDelays []float64) Prop2Result {
	res := Prop2Result{Worlds: Prop2Worlds(tailDelays), Pass: true}
	for _, contract := range ledger.Contracts.Values {
		for _, fw := range FocalWrites() {
			task, _ := NewTask(fw.Template, 0)
			step := task.Steps[fw.FocalIndex]
			if !defs[step.tool].keyHonoured(contract, step.Platform) {
				continue
			}
			row := Prop2Row{FocalWrite: fw, Contract: contract, OK: true}
			for _, world := range res.Worlds {
				if m, _ := ledger.FaultByName(world.Fault); m.Batch && !defs[step.tool].batch {
					row.Commits = append(row.Commits, NotApplicable)
					continue
				}
				lo, hi := runKeyPolicy(task, fw.FocalIndex, contract, world)
				n := hi
				if lo != hi {
					n = Uneven
				}
				row.Commits = append(row.Commits, n)
				if lo != 1 || hi != 1 {
					row.OK = false
					res.Failures = append(res.Failures, fmt.Sprintf("%s step %d (%s, %s) in %s: %d–%d commits",
						fw.Task, fw.FocalIndex, fw.Tool, contract, world.Name, lo, hi))
				}
			}
			if !row.OK {
				res.Pass = false
			}
			res.Rows = append(res.Rows, row)
		}
	}
	if len(res.Rows) == 0 {
		res.Pass = false
	}
	return res
}

func runKeyPolicy(task *Task, focal int, contract string, world Prop2World) (lo, hi int) {
	w, err := NewWorld(Spec{Task: task, FocalIndex: focal, Fault: world.Fault, DelayS: world.DelayS, Contract: contract, Seed: 1})
	if err != nil {
		return -1, -1
	}
	step := task.Steps[focal]
	args := make(map[string]any, len(step.Args)+1)
	for k, v := range step.Args {
		args[k] = v
	}
	args["idempotency_key"] = "prop2-" + task.ID + "-" + strconv.Itoa(focal)
	for range 1000 {
		o := w.Call(step.Tool, args)
		if o.Outcome == ledger.OutcomeOK {
			break
		}
		w.Call(ToolWait, map[string]any{"seconds": 30.0})
	}
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	return minFocalCommits(w, raw, step), focalCommits(w, raw, step)
}
