package design

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/limbo-toolkit/limbo/internal/readlimit"
	"github.com/limbo-toolkit/limbo/ledger"
)

//go:embed paper.json
var paperJSON []byte

//go:embed replay.json
var replayJSON []byte

// PaperJSON returns the embedded manifest of the paper's design (R5), for
// users who want to start their own from it.
func PaperJSON() []byte { return slices.Clone(paperJSON) }

// ReplayJSON returns the embedded manifest of the agent-side design
// (docs/simulation.md, Agent-side faults).
func ReplayJSON() []byte { return slices.Clone(replayJSON) }

// Builtin names the built-in designs, each a manifest embedded in the
// binary that Load and LoadSimulator take by name.
var Builtin = []string{"paper", "replay"}

// Manifest is an experiment grid. Its JSON form is the file users edit.
type Manifest struct {
	Name           string          `json:"name"`
	Doc            string          `json:"doc,omitempty"`
	FixedDelayS    float64         `json:"fixed_delay_s"`    // in-flight delay of timeout_late (paper: 90 s)
	ClientTimeoutS float64         `json:"client_timeout_s"` // client timeout (docs/simulation.md, Time model: 30 s)
	Tail           Tail            `json:"tail"`             // law of timeout_late_tail delays
	Switches       map[string]bool `json:"switches,omitempty"`
	// Replay holds the constants of the agent-side design's mechanics;
	// a manifest whose blocks have agent faults or guards needs it.
	Replay      *ReplayParams `json:"replay,omitempty"`
	Experiments []Experiment  `json:"experiments"`
}

// ReplayParams are the constants of the agent-side mechanics
// (docs/simulation.md, Agent-side faults; agent.Replay).
type ReplayParams struct {
	// PerturbRate is the probability that a write a model writes again
	// differs from its first synthesis (1 − 0.69, the share of identical
	// runs in which agents repeat their arguments exactly).
	PerturbRate float64 `json:"perturb_rate"`
	// RestartS is the range, uniform, of the time until a dead process or
	// a failed run is started again.
	RestartS [2]float64 `json:"restart_s"`
	// SecondWorkerS is the range, uniform, of the second worker's start
	// after the first's.
	SecondWorkerS [2]float64 `json:"second_worker_s"`
	// DerivedTTLS and KeysTTLS are the derived keys' and client keys'
	// time to live; InFlightBoundS the action ledger's bound on the time a
	// request stays in flight.
	DerivedTTLS    float64 `json:"derived_ttl_s"`
	KeysTTLS       float64 `json:"keys_ttl_s"`
	InFlightBoundS float64 `json:"in_flight_bound_s"`
}

// Tail is the truncated Pareto law of heavy-tailed in-flight delays and the
// fixed seed that permutes its stratified quantiles over focal writes.
type Tail struct {
	Alpha float64 `json:"alpha"`
	LoS   float64 `json:"lo_s"`
	HiS   float64 `json:"hi_s"`
	Seed  uint64  `json:"seed"`
}

// Experiment is a named list of blocks.
type Experiment struct {
	ID     string  `json:"id"`
	Blocks []Block `json:"blocks"`
}

// Block is a full cross of cells × contracts × conditions × cues × worlds,
// where a world is (task, focal write, fault mode).
type Block struct {
	Doc string `json:"doc,omitempty"`
	// When names a switch that must be on for the block to run; "!name"
	// runs the block only when the switch is off. Empty: always.
	When string `json:"when,omitempty"`
	// Models × Harnesses, or an explicit Cells list (not both).
	Models     []string  `json:"models,omitempty"`
	Harnesses  []string  `json:"harnesses,omitempty"` // default ["minimal"]
	Cells      []Cell    `json:"cells,omitempty"`
	Contracts  []string  `json:"contracts,omitempty"`  // default ["native"]
	Conditions []string  `json:"conditions,omitempty"` // default ["vanilla"]
	Cues       []string  `json:"cues,omitempty"`       // default ["default"]
	Tasks      []TaskSel `json:"tasks"`
	// Modes are applied to every focal write of every selected task, except
	// partial_batch (batch writes only) and none (once per task, on its
	// first write, which then carries no fault).
	Modes []string `json:"modes"`
	// Limit caps a model's episodes in this block (per cell); the kept
	// episodes are a seeded random subset kept in design order. The paper
	// uses it for gpt-4.1's partial coverage ("87% of the design").
	Limit  map[string]int `json:"limit,omitempty"`
	Weight float64        `json:"weight,omitempty"` // design weight of every episode; 0 means 1
	// AgentFaults and Guards make the block agent-side (docs/simulation.md,
	// Agent-side faults): every world is played under each agent fault
	// (crash_resume once per crash window) through each guard. Empty: the
	// paper's single process with no guard arm.
	AgentFaults []string `json:"agent_faults,omitempty"`
	Guards      []string `json:"guards,omitempty"`
}

// Cell is one (harness, model) pair.
type Cell struct {
	Harness string `json:"harness"`
	Model   string `json:"model"`
}

// TaskSel selects task instances: the listed templates (all when empty) at
// the listed instances.
type TaskSel struct {
	Templates []string `json:"templates,omitempty"`
	Instances []int    `json:"instances"`
}

// Paper returns the paper's manifest (R5).
func Paper() *Manifest {
	m, err := Decode(bytes.NewReader(paperJSON), "paper.json")
	if err != nil {
		panic("design: embedded paper.json: " + err.Error())
	}
	return m
}

// Replay returns the agent-side design's manifest.
func Replay() *Manifest {
	m, err := Decode(bytes.NewReader(replayJSON), "replay.json")
	if err != nil {
		panic("design: embedded replay.json: " + err.Error())
	}
	return m
}

// Load reads a manifest file; "paper" and "replay" name the embedded ones.
func Load(path string) (*Manifest, error) {
	switch path {
	case "paper":
		return Paper(), nil
	case "replay":
		return Replay(), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Decode(f, path)
}

// Decode parses and validates a manifest. Errors name the file and, for
// syntax errors, the line.
func Decode(r io.Reader, name string) (*Manifest, error) {
	data, err := readlimit.Read(r, name, "a design manifest", readlimit.Manifest)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var m Manifest
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %s", name, jsonErr(data, err))
	}
	if err := m.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &m, nil
}

func jsonErr(data []byte, err error) string {
	var off int64 = -1
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	}
	if off < 0 {
		return err.Error()
	}
	line := 1 + bytes.Count(data[:min(int(off), len(data))], []byte("\n"))
	return fmt.Sprintf("line %d: %v", line, err)
}

func (m *Manifest) validate() error {
	if m.FixedDelayS <= 0 {
		return fmt.Errorf("fixed_delay_s: must be > 0, got %v", m.FixedDelayS)
	}
	if m.ClientTimeoutS <= 0 {
		return fmt.Errorf("client_timeout_s: must be > 0, got %v", m.ClientTimeoutS)
	}
	if !(m.Tail.Alpha > 0) || !(m.Tail.LoS > 0) || !(m.Tail.HiS > m.Tail.LoS) {
		return fmt.Errorf("tail: need alpha > 0 and 0 < lo_s < hi_s, got %+v", m.Tail)
	}
	if len(m.Experiments) == 0 {
		return fmt.Errorf("experiments: empty")
	}
	if r := m.Replay; r != nil {
		for _, c := range []struct {
			name string
			lo   float64
			hi   float64
		}{{"restart_s", r.RestartS[0], r.RestartS[1]}, {"second_worker_s", r.SecondWorkerS[0], r.SecondWorkerS[1]}} {
			if !(c.lo >= 0 && c.hi >= c.lo && !math.IsInf(c.hi, 0)) {
				return fmt.Errorf("replay.%s: want [lo, hi] with 0 ≤ lo ≤ hi, got [%v, %v]", c.name, c.lo, c.hi)
			}
		}
		if !(r.PerturbRate >= 0 && r.PerturbRate <= 1) {
			return fmt.Errorf("replay.perturb_rate: want 0–1, got %v", r.PerturbRate)
		}
		for name, v := range map[string]float64{"derived_ttl_s": r.DerivedTTLS, "keys_ttl_s": r.KeysTTLS, "in_flight_bound_s": r.InFlightBoundS} {
			if !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("replay.%s: want a finite number ≥ 0, got %v", name, v)
			}
		}
	}
	seen := map[string]bool{}
	for i, e := range m.Experiments {
		where := fmt.Sprintf("experiments[%d]", i)
		if e.ID == "" {
			return fmt.Errorf("%s.id: empty", where)
		}
		if seen[e.ID] {
			return fmt.Errorf("%s.id: duplicate %q", where, e.ID)
		}
		seen[e.ID] = true
		for j, b := range e.Blocks {
			if err := m.validateBlock(b); err != nil {
				return fmt.Errorf("%s (%s).blocks[%d].%w", where, e.ID, j, err)
			}
		}
	}
	return nil
}

func (m *Manifest) validateBlock(b Block) error {
	if b.When != "" {
		name := b.When
		if name[0] == '!' {
			name = name[1:]
		}
		if _, ok := m.Switches[name]; !ok {
			return fmt.Errorf("when: unknown switch %q", b.When)
		}
	}
	if len(b.Cells) > 0 && (len(b.Models) > 0 || len(b.Harnesses) > 0) {
		return fmt.Errorf("cells: give either cells or models/harnesses, not both")
	}
	if len(b.Cells) == 0 && len(b.Models) == 0 {
		return fmt.Errorf("models: empty")
	}
	for _, c := range b.Cells {
		if c.Model == "" || c.Harness == "" {
			return fmt.Errorf("cells: harness and model must be non-empty")
		}
	}
	for _, c := range b.Contracts {
		if !ledger.Contracts.Has(c) {
			return fmt.Errorf("contracts: unknown contract %q (want %v)", c, ledger.Contracts.Values)
		}
	}
	for _, c := range b.Cues {
		if !ledger.Cues.Has(c) {
			return fmt.Errorf("cues: unknown cue %q (want %v)", c, ledger.Cues.Values)
		}
	}
	for _, c := range b.Conditions {
		if c == "" {
			return fmt.Errorf("conditions: empty condition")
		}
	}
	if len(b.Modes) == 0 {
		return fmt.Errorf("modes: empty")
	}
	for _, md := range b.Modes {
		m, ok := ledger.FaultByName(md)
		if !ok {
			return fmt.Errorf("modes: unknown fault mode %q", md)
		}
		if !m.InjectedBy(ledger.SiteSandbox) {
			return fmt.Errorf("modes: fault mode %s is not injected by the sandbox", md)
		}
	}
	if len(b.Tasks) == 0 {
		return fmt.Errorf("tasks: empty")
	}
	for _, t := range b.Tasks {
		if len(t.Instances) == 0 {
			return fmt.Errorf("tasks: no instances")
		}
		for _, in := range t.Instances {
			if in < 0 {
				return fmt.Errorf("tasks: negative instance %d", in)
			}
		}
	}
	if (len(b.AgentFaults) > 0) != (len(b.Guards) > 0) {
		return fmt.Errorf("agent_faults: give agent faults and guards together, or neither")
	}
	if len(b.AgentFaults) > 0 && m.Replay == nil {
		return fmt.Errorf("agent_faults: the manifest has no replay block with the mechanics' constants")
	}
	for _, f := range b.AgentFaults {
		if !ledger.AgentFaultNames.Has(f) {
			return fmt.Errorf("agent_faults: unknown agent fault %q (want one of %v)", f, ledger.AgentFaultNames.Values)
		}
	}
	for _, g := range b.Guards {
		if !ledger.GuardNames.Has(g) {
			return fmt.Errorf("guards: unknown guard %q (want one of %v)", g, ledger.GuardNames.Values)
		}
	}
	for mdl, n := range b.Limit {
		if n < 0 {
			return fmt.Errorf("limit: negative limit for %q", mdl)
		}
	}
	if b.Weight < 0 {
		return fmt.Errorf("weight: must be ≥ 0")
	}
	return nil
}
