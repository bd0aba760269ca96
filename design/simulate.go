package design

import (
	"fmt"
	"strings"
	"sync"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// Simulator runs the episodes of a plan: design × agent × sandbox → raw
// episode. It is safe for concurrent use; episode i depends only on the
// plan, the profiles, the seed and i, never on which goroutine ran it or in
// which order.
type Simulator struct {
	Plan     *Plan
	Profiles *agent.Profiles
	Seed     uint64

	mu     sync.Mutex
	params map[cellKey]paramsOrErr
	tools  map[toolsKey][]sandbox.ToolSpec // the world's tool list is static
}

// toolsKey is what a world's tool list depends on: its contract and its
// oracle tools (joined by NUL).
type toolsKey struct{ contract, oracles string }

type cellKey struct{ model, harness, condition, cue string }

type paramsOrErr struct {
	p    agent.Params
	cond agent.Condition
	err  error
}

// NewSimulator returns a simulator of plan with the given profiles and run
// seed.
func NewSimulator(plan *Plan, prof *agent.Profiles, seed uint64) *Simulator {
	return &Simulator{Plan: plan, Profiles: prof, Seed: seed, params: map[cellKey]paramsOrErr{}, tools: map[toolsKey][]sandbox.ToolSpec{}}
}

// Check resolves every cell's profile and condition up front, so that a
// missing model or unknown condition is reported before any output.
func (s *Simulator) Check() error {
	seen := map[cellKey]bool{}
	for i := range s.Plan.groups {
		g := &s.Plan.groups[i]
		k := cellKey{g.model, g.harness, g.condition, g.cue}
		if seen[k] {
			continue
		}
		seen[k] = true
		if pe := s.cell(k); pe.err != nil {
			return fmt.Errorf("experiment %s: %w", g.exp, pe.err)
		}
	}
	return nil
}

func (s *Simulator) cell(k cellKey) paramsOrErr {
	s.mu.Lock()
	defer s.mu.Unlock()
	if pe, ok := s.params[k]; ok {
		return pe
	}
	var pe paramsOrErr
	pe.cond, pe.err = agent.ParseCondition(k.condition)
	if pe.err == nil {
		pe.p, pe.err = s.Profiles.Effective(k.model, k.harness, k.condition, k.cue)
	}
	s.params[k] = pe
	return pe
}

// WorldSeed is the sandbox seed of a world: the run seed mixed with the pair
// key, so every condition, contract and cue arm of a world sees the same
// latencies and ids.
func WorldSeed(seed uint64, pairKey string) uint64 {
	return splitmix(seed ^ agent.Hash64(pairKey))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Episode simulates episode i and returns its raw record.
func (s *Simulator) Episode(i int) (*ledger.RawEpisode, error) {
	ep := s.Plan.Episode(i)
	pe := s.cell(cellKey{ep.Model, ep.Harness, ep.Condition, ep.Cue})
	if pe.err != nil {
		return nil, pe.err
	}
	pk := ep.PairKey()
	id := ep.id(pk)
	w := ep.World
	spec := sandbox.Spec{
		Task:           w.Task,
		FocalIndex:     w.FocalIndex,
		Fault:          w.Mode,
		Contract:       ep.Contract,
		DelayS:         w.DelayS,
		ClientTimeoutS: s.Plan.Manifest.ClientTimeoutS,
		Oracles:        pe.cond.Oracles(),
		Seed:           WorldSeed(s.Seed, pk),
		EpisodeID:      id,
	}
	world, err := sandbox.NewWorld(spec)
	if err != nil {
		return nil, fmt.Errorf("episode %d (%s): %w", i, id, err)
	}
	p := pe.p
	if sd := s.Profiles.TemplateSD; sd > 0 {
		p = p.Harden(agent.TemplateDifficulty(s.Seed, w.Task.Template), sd)
	}
	var rep ledger.FinalReport
	if ep.AgentFault == "" {
		d := agent.NewDraws(s.Seed, pk, id, s.Profiles.Noise)
		ag := agent.New(p, s.Profiles.Time, pe.cond, d)
		rep = ag.Run(pe.cond.Wrap(world, w.Task.ID, ep.Contract), w.Task, s.toolsOf(world, ep.Contract, pe.cond))
	} else {
		// Every guard and agent fault of a world shares its draws: the
		// arms differ by their mechanics alone (docs/simulation.md, Seeds
		// and common random numbers).
		wid := ep.worldID(pk)
		d := agent.NewDraws(s.Seed, pk, wid, s.Profiles.Noise)
		r := s.replay(&ep, pk)
		if ep.AgentFault == ledger.AgentFaultDelegate || ep.AgentFault == ledger.AgentFaultConcurrent {
			r.Other = agent.NewDraws(s.Seed, pk+"/other", wid+"/other", s.Profiles.Noise)
		}
		if rep, err = agent.RunReplay(world, s.toolsOf(world, ep.Contract, pe.cond), ep.Contract, p, s.Profiles.Time, pe.cond, d, r); err != nil {
			return nil, fmt.Errorf("episode %d (%s): %w", i, id, err)
		}
	}
	raw := world.Finish(rep)
	raw.AgentFault, raw.CrashWindow, raw.Guard = ep.AgentFault, ep.Window, ep.Guard
	raw.Experiment = ep.Experiment
	raw.Model = ep.Model
	raw.Harness = ep.Harness
	raw.Condition = ep.Condition
	raw.Cue = ep.Cue
	raw.PairKey = pk
	raw.Weight = ep.Weight
	return raw, nil
}

// replay is the agent-side design of episode ep, whose pair key is pk.
func (s *Simulator) replay(ep *Episode, pk string) agent.Replay {
	r := agent.Replay{Fault: ep.AgentFault, Window: ep.Window, Guard: ep.Guard, Focal: ep.World.FocalIndex,
		Seed: s.Seed, World: pk}
	if c := s.Plan.Manifest.Replay; c != nil {
		r.Perturb = agent.Perturbation{Rate: c.PerturbRate}
		r.RestartMinS, r.RestartMaxS = c.RestartS[0], c.RestartS[1]
		r.SecondMinS, r.SecondMaxS = c.SecondWorkerS[0], c.SecondWorkerS[1]
		r.DerivedTTLS, r.KeysTTLS, r.InFlightBoundS = c.DerivedTTLS, c.KeysTTLS, c.InFlightBoundS
	}
	return r
}

// toolsOf returns the world's tool list, computed once per contract and
// condition (it depends on nothing else).
func (s *Simulator) toolsOf(w *sandbox.World, contract string, c agent.Condition) []sandbox.ToolSpec {
	k := toolsKey{contract, strings.Join(c.Oracles(), "\x00")}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tools[k]
	if !ok {
		t = w.Tools()
		s.tools[k] = t
	}
	return t
}
