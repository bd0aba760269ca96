package design

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// World is what an episode's environment is made of: a task instance, the
// focal write and the fault mode, with its in-flight delay. Worlds are shared
// by every cell, condition, contract and cue of a block.
type World struct {
	Task       *sandbox.Task
	FocalIndex int
	Mode       string
	DelayS     float64
}

// Episode is one episode of a plan: where it sits in the design and the
// world it runs in.
type Episode struct {
	Index      int
	Experiment string
	Harness    string
	Model      string
	Contract   string
	Condition  string
	Cue        string
	Weight     float64
	World      *World
	// The agent-side design ("" in the paper's): the agent fault, its
	// crash window (crash_resume) and the guard in front of the services.
	AgentFault, Window, Guard string
}

// PairKey is model/template/instance/focal_index/fault_mode (docs/ledger.md): the
// same across conditions, contracts and cue arms, so paired analyses match
// episodes of one world.
func (e *Episode) PairKey() string {
	w := e.World
	return e.Model + "/" + w.Task.Template + "/" + strconv.Itoa(w.Task.Instance) + "/" + strconv.Itoa(w.FocalIndex) + "/" + w.Mode
}

// ID is the episode id: experiment, harness, contract, condition, cue and the
// pair key, unique within a plan and stable for a manifest; an episode of
// the agent-side design adds its guard and its agent fault (with the crash
// window) before the pair key.
func (e *Episode) ID() string { return e.id(e.PairKey()) }

// id is ID given the episode's pair key.
func (e *Episode) id(pk string) string {
	switch {
	case e.AgentFault == "":
		return e.worldID(pk)
	case e.Window != "":
		return e.Experiment + "/" + e.Harness + "/" + e.Contract + "/" + e.Condition + "/" + e.Cue + "/" + e.Guard + "/" + e.AgentFault + ":" + e.Window + "/" + pk
	}
	return e.Experiment + "/" + e.Harness + "/" + e.Contract + "/" + e.Condition + "/" + e.Cue + "/" + e.Guard + "/" + e.AgentFault + "/" + pk
}

// WorldID is the episode id without the agent-side design's segments:
// the id of every guard and agent fault of one world and arm, which key
// the draws they share.
func (e *Episode) WorldID() string { return e.worldID(e.PairKey()) }

// worldID is WorldID given the episode's pair key.
func (e *Episode) worldID(pk string) string {
	return e.Experiment + "/" + e.Harness + "/" + e.Contract + "/" + e.Condition + "/" + e.Cue + "/" + pk
}

// group is one (cell, contract, condition, cue) of a block over its worlds.
type group struct {
	exp, harness, model, contract, condition, cue string
	agentFault, window, guard                     string
	weight                                        float64
	worlds                                        []*World
	keep                                          []int32 // indices into worlds; nil = all
	start                                         int     // index of the group's first episode
}

func (g *group) size() int {
	if g.keep != nil {
		return len(g.keep)
	}
	return len(g.worlds)
}

// Plan is a compiled manifest: episodes addressed by index, in design order.
// It holds one entry per block cell, not per episode, so memory does not
// grow with the number of episodes.
type Plan struct {
	Manifest *Manifest
	groups   []group
	n        int
}

// Len is the number of episodes.
func (p *Plan) Len() int { return p.n }

// Episode returns episode i (0 ≤ i < Len).
func (p *Plan) Episode(i int) Episode {
	if i < 0 || i >= p.n {
		panic(fmt.Sprintf("design: episode index %d out of range [0,%d)", i, p.n))
	}
	k := sort.Search(len(p.groups), func(k int) bool { return p.groups[k].start > i }) - 1
	g := &p.groups[k]
	j := i - g.start
	if g.keep != nil {
		j = int(g.keep[j])
	}
	return Episode{
		Index: i, Experiment: g.exp, Harness: g.harness, Model: g.model,
		Contract: g.contract, Condition: g.condition, Cue: g.cue, Weight: g.weight,
		World: g.worlds[j], AgentFault: g.agentFault, Window: g.window, Guard: g.guard,
	}
}

// Groups lists the ledger column groups (ledger.Column.Group) the plan's
// episodes carry: the replay group when some block is agent-side.
func (p *Plan) Groups() []string {
	for i := range p.groups {
		if p.groups[i].agentFault != "" {
			return []string{ledger.GroupReplay}
		}
	}
	return nil
}

// Count is the number of episodes of an experiment (all when exp is "").
func (p *Plan) Count(exp string) int {
	n := 0
	for i := range p.groups {
		if exp == "" || p.groups[i].exp == exp {
			n += p.groups[i].size()
		}
	}
	return n
}

// Compile expands a manifest against the sandbox's task suite.
func Compile(m *Manifest) (*Plan, error) {
	p := &Plan{Manifest: m}
	tasks := map[string]*sandbox.Task{}
	for _, e := range m.Experiments {
		for bi, b := range e.Blocks {
			if !m.on(b.When) {
				continue
			}
			worlds, err := m.worlds(b, tasks)
			if err != nil {
				return nil, fmt.Errorf("experiment %s, block %d: %w", e.ID, bi, err)
			}
			cells := b.Cells
			if len(cells) == 0 {
				for _, h := range orDefault(b.Harnesses, "minimal") {
					for _, md := range b.Models {
						cells = append(cells, Cell{Harness: h, Model: md})
					}
				}
			}
			weight := b.Weight
			if weight == 0 {
				weight = 1
			}
			for _, c := range cells {
				var keep []int32
				if lim, ok := b.Limit[c.Model]; ok && lim < len(worlds) {
					keep = subset(len(worlds), lim, e.ID+"/"+c.Harness+"/"+c.Model)
				}
				for _, ct := range orDefault(b.Contracts, ledger.ContractNative) {
					for _, cd := range orDefault(b.Conditions, "vanilla") {
						for _, cu := range orDefault(b.Cues, ledger.CueDefault) {
							for _, ar := range agentArms(b) {
								g := group{exp: e.ID, harness: c.Harness, model: c.Model, contract: ct,
									condition: cd, cue: cu, weight: weight, worlds: worlds, keep: keep, start: p.n,
									agentFault: ar.fault, window: ar.window, guard: ar.guard}
								if g.size() == 0 {
									continue
								}
								p.groups = append(p.groups, g)
								p.n += g.size()
							}
						}
					}
				}
			}
		}
	}
	return p, nil
}

// arm is one agent-side arm of a block: a guard, an agent fault and its
// crash window.
type arm struct{ guard, fault, window string }

// agentArms lists a block's agent-side arms, guard by guard, each agent
// fault once per crash window; a block of the paper's design has one arm
// with none of them.
func agentArms(b Block) []arm {
	if len(b.AgentFaults) == 0 {
		return []arm{{}}
	}
	var out []arm
	for _, g := range b.Guards {
		for _, f := range b.AgentFaults {
			af, _ := ledger.AgentFaultByName(f) // validated
			if len(af.Windows) == 0 {
				out = append(out, arm{g, f, ""})
			}
			for _, w := range af.Windows {
				out = append(out, arm{g, f, w})
			}
		}
	}
	return out
}

func (m *Manifest) on(when string) bool {
	if when == "" {
		return true
	}
	if when[0] == '!' {
		return !m.Switches[when[1:]]
	}
	return m.Switches[when]
}

func orDefault(xs []string, def string) []string {
	if len(xs) == 0 {
		return []string{def}
	}
	return xs
}

// subset keeps n of size indices, chosen by a PCG seeded from the cell's
// name, in ascending (design) order.
func subset(size, n int, name string) []int32 {
	var h uint64 = 14695981039346656037
	for i := 0; i < len(name); i++ {
		h = (h ^ uint64(name[i])) * 1099511628211
	}
	r := rand.New(rand.NewPCG(h, 0x6c696d6974)) // "limit"
	perm := r.Perm(size)[:n]
	keep := make([]int32, n)
	for i, v := range perm {
		keep[i] = int32(v)
	}
	slices.Sort(keep)
	return keep
}

// worlds lists a block's worlds in design order and assigns tail delays.
func (m *Manifest) worlds(b Block, cache map[string]*sandbox.Task) ([]*World, error) {
	var ws []*World
	type fw struct {
		id  string
		idx int
	}
	var tailWrites []fw
	tailSeen := map[fw]int{}
	for _, sel := range b.Tasks {
		tpls := sel.Templates
		if len(tpls) == 0 {
			tpls = sandbox.Templates()
		}
		for _, tpl := range tpls {
			for _, in := range sel.Instances {
				key := tpl + "#" + strconv.Itoa(in)
				t, ok := cache[key]
				if !ok {
					var err error
					t, err = sandbox.NewTask(tpl, in)
					if err != nil {
						return nil, fmt.Errorf("tasks: %w", err)
					}
					cache[key] = t
				}
				for si, st := range t.Steps {
					for _, md := range b.Modes {
						fm, _ := ledger.FaultByName(md) // validated
						switch {
						case fm.Control() && si != 0:
							continue // the control: one world per task
						case fm.Batch && st.Class != ledger.ClassBatch:
							continue
						}
						w := &World{Task: t, FocalIndex: st.Index, Mode: md}
						switch fm.Delay {
						case ledger.DelayFixed:
							w.DelayS = m.FixedDelayS
						case ledger.DelayDrawn:
							k := fw{t.ID, st.Index}
							if _, ok := tailSeen[k]; !ok {
								tailSeen[k] = len(tailWrites)
								tailWrites = append(tailWrites, k)
							}
						}
						ws = append(ws, w)
					}
				}
			}
		}
	}
	if len(tailWrites) > 0 {
		d := StratifiedDelays(len(tailWrites), m.Tail)
		for _, w := range ws {
			if k, ok := tailSeen[fw{w.Task.ID, w.FocalIndex}]; ok && drawn(w.Mode) {
				w.DelayS = d[k]
			}
		}
	}
	return ws, nil
}

// drawn reports a mode whose in-flight delay is drawn per world (the
// heavy tail), not fixed by the manifest.
func drawn(mode string) bool {
	m, _ := ledger.FaultByName(mode)
	return m.Delay == ledger.DelayDrawn
}
