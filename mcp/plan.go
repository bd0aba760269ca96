package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/internal/planjson"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// Episode is one planned episode: everything that fixes its world and the
// labels its ledger line carries. Zero values take the defaults documented
// on each field when the plan is loaded (see Normalize).
type Episode struct {
	EpisodeID      string   `json:"episode_id,omitempty"`       // default: derived from the fields below (EpisodeKey)
	Experiment     string   `json:"experiment,omitempty"`       // default "mcp"
	Model          string   `json:"model,omitempty"`            // default "unknown"
	Harness        string   `json:"harness,omitempty"`          // default "unknown"
	Template       string   `json:"template"`                   // "T01".."T12"
	Instance       int      `json:"instance"`                   // task instance
	FocalIndex     int      `json:"focal_index"`                // which step of the task is focal
	FaultMode      string   `json:"fault_mode"`                 // one of ledger.FaultModes
	Contract       string   `json:"contract,omitempty"`         // default native
	Condition      string   `json:"condition,omitempty"`        // default vanilla
	Cue            string   `json:"cue,omitempty"`              // default "default"
	Guard          bool     `json:"guard,omitempty"`            // guard middleware in the server (implied by condition "guard")
	Seed           uint64   `json:"seed"`                       // world seed
	DelayS         float64  `json:"delay_s,omitempty"`          // in-flight delay; default 90 for timeout_late, required for timeout_late_tail
	ClientTimeoutS float64  `json:"client_timeout_s,omitempty"` // default 30
	Oracles        []string `json:"oracles"`                    // default (absent or null) from the condition: state-oracle, outcome-oracle; [] for none
	Weight         float64  `json:"weight,omitempty"`           // default 1
	// Annotations lists the tools with MCP tool annotations (readOnlyHint,
	// destructiveHint, idempotentHint, openWorldHint). Harnesses use them
	// for permissions and agents may read them, so they are a factor of
	// the experiment; off by default, as in the paper.
	Annotations bool `json:"annotations,omitempty"`
}

// Defaults for planned episodes.
const (
	DefaultExperiment     = "mcp"
	DefaultLabel          = "unknown"
	DefaultCondition      = "vanilla"
	DefaultClientTimeoutS = 30
	DefaultLateDelayS     = ledger.DefaultLateDelayS // docs/simulation.md, Fault modes: timeout_late executes 90 s after send
)

// Oracle tool names (sandbox API).
const (
	OracleState   = sandbox.ToolStateOracle
	OracleOutcome = sandbox.ToolOutcomeOracle
)

// GuardOn reports whether the episode runs with the guard middleware.
func (e *Episode) GuardOn() bool { return e.Guard || e.Condition == "guard" }

// EpisodeKey is the identifier derived from the design fields, in the
// simulator's form (experiment/harness/contract/condition/cue/pair key,
// design.Episode.ID), with "+guard" after a condition that runs with the
// guard flag and the delay of a heavy-tail late commit appended: the same
// plan entry always gets the same id.
func (e *Episode) EpisodeKey() string {
	cond := e.Condition
	if e.Guard && cond != "guard" {
		cond += "+guard"
	}
	if e.Annotations {
		cond += "+annotations"
	}
	id := e.Experiment + "/" + e.Harness + "/" + e.Contract + "/" + cond + "/" + e.Cue + "/" + e.PairKey()
	if m, _ := ledger.FaultByName(e.FaultMode); m.Delay == ledger.DelayDrawn {
		id += "/d" + strconv.FormatFloat(e.DelayS, 'g', -1, 64)
	}
	return id
}

// PairKey is model/template/instance/focal_index/fault_mode (docs/ledger.md).
func (e *Episode) PairKey() string {
	return e.Model + "/" + e.Template + "/" + strconv.Itoa(e.Instance) + "/" + strconv.Itoa(e.FocalIndex) + "/" + e.FaultMode
}

// SeedFrom sets the world seed from a run seed as the simulator does
// (design.WorldSeed of the pair key), so a served episode shares its world
// with the simulated episodes of the same pair key. The labels and world
// fields must be set.
func (e *Episode) SeedFrom(run uint64) {
	e.Seed = design.WorldSeed(run, e.PairKey())
}

// Normalize fills defaults and checks the episode against the sandbox's
// catalogue. The error names the offending field.
func (e *Episode) Normalize() (*sandbox.Task, error) {
	if e.Experiment == "" {
		e.Experiment = DefaultExperiment
	}
	if e.Model == "" {
		e.Model = DefaultLabel
	}
	if e.Harness == "" {
		e.Harness = DefaultLabel
	}
	if e.Contract == "" {
		e.Contract = ledger.ContractNative
	}
	if e.Condition == "" {
		e.Condition = DefaultCondition
	}
	if e.Cue == "" {
		e.Cue = ledger.CueDefault
	}
	if e.ClientTimeoutS == 0 {
		e.ClientTimeoutS = DefaultClientTimeoutS
	}
	if e.Weight == 0 {
		e.Weight = 1
	}
	fm, known := ledger.FaultByName(e.FaultMode)
	if fm.Delay == ledger.DelayFixed && e.DelayS == 0 {
		e.DelayS = DefaultLateDelayS
	}
	if e.Oracles == nil {
		// Conditions are free text; the paper's ones fix the oracle tools.
		if c, err := agent.ParseCondition(e.Condition); err == nil {
			e.Oracles = c.Oracles()
		}
	}
	if !known {
		return nil, fieldErr("fault_mode", "unknown fault mode %q (want one of %s)", e.FaultMode, strings.Join(sandboxModes(), ", "))
	}
	if !fm.InjectedBy(ledger.SiteSandbox) {
		return nil, fieldErr("fault_mode", "fault mode %s is not injected by the sandbox", e.FaultMode)
	}
	if !ledger.Contracts.Has(e.Contract) {
		return nil, fieldErr("contract", "unknown contract %q (want %s)", e.Contract, strings.Join(ledger.Contracts.Values, " or "))
	}
	if !ledger.Cues.Has(e.Cue) {
		return nil, fieldErr("cue", "unknown cue %q (want %s)", e.Cue, strings.Join(ledger.Cues.Values, " or "))
	}
	for _, o := range e.Oracles {
		if o != OracleState && o != OracleOutcome {
			return nil, fieldErr("oracles", "unknown oracle %q (want %s or %s)", o, OracleState, OracleOutcome)
		}
	}
	if e.Instance < 0 {
		return nil, fieldErr("instance", "negative instance %d", e.Instance)
	}
	if !(e.DelayS >= 0) || e.DelayS > 1e7 {
		return nil, fieldErr("delay_s", "delay %v out of range [0, 1e7]", e.DelayS)
	}
	if fm.Delay == ledger.DelayDrawn && e.DelayS == 0 {
		return nil, fieldErr("delay_s", "%s needs a positive delay_s", e.FaultMode)
	}
	if !(e.ClientTimeoutS > 0) || e.ClientTimeoutS > 1e5 {
		return nil, fieldErr("client_timeout_s", "client timeout %v out of range (0, 1e5]", e.ClientTimeoutS)
	}
	if !(e.Weight > 0) || e.Weight > 1e12 {
		return nil, fieldErr("weight", "weight %v must be positive and finite", e.Weight)
	}
	if !slices.Contains(sandbox.Templates(), e.Template) {
		return nil, fieldErr("template", "unknown task template %q (want one of %s)", e.Template, strings.Join(sandbox.Templates(), ", "))
	}
	task, err := sandbox.NewTask(e.Template, e.Instance)
	if err != nil {
		return nil, fieldErr("instance", "%v", err)
	}
	if task == nil {
		return nil, fieldErr("template", "sandbox returned no task for %s#%d", e.Template, e.Instance)
	}
	if e.FocalIndex < 0 || e.FocalIndex >= len(task.Steps) {
		return nil, fieldErr("focal_index", "focal index %d out of range: task %s has %d writes", e.FocalIndex, task.ID, len(task.Steps))
	}
	if e.EpisodeID == "" {
		e.EpisodeID = e.EpisodeKey()
	}
	return task, nil
}

// Spec is the sandbox world of the (normalized) episode.
func (e *Episode) Spec(task *sandbox.Task) sandbox.Spec {
	return sandbox.Spec{
		Task:           task,
		FocalIndex:     e.FocalIndex,
		Fault:          e.FaultMode,
		Contract:       e.Contract,
		DelayS:         e.DelayS,
		ClientTimeoutS: e.ClientTimeoutS,
		Oracles:        slices.Clone(e.Oracles),
		Seed:           e.Seed,
		EpisodeID:      e.EpisodeID,
	}
}

// Label fills the design fields the sandbox leaves to its caller
// (sandbox.World.Finish): experiment, model, harness, condition, cue,
// pair key and weight.
func (e *Episode) Label(ep *ledger.Episode) {
	ep.Experiment = e.Experiment
	ep.Model = e.Model
	ep.Harness = e.Harness
	ep.Condition = e.Condition
	ep.Cue = e.Cue
	ep.Weight = e.Weight
	// docs/ledger.md: identical across conditions, contracts and cue arms.
	ep.PairKey = e.PairKey()
}

// fieldErr is a problem with one field of one planned episode (ParsePlan
// names it).
var fieldErr = planjson.FieldErr

// sandboxModes are the fault modes the sandbox injects (the proxy's
// transport faults are not among them).
func sandboxModes() []string {
	return ledger.FaultNames(func(m ledger.FaultMode) bool { return m.InjectedBy(ledger.SiteSandbox) })
}

// Plan is the ordered list of episodes a server or driver works through.
type Plan struct {
	Episodes []Episode `json:"episodes"`
	tasks    []*sandbox.Task
}

// Task returns the task of the i-th episode.
func (p *Plan) Task(i int) *sandbox.Task { return p.tasks[i] }

// Len is the number of planned episodes.
func (p *Plan) Len() int { return len(p.Episodes) }

// maxPlanBytes bounds a plan file: a plan is hand- or tool-written and a
// few thousand episodes at most.
const maxPlanBytes = 64 << 20

// ReadPlan reads a plan file: a JSON object {"episodes": [...]} or a bare
// JSON array of episodes. Unknown fields are errors. Errors name the file,
// the line of the offending episode and the field.
func ReadPlan(path string) (*Plan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, ledger.Problem{File: path, Msg: err.Error()}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPlanBytes+1))
	if err != nil {
		return nil, ledger.Problem{File: path, Msg: err.Error()}
	}
	if len(data) > maxPlanBytes {
		return nil, ledger.Problem{File: path, Msg: fmt.Sprintf("plan larger than %d bytes", maxPlanBytes)}
	}
	return ParsePlan(path, data)
}

// ParsePlan parses plan JSON; name is used in error messages.
func ParsePlan(name string, data []byte) (*Plan, error) {
	perr := func(off int64, field, msg string) error {
		return ledger.Problem{File: name, Line: planjson.Line(data, off), Field: field, Msg: msg}
	}
	p := &Plan{}
	var task *sandbox.Task
	err := planjson.Episodes(data, perr, func(e *Episode) (string, error) {
		var err error
		task, err = e.Normalize()
		return e.EpisodeID, err
	}, func(e Episode) {
		p.Episodes = append(p.Episodes, e)
		p.tasks = append(p.tasks, task)
	})
	if err != nil {
		return nil, err
	}
	if len(p.Episodes) == 0 {
		return nil, ledger.Problem{File: name, Msg: "plan has no episodes"}
	}
	return p, nil
}

// NewPlan normalizes episodes into a plan; the error names the episode.
func NewPlan(episodes []Episode) (*Plan, error) {
	p := &Plan{}
	seen := map[string]int{}
	for i, e := range episodes {
		task, err := e.Normalize()
		if err != nil {
			return nil, fmt.Errorf("episode %d: %w", i, err)
		}
		if j, dup := seen[e.EpisodeID]; dup {
			return nil, fmt.Errorf("episode %d: duplicate episode id %q (also episode %d)", i, e.EpisodeID, j)
		}
		seen[e.EpisodeID] = i
		p.Episodes = append(p.Episodes, e)
		p.tasks = append(p.tasks, task)
	}
	if len(p.Episodes) == 0 {
		return nil, errors.New("plan has no episodes")
	}
	return p, nil
}

// Marshal renders the plan as indented JSON, one episode per line, in the
// format ReadPlan reads.
func (p *Plan) Marshal() ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("{\"episodes\": [\n")
	for i := range p.Episodes {
		line, err := json.Marshal(&p.Episodes[i])
		if err != nil {
			return nil, err
		}
		b.WriteString("  ")
		b.Write(line)
		if i < len(p.Episodes)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("]}\n")
	return b.Bytes(), nil
}

// WithAnnotations returns a copy of the plan with tool annotations on in
// every episode; ids derived from the design fields are derived again
// (they mark the arm), ids given in the plan are kept.
func WithAnnotations(p *Plan) (*Plan, error) {
	eps := slices.Clone(p.Episodes)
	for i := range eps {
		if !eps[i].Annotations && eps[i].EpisodeID == eps[i].EpisodeKey() {
			eps[i].EpisodeID = ""
		}
		eps[i].Annotations = true
	}
	return NewPlan(eps)
}

// DefaultPlan is the built-in plan: the E2 instance-0 episodes of the
// paper's design (design.Paper: 6 modes on every focal write plus
// partial_batch on the batch write, and the no-fault episodes when the
// design has them), native contract, vanilla, cue default, in design order,
// for one model. The labels replace the simulated model and harness; each
// world's seed is design.WorldSeed(seed, pair key), as the simulator's.
func DefaultPlan(seed uint64, model, harness string) (*Plan, error) {
	m := design.Paper()
	dp, err := design.Compile(m)
	if err != nil {
		return nil, fmt.Errorf("default plan: %w", err)
	}
	var eps []Episode
	first := ""
	for i := range dp.Len() {
		de := dp.Episode(i)
		if de.Experiment != "E2" || de.Contract != ledger.ContractNative || de.Condition != DefaultCondition || de.Cue != ledger.CueDefault {
			continue
		}
		if first == "" {
			first = de.Model
		}
		if de.Model != first {
			continue
		}
		w := de.World
		ep := Episode{
			Experiment: "E2", Model: model, Harness: harness,
			Template: w.Task.Template, Instance: w.Task.Instance, FocalIndex: w.FocalIndex, FaultMode: w.Mode,
			Contract: de.Contract, Condition: de.Condition, Cue: de.Cue,
			DelayS: w.DelayS, ClientTimeoutS: m.ClientTimeoutS,
		}
		ep.SeedFrom(seed)
		eps = append(eps, ep)
	}
	return NewPlan(eps)
}
