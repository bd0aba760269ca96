package power

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
	"github.com/limbo-toolkit/limbo/stats"
)

// Options describe one power run. Exactly one of Manifest (simulation) and
// Pilot (cluster bootstrap) is set.
type Options struct {
	Prereg   *prereg.File
	Manifest *design.Manifest // the base design to regenerate
	Profiles *agent.Profiles  // nil: the embedded profiles
	Pilot    []*ledger.Episode
	Scale    design.ScaleKind // episodes, instances or seeds (simulation only)
	Sizes    []float64        // multipliers of the base design (or pilot), > 0, ascending, distinct
	Reps     int              // replications per size (≥ 1)
	Target   float64          // power to reach, in (0, 1)
	Seed     uint64
	Jobs     int         // parallel workers; < 1 means GOMAXPROCS
	Progress func(n int) // called after each finished replication, from one goroutine at a time
}

// Result is a power run: per hypothesis and size the share of replications
// that reach each verdict, and the closed forms beside them.
type Result struct {
	Title      string
	Source     string // "simulation" or "pilot"
	Scale      string // what a size multiplies
	Reps       int
	Seed       uint64
	Target     float64
	Sizes      []Size
	Hypotheses []*Hypothesis
	Closed     []*Closed
	Warnings   []string
}

// Size is one point of the grid.
type Size struct {
	Factor   float64
	Episodes int // episodes of one replication (the whole design, or the resampled pilot's mean)
	Analysed int // episodes a replication simulates: those some population can keep
}

// Hypothesis is the power of one hypothesis over the grid.
type Hypothesis struct {
	ID, Analysis string
	Points       []Point // one per size
	// Reached is the smallest size whose power is ≥ the target; NaN when
	// no size of the grid reaches it.
	Reached float64
}

// Point is the outcome of the replications at one size.
type Point struct {
	Factor        float64
	Counts        map[prereg.Verdict]int // replications per verdict
	Power         float64                // share "supported"
	Lo, Hi        float64                // its 95% Wilson interval (Monte Carlo error)
	NotComputable float64                // share "not computable"
}

// Verdicts in the order outputs list them.
var Verdicts = prereg.Verdicts

// γ is the golden-ratio increment of SplitMix64.
const γ = 0x9e3779b97f4a7c15

// SplitMix64 is Steele, Lea and Flood's (2014) finaliser, the map from a
// run seed and a counter to an independent-looking seed.
func SplitMix64(x uint64) uint64 {
	x += γ
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// RepSeed is the seed of replication r (0-based): SplitMix64(seed + r·γ).
// It is the same at every size, so the curves differ by size and not by
// the luck of different draws (common random numbers).
func RepSeed(seed uint64, r int) uint64 { return SplitMix64(seed + uint64(r)*γ) }

// RunSeed is the simulator's run seed of repeat k (0-based) of replication
// r: RepSeed itself for k = 0, else SplitMix64(RepSeed ^ k·0xd1b54a32d192ed03).
func RunSeed(seed uint64, r, k int) uint64 {
	s := RepSeed(seed, r)
	if k == 0 {
		return s
	}
	return SplitMix64(s ^ uint64(k)*0xd1b54a32d192ed03)
}

// Run regenerates the design (or resamples the pilot) o.Reps times at
// every size, evaluates the preregistration on each replication in memory
// and reports the share of replications that reach each verdict. The
// result depends only on the options, never on o.Jobs.
func Run(o Options) (*Result, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	res := &Result{Title: o.Prereg.Title, Reps: o.Reps, Seed: o.Seed, Target: o.Target, Scale: string(o.Scale)}
	var gens []generator
	if o.Pilot != nil {
		res.Source, res.Scale = "pilot", "worlds per template"
		b, err := newBootstrap(o.Pilot)
		if err != nil {
			return nil, err
		}
		for _, f := range o.Sizes {
			gens = append(gens, b.at(f))
		}
	} else {
		res.Source = "simulation"
		prof := o.profiles()
		for _, f := range o.Sizes {
			g, err := newSimulation(o.Manifest, prof, o.Prereg, o.Scale, f)
			if err != nil {
				return nil, fmt.Errorf("size %g: %w", f, err)
			}
			gens = append(gens, g)
		}
	}
	for i, f := range o.Sizes {
		res.Sizes = append(res.Sizes, Size{Factor: f, Episodes: gens[i].episodes(), Analysed: gens[i].analysed()})
	}
	verdicts, err := replicate(o, gens)
	if err != nil {
		return nil, err
	}
	res.tally(o.Prereg, verdicts)
	closed, warns, err := closedForms(o, gens)
	if err != nil {
		return nil, err
	}
	res.Closed, res.Warnings = closed, append(res.Warnings, warns...)
	return res, nil
}

// Check validates the options a user sets on the command line: Reps,
// Jobs, Target, Sizes and Scale; its errors name those fields. Run calls
// it too.
func (o *Options) Check() error {
	switch {
	case o.Reps < 1:
		return fieldtext.New("Reps", "power: {Reps} must be ≥ 1, got %d", o.Reps)
	case o.Reps > MaxReps:
		return fieldtext.New("Reps", "power: {Reps} %d: at most %d", o.Reps, MaxReps)
	case o.Jobs < 0:
		return fieldtext.New("Jobs", "power: {Jobs} must be ≥ 0 (0 = number of CPUs), got %d", o.Jobs)
	case o.Jobs > MaxJobs:
		return fieldtext.New("Jobs", "power: {Jobs} %d: at most %d", o.Jobs, MaxJobs)
	case len(o.Sizes) > MaxSizes:
		return fieldtext.New("Sizes", "power: {Sizes}: %d sizes, at most %d", len(o.Sizes), MaxSizes)
	case !(o.Target > 0 && o.Target < 1):
		return fieldtext.New("Target", "power: {Target} must be in (0, 1), got %v", o.Target)
	case len(o.Sizes) == 0:
		return fieldtext.New("Sizes", "power: {Sizes}: empty")
	case o.Pilot == nil && !o.Scale.Valid():
		return fieldtext.New("Scale", "power: {Scale} %q: want one of %v", o.Scale, design.ScaleKinds())
	}
	for i, f := range o.Sizes {
		if !(f > 0) || math.IsInf(f, 0) {
			return fieldtext.New("Sizes", "power: {Sizes}: %v: want a number > 0", f)
		}
		if o.Pilot == nil && o.Scale == design.ScaleSeeds && f != math.Trunc(f) {
			return fieldtext.New("Sizes", "power: {Sizes}: %v: {Scale} seeds counts whole runs of the design", f)
		}
		if i > 0 && f <= o.Sizes[i-1] {
			return fieldtext.New("Sizes", "power: {Sizes} must be distinct and ascending, got %v after %v", f, o.Sizes[i-1])
		}
	}
	return nil
}

// Bounds of a power analysis, so that a mistyped option is refused
// rather than taking the machine's memory: every worker holds a
// replication, the verdicts of every replication are kept, and a
// replication holds its episodes in memory.
const (
	MaxJobs     = 256        // parallel workers
	MaxReps     = 100_000    // replications per size
	MaxSizes    = 100        // sizes
	MaxEpisodes = 10_000_000 // episodes of one replication (size × base)
)

// LimitError says that an option exceeds one of the bounds above.
type LimitError struct {
	Msg string
	err error // the message naming its option field (Msg's text)
}

func (e *LimitError) Error() string { return e.Msg }

// Unwrap returns the error whose text Msg is, when it names an option.
func (e *LimitError) Unwrap() error { return e.err }

// checkEpisodes refuses a size whose replication would exceed
// MaxEpisodes, before anything of that size is allocated.
func (o *Options) checkEpisodes() error {
	base := len(o.Pilot)
	if o.Pilot == nil {
		plan, err := design.Compile(o.Manifest)
		if err != nil {
			return err
		}
		base = plan.Len()
	}
	for _, f := range o.Sizes {
		if n := f * float64(base); n > MaxEpisodes {
			ft := fieldtext.New("Sizes", "power: {Sizes} %g: %.0f episodes per replication (%d at size 1), at most %d", f, n, base, MaxEpisodes)
			return &LimitError{Msg: ft.Error(), err: ft}
		}
	}
	return nil
}

func (o *Options) check() error {
	switch {
	case o.Prereg == nil:
		return errors.New("power: no preregistration")
	case (o.Manifest == nil) == (o.Pilot == nil):
		return errors.New("power: give a design or a pilot ledger, not both or neither")
	case o.Pilot != nil && len(o.Pilot) == 0:
		return errors.New("power: the pilot ledger has no episodes")
	}
	if err := o.Check(); err != nil {
		return err
	}
	return o.checkEpisodes()
}

// ParseSizes reads a comma-separated list of multipliers such as
// "0.5,1,2": each a number > 0, distinct, returned in ascending order.
func ParseSizes(s string) ([]float64, error) {
	var out []float64
	if strings.TrimSpace(s) == "" {
		return nil, errors.New("empty: want a list such as 0.5,1,2")
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		f, err := strconv.ParseFloat(part, 64)
		if err != nil || !(f > 0) || math.IsInf(f, 0) {
			return nil, fmt.Errorf("%q: want a multiplier > 0 such as 0.5", part)
		}
		if slices.Contains(out, f) {
			return nil, fmt.Errorf("%q: listed twice", part)
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, errors.New("empty: want a list such as 0.5,1,2")
	}
	slices.Sort(out)
	return out, nil
}

// generator makes the episodes of one replication at one size.
type generator interface {
	// make returns replication r's episodes; it is called concurrently.
	make(seed uint64, r int) ([]*ledger.Episode, error)
	episodes() int
	analysed() int
}

// replicate evaluates every (size, replication) on o.Jobs workers and
// returns the verdict of every hypothesis, indexed [size][rep][hypothesis].
func replicate(o Options, gens []generator) ([][][]prereg.Verdict, error) {
	jobs := o.Jobs
	if jobs < 1 {
		jobs = runtime.GOMAXPROCS(0)
	}
	// No more workers than replications to run.
	jobs = min(jobs, len(gens)*o.Reps)
	out := make([][][]prereg.Verdict, len(gens))
	for i := range out {
		out[i] = make([][]prereg.Verdict, o.Reps)
	}
	type job struct{ size, rep int }
	work := make(chan job)
	var stop atomic.Bool
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	for range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range work {
				if stop.Load() {
					continue
				}
				v, err := evalOne(o.Prereg, gens[j.size], o.Seed, j.rep)
				mu.Lock()
				if err != nil {
					if first == nil {
						first = fmt.Errorf("size %g, replication %d: %w", o.Sizes[j.size], j.rep+1, err)
					}
					stop.Store(true)
				} else {
					out[j.size][j.rep] = v
					if o.Progress != nil {
						o.Progress(1)
					}
				}
				mu.Unlock()
			}
		}()
	}
	for i := range gens {
		for r := 0; r < o.Reps && !stop.Load(); r++ {
			work <- job{i, r}
		}
	}
	close(work)
	wg.Wait()
	return out, first
}

func evalOne(f *prereg.File, g generator, seed uint64, r int) ([]prereg.Verdict, error) {
	eps, err := g.make(seed, r)
	if err != nil {
		return nil, err
	}
	res, err := f.EvaluateEpisodes(eps)
	if err != nil {
		return nil, err
	}
	v := make([]prereg.Verdict, len(res.Verdicts))
	for i, x := range res.Verdicts {
		v[i] = x.Verdict
	}
	return v, nil
}

// tally turns the verdicts into shares with their Monte Carlo intervals.
func (res *Result) tally(f *prereg.File, verdicts [][][]prereg.Verdict) {
	z := stats.ZLevel(0.95)
	for hi, h := range f.Hypotheses {
		ph := &Hypothesis{ID: h.ID, Analysis: string(h.Analysis), Reached: math.NaN()}
		for si, s := range res.Sizes {
			pt := Point{Factor: s.Factor, Counts: map[prereg.Verdict]int{}}
			for _, v := range verdicts[si] {
				pt.Counts[v[hi]]++
			}
			n := float64(len(verdicts[si]))
			pt.Power = float64(pt.Counts[prereg.Supported]) / n
			pt.NotComputable = float64(pt.Counts[prereg.NotComputable]) / n
			pt.Lo, pt.Hi = stats.Wilson(pt.Power, n, z)
			ph.Points = append(ph.Points, pt)
			if math.IsNaN(ph.Reached) && pt.Power >= res.Target {
				ph.Reached = s.Factor
			}
		}
		res.Hypotheses = append(res.Hypotheses, ph)
	}
}

// simulation regenerates a scaled design with the simulator.
type simulation struct {
	plan    *design.Plan
	prof    *agent.Profiles
	repeats int
	needed  []int // plan indices some population can keep
}

func newSimulation(m *design.Manifest, prof *agent.Profiles, f *prereg.File, kind design.ScaleKind, factor float64) (*simulation, error) {
	sc, err := design.Scale(m, kind, factor)
	if err != nil {
		return nil, err
	}
	plan, err := design.Compile(sc.Manifest)
	if err != nil {
		return nil, err
	}
	if err := design.NewSimulator(plan, prof, 0).Check(); err != nil {
		return nil, err
	}
	needed, err := Needed(f, plan)
	if err != nil {
		return nil, err
	}
	return &simulation{plan: plan, prof: prof, repeats: sc.Repeats, needed: needed}, nil
}

func (s *simulation) episodes() int { return s.plan.Len() * s.repeats }
func (s *simulation) analysed() int { return len(s.needed) * s.repeats }

// make simulates and grades the needed episodes of every repeat. Repeat k
// > 0 gets "/r<k+1>" after its episode ids and pair keys: ids stay unique
// and paired analyses pair within a repeat, while task and template (the
// clusters) are shared by the repeats of a world.
func (s *simulation) make(seed uint64, r int) ([]*ledger.Episode, error) {
	eps := make([]ledger.Episode, 0, len(s.needed)*s.repeats)
	for k := range s.repeats {
		sim := design.NewSimulator(s.plan, s.prof, RunSeed(seed, r, k))
		suffix := ""
		if k > 0 {
			suffix = "/r" + strconv.Itoa(k+1)
		}
		for _, i := range s.needed {
			raw, err := sim.Episode(i)
			if err != nil {
				return nil, err
			}
			ep, err := sandbox.Grade(raw)
			if err != nil {
				return nil, fmt.Errorf("episode %d (%s): grade: %w", i, raw.EpisodeID, err)
			}
			ep.EpisodeID += suffix
			ep.PairKey += suffix
			eps = append(eps, ep)
		}
	}
	out := make([]*ledger.Episode, len(eps))
	for i := range eps {
		out[i] = &eps[i]
	}
	return out, nil
}
