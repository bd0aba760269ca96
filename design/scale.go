package design

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/limbo-toolkit/limbo/internal/enum"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// ScaleKind is what a size scales: episodes, instances or seeds.
type ScaleKind string

// The scale kinds.
const (
	// ScaleEpisodes multiplies the episodes of every cell: each cell's
	// worlds are run Repeats times, each repeat keeping the same seeded
	// share of the worlds.
	ScaleEpisodes ScaleKind = "episodes"
	// ScaleInstances multiplies the task instances of every template in
	// every block (new worlds, the templates unchanged).
	ScaleInstances ScaleKind = "instances"
	// ScaleSeeds runs the whole design under f run seeds (f whole): with
	// the simulator's profiles a seed is one more repeat of every cell, so
	// this is ScaleEpisodes restricted to whole multipliers, named for
	// how a study adds runs.
	ScaleSeeds ScaleKind = "seeds"
)

// ScaleKinds returns the scale kinds in the order help texts show them.
func ScaleKinds() []ScaleKind { return []ScaleKind{ScaleEpisodes, ScaleInstances, ScaleSeeds} }

// String returns the kind's name.
func (k ScaleKind) String() string { return string(k) }

// Valid reports whether k is one of ScaleKinds.
func (k ScaleKind) Valid() bool { return slices.Contains(ScaleKinds(), k) }

// MarshalText returns the kind's name.
func (k ScaleKind) MarshalText() ([]byte, error) { return []byte(k), nil }

// UnmarshalText accepts the names of ScaleKinds.
func (k *ScaleKind) UnmarshalText(b []byte) error {
	return enum.Unmarshal("scale", b, ScaleKinds(), k)
}

// Scaled is a design at one size: the manifest each repeat runs and how
// many repeats of it make the design. A repeat is the same manifest run
// under its own run seed (power derives them from the replication's seed),
// its episode ids and pair keys suffixed so that they stay unique and
// pairs stay within a repeat.
type Scaled struct {
	Manifest *Manifest
	Repeats  int
}

// Scale returns m at size f (a multiplier of the base design, f > 0). m
// is not modified. Factor 1 returns m's content unchanged in one repeat.
//
// episodes: R = ⌈f⌉ repeats; when f is not a whole number every block
// keeps, per cell, round(n·f/R) of its n worlds (at least 1), through the
// block's limit, so the kept worlds are a seeded subset that is the same
// for every condition, contract and cue of the cell (pairs stay whole) and
// grows by nesting with f. A model's existing limit L is scaled the same
// way, to round(L·f/R).
//
// seeds: f repeats of the whole design (f must be whole).
//
// instances: every template of every block runs round(n·f) of its n
// instances (at least 1): the first ones when f < 1, and the smallest
// instance numbers the block does not use yet when f > 1. The sandbox has
// a fixed number of instances per template (3 for most), so asking for
// more is an error that names the block and the template.
func Scale(m *Manifest, kind ScaleKind, f float64) (*Scaled, error) {
	if !(f > 0) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("scale: size must be a number > 0, got %v", f)
	}
	c, err := cloneManifest(m)
	if err != nil {
		return nil, err
	}
	if kind == ScaleSeeds && f != math.Trunc(f) {
		return nil, fmt.Errorf("scale: seeds counts whole runs of the design; size %v is not a whole number", f)
	}
	if f == 1 {
		return &Scaled{Manifest: c, Repeats: 1}, nil
	}
	switch kind {
	case ScaleSeeds:
		return &Scaled{Manifest: c, Repeats: int(f)}, nil
	case ScaleEpisodes:
		r := int(math.Ceil(f - 1e-9))
		if err := c.scaleWorlds(f / float64(r)); err != nil {
			return nil, err
		}
		return &Scaled{Manifest: c, Repeats: r}, nil
	case ScaleInstances:
		if err := c.scaleInstances(f); err != nil {
			return nil, err
		}
		return &Scaled{Manifest: c, Repeats: 1}, nil
	}
	return nil, fmt.Errorf("scale: unknown kind %q (want %v)", kind, ScaleKinds())
}

// cloneManifest is a deep copy through the manifest's JSON form, which is
// its definition.
func cloneManifest(m *Manifest) (*Manifest, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("scale: %w", err)
	}
	var c Manifest
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("scale: %w", err)
	}
	return &c, nil
}

// keepOf is round(n·frac), at least 1 and at most n.
func keepOf(n int, frac float64) int {
	return min(n, max(1, int(math.Round(float64(n)*frac))))
}

// scaleWorlds limits every cell of every block to a share frac ≤ 1 of its
// worlds.
func (m *Manifest) scaleWorlds(frac float64) error {
	if frac >= 1 {
		return nil
	}
	cache := map[string]*sandbox.Task{}
	for ei := range m.Experiments {
		e := &m.Experiments[ei]
		for bi := range e.Blocks {
			b := &e.Blocks[bi]
			ws, err := m.worlds(*b, cache)
			if err != nil {
				return fmt.Errorf("experiment %s, block %d: %w", e.ID, bi, err)
			}
			models := slices.Clone(b.Models)
			for _, c := range b.Cells {
				models = append(models, c.Model)
			}
			lim := map[string]int{}
			for _, md := range models {
				n := len(ws)
				if l, ok := b.Limit[md]; ok && l < n {
					n = l
				}
				if n == 0 {
					lim[md] = 0
					continue
				}
				lim[md] = keepOf(n, frac)
			}
			b.Limit = lim
		}
	}
	return nil
}

// scaleInstances gives every template of every block round(n·f) instances.
func (m *Manifest) scaleInstances(f float64) error {
	all := sandbox.Templates()
	for ei := range m.Experiments {
		e := &m.Experiments[ei]
		for bi := range e.Blocks {
			b := &e.Blocks[bi]
			// The block's instances per template, in first-use order.
			var order []string
			inst := map[string][]int{}
			for _, sel := range b.Tasks {
				tpls := sel.Templates
				if len(tpls) == 0 {
					tpls = all
				}
				for _, t := range tpls {
					if _, ok := inst[t]; !ok {
						order = append(order, t)
					}
					for _, in := range sel.Instances {
						if !slices.Contains(inst[t], in) {
							inst[t] = append(inst[t], in)
						}
					}
				}
			}
			var tasks []TaskSel
			for _, t := range order {
				have := inst[t]
				n := max(1, int(math.Round(float64(len(have))*f)))
				var list []int
				if n <= len(have) {
					list = slices.Clone(have[:n])
				} else {
					list = slices.Clone(have)
					for next := 0; len(list) < n; next++ {
						if !slices.Contains(list, next) {
							list = append(list, next)
						}
					}
				}
				slices.Sort(list)
				if avail := sandbox.Instances(t); avail > 0 && list[len(list)-1] >= avail {
					return fmt.Errorf("experiment %s, block %d: instances ×%g asks template %s for %d instances; the sandbox has %d",
						e.ID, bi, f, t, n, avail)
				}
				tasks = append(tasks, TaskSel{Templates: []string{t}, Instances: list})
			}
			b.Tasks = tasks
		}
	}
	return nil
}
