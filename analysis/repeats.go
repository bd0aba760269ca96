package analysis

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// DefaultRepeatBy are the columns that make episodes repeats of one
// another: the same world (pair_key: model, template, instance, focal
// write and fault mode) under the same arm (docs/ledger.md, "Repeated
// runs").
var DefaultRepeatBy = []string{"experiment", "harness", "contract", "condition", "cue", "pair_key"}

// RepeatsSpec is a Repeats analysis: how reliably an agent does the same
// thing when the same world is run again (Inspect's epochs, a plan that
// lists a world several times).
type RepeatsSpec struct {
	// Outcomes are the binary outcomes whose pass^k is estimated (default
	// task_success and eos: pass^k and exactly-once^k).
	Outcomes []string
	// K are the k of pass^k (default 1, 2, … up to the most repeats of a
	// world, at most 8).
	K []int
	// RepeatBy are the columns whose values identify a world and its arm
	// (default DefaultRepeatBy): episodes that agree on all of them are
	// repeats.
	RepeatBy []string
	By       []string // report by the groups of these columns (constant within a world)
	Cluster  string   // the intervals' cluster (default task); a world lies within one
	Level    float64  // confidence level; 0 = 0.95
	// Consistency also measures how alike the repeats of a world are: the
	// same tools, in the same order, and the same arguments of the focal
	// write. It reads the calls: a raw JSONL ledger, or a Parquet episode
	// table with its calls table beside it.
	Consistency bool
}

// RepeatRow is one estimate over the worlds of a group: pass^k of an
// outcome, or a consistency measure.
type RepeatRow struct {
	Levels  []string // the group's level of each By column
	Measure string   // "pass^k" (the outcome in Outcome) or a consistency measure
	Outcome string
	K       int
	// Worlds counts the worlds estimated over (those with at least K
	// repeats; two for consistency) and Excluded the others.
	Worlds, Excluded int
	Episodes         int64 // their episodes
	// Estimate is the mean over worlds of each world's unbiased estimate,
	// with its cluster-robust SE (CR1) and t interval on clusters − 1
	// degrees of freedom (stats.MeanCI), clipped to [0, 1].
	Estimate, SE, Lo, Hi float64
	Clusters             int
}

// The consistency measures: the probability that two repeats of a world
// call the same set of tools, the same sequence of tools, and send the
// focal write with the same arguments.
const (
	SameTools     = "same_tools"
	SameOrder     = "same_order"
	SameFocalArgs = "same_focal_args"
)

// RepeatsResult is the result of Repeats.
type RepeatsResult struct {
	Spec  RepeatsSpec
	Kinds []ledger.Kind // of each By column
	// Worlds, Episodes: the worlds found and their episodes; Repeats[n]
	// counts the worlds run n times.
	Worlds   int
	Episodes int64
	Repeats  map[int]int
	PassK    []RepeatRow // by group, outcome, k
	// Consistency holds the consistency measures (with
	// RepeatsSpec.Consistency), by group.
	Consistency []RepeatRow
	Warnings    []Warning
}

// world is one world and arm: its episodes, cluster and group, and the
// successes of each outcome.
type world struct {
	n       int
	success []int
	cluster int32
	group   int
	ids     []string // the episodes' ids (consistency only)
}

// Repeats estimates, over worlds run several times, pass^k of each
// outcome, the probability that k runs of a world all succeed: per world
// the unbiased C(c, k)/C(n, k) of its c successes in n runs
// (stats.PassHatK), averaged over the worlds with at least k runs, with a
// cluster-robust interval (stats.MeanCI over the worlds, clustered by
// Cluster). pass^k of eos is exactly-once^k: k runs that all complete the
// task with no duplicate. With Consistency, the share of pairs of runs of
// a world that agree (stats.PairAgreement) on the tools called, their
// order and the focal write's arguments (compared as canonical JSON, less
// the idempotency key), is
// averaged the same way over worlds with two runs or more.
func Repeats(q Query, spec RepeatsSpec) (*RepeatsResult, error) {
	var warn warnings
	if err := spec.check(); err != nil {
		return nil, err
	}
	cols := neededColumns(slices.Concat(spec.RepeatBy, spec.By, []string{spec.Cluster}, spec.Outcomes))
	spec2 := frame.Spec{Columns: cols, Collapse: true}
	if spec.Consistency {
		spec2 = frame.Spec{Columns: neededColumns(append(cols, "episode_id", "focal_write"))}
	}
	fr, err := q.readFrame(spec2, &warn)
	if err != nil {
		return nil, err
	}
	for _, o := range spec.Outcomes {
		c := fr.Col(o)
		for _, v := range c.LevelNum {
			if v != 0 && v != 1 {
				return nil, fieldErr("Outcomes", "{Outcomes} %s is not binary (a value %s)", o, c.Levels[slices.Index(c.LevelNum, v)])
			}
		}
	}
	worlds, groups, err := collectWorlds(fr, spec)
	if err != nil {
		return nil, err
	}
	res := &RepeatsResult{Spec: spec, Worlds: len(worlds), Repeats: map[int]int{}}
	for _, c := range spec.By {
		res.Kinds = append(res.Kinds, fr.Col(c).Kind)
	}
	maxN := 0
	for _, w := range worlds {
		res.Episodes += int64(w.n)
		res.Repeats[w.n]++
		maxN = max(maxN, w.n)
	}
	if maxN < 2 {
		warn.addField(WarnUndefined, "RepeatBy", "no world was run more than once (worlds are identified by {RepeatBy} %s); pass^k for k > 1 and consistency are undefined", strings.Join(spec.RepeatBy, ", "))
	}
	ks := spec.K
	if len(ks) == 0 {
		for k := 1; k <= min(max(maxN, 1), 8); k++ {
			ks = append(ks, k)
		}
		res.Spec.K = ks
	}
	for gi, g := range groups {
		for oi, o := range spec.Outcomes {
			for _, k := range ks {
				row := RepeatRow{Levels: g, Measure: "pass^k", Outcome: o, K: k}
				var cells []stats.MeanCell
				for _, w := range worlds {
					if w.group != gi {
						continue
					}
					if w.n < k {
						row.Excluded++
						continue
					}
					row.Worlds++
					row.Episodes += int64(w.n)
					cells = append(cells, stats.MeanCell{Y: stats.PassHatK(w.n, w.success[oi], k), N: 1, SumW: 1, SumW2: 1, Cluster: int(w.cluster)})
				}
				row.fill(cells, spec.Level)
				if row.Excluded > 0 && row.Worlds > 0 {
					warn.addf(WarnSmallSample, "%s%s pass^%d: %d world(s) with fewer than %d runs left out", o, groupText(spec.By, g), k, row.Excluded, k)
				}
				res.PassK = append(res.PassK, row)
			}
		}
	}
	if spec.Consistency {
		if res.Consistency, err = q.consistency(fr, worlds, groups, spec, &warn); err != nil {
			return nil, err
		}
	}
	res.Warnings = warn.items()
	return res, nil
}

// check validates a spec and fills in its defaults.
func (spec *RepeatsSpec) check() error {
	if len(spec.Outcomes) == 0 {
		spec.Outcomes = []string{"task_success", "eos"}
	}
	if len(spec.RepeatBy) == 0 {
		spec.RepeatBy = DefaultRepeatBy
	}
	if spec.Cluster == "" {
		spec.Cluster = "task"
	}
	if spec.Level == 0 {
		spec.Level = 0.95
	}
	if !(spec.Level > 0 && spec.Level < 1) {
		return fieldErr("Level", "{Level} %v: want a confidence level in (0, 1)", spec.Level)
	}
	for _, k := range spec.K {
		if k < 1 {
			return fieldErr("K", "{K} %d: want k ≥ 1", k)
		}
	}
	for _, lists := range []struct {
		field string
		cols  []string
	}{{"Outcomes", spec.Outcomes}, {"RepeatBy", spec.RepeatBy}, {"By", spec.By}} {
		for i, c := range lists.cols {
			if slices.Contains(lists.cols[:i], c) {
				return fieldErr(lists.field, "{"+lists.field+"} lists %s twice", c)
			}
		}
	}
	return nil
}

// fill sets the row's estimate from the worlds' cells.
func (r *RepeatRow) fill(cells []stats.MeanCell, level float64) {
	e := stats.MeanCI(cells, true, level)
	r.Estimate, r.SE, r.Clusters = e.Mean, e.SE, e.Clusters
	r.Lo, r.Hi = math.Max(0, e.Lo), math.Min(1, e.Hi)
	if math.IsNaN(e.Lo) {
		r.Lo, r.Hi = math.NaN(), math.NaN()
	}
}

func groupText(by, levels []string) string {
	if len(by) == 0 {
		return ""
	}
	return byLabel(by, levels)
}

// collectWorlds groups the frame's rows into worlds (by RepeatBy) and
// the worlds into groups (by By, in sorted level order). A By or Cluster
// column that varies within a world is an error: add it to RepeatBy.
func collectWorlds(fr *frame.Frame, spec RepeatsSpec) ([]*world, [][]string, error) {
	cells := groupCells(fr, spec.RepeatBy)
	byGroups := groupCells(fr, spec.By)
	groupOf := make([]int, fr.Len())
	var groups [][]string
	for gi, g := range byGroups {
		groups = append(groups, g.levels)
		for _, i := range g.rows {
			groupOf[i] = gi
		}
	}
	cc := fr.Col(spec.Cluster)
	ids := fr.Col("episode_id")
	var out []*world
	for _, c := range cells {
		w := &world{success: make([]int, len(spec.Outcomes)), cluster: cc.Codes[c.rows[0]], group: groupOf[c.rows[0]]}
		for _, i := range c.rows {
			if groupOf[i] != w.group {
				return nil, nil, fieldErr("By", "{By}: world %s has runs in two groups; a {By} column must be constant within a world (add it to {RepeatBy})", c.label(spec.RepeatBy))
			}
			if cc.Codes[i] != w.cluster {
				return nil, nil, fieldErr("Cluster", "{Cluster} %s: world %s has runs in two clusters; worlds must be nested in clusters", spec.Cluster, c.label(spec.RepeatBy))
			}
			n := int(fr.Cells[i].N)
			w.n += n
			for oi, o := range spec.Outcomes {
				if fr.Col(o).Value(i) == 1 {
					w.success[oi] += n
				}
			}
			if ids != nil {
				w.ids = append(w.ids, ids.Level(i))
			}
		}
		out = append(out, w)
	}
	return out, groups, nil
}

// consistency measures, per group, how alike the runs of each world are
// (SameTools, SameOrder, SameFocalArgs) from their calls.
func (q *Query) consistency(fr *frame.Frame, worlds []*world, groups [][]string, spec RepeatsSpec, warn *warnings) ([]RepeatRow, error) {
	files, ok := q.Source.(*table.Files)
	if !ok {
		return nil, fieldErr("Consistency", "{Consistency} reads the calls of ledger files; this source is %T", q.Source)
	}
	want := map[string]bool{}
	focal := map[string]string{}
	fw, ids := fr.Col("focal_write"), fr.Col("episode_id")
	for i := range fr.Cells {
		want[ids.Level(i)] = true
		focal[ids.Level(i)] = fw.Level(i)
	}
	calls, err := readCalls(files, want)
	if err != nil {
		return nil, err
	}
	missing := 0
	for id := range want {
		if _, ok := calls[id]; !ok {
			missing++
		}
	}
	if missing == len(want) {
		return nil, fieldErr("Consistency", "{Consistency}: none of the %d episodes has calls; it needs a raw JSONL ledger or a Parquet episode table with its .calls.parquet beside it", len(want))
	}
	if missing > 0 {
		warn.addf(WarnMissingRows, "consistency: %d episode(s) without calls are compared as runs that called nothing", missing)
	}
	var out []RepeatRow
	for gi, g := range groups {
		for _, m := range []string{SameTools, SameOrder, SameFocalArgs} {
			row := RepeatRow{Levels: g, Measure: m}
			var cells []stats.MeanCell
			for _, w := range worlds {
				if w.group != gi {
					continue
				}
				if w.n < 2 {
					row.Excluded++
					continue
				}
				sig := map[string]int{}
				for _, id := range w.ids {
					sig[signature(m, calls[id], focal[id])]++
				}
				sizes := make([]int, 0, len(sig))
				for _, s := range slices.Sorted(maps.Keys(sig)) {
					sizes = append(sizes, sig[s])
				}
				row.Worlds++
				row.Episodes += int64(w.n)
				cells = append(cells, stats.MeanCell{Y: stats.PairAgreement(sizes), N: 1, SumW: 1, SumW2: 1, Cluster: int(w.cluster)})
			}
			row.fill(cells, spec.Level)
			out = append(out, row)
		}
	}
	return out, nil
}

// signature is what a consistency measure compares of a run: its set of
// tools, its sequence of tools, or the canonical arguments of its first
// call of the focal write ("" when it made none).
func signature(measure string, calls []ledger.Call, focalWrite string) string {
	switch measure {
	case SameTools:
		var tools []string
		for _, c := range calls {
			tools = append(tools, c.Tool)
		}
		slices.Sort(tools)
		return strings.Join(slices.Compact(tools), "\x00")
	case SameOrder:
		var tools []string
		for _, c := range calls {
			tools = append(tools, c.Tool)
		}
		return strings.Join(tools, "\x00")
	}
	for _, c := range calls {
		if c.Tool == focalWrite {
			return canonicalArgs(c.Args)
		}
	}
	return ""
}

// canonicalArgs re-encodes a call's JSON arguments with sorted keys and no
// spaces, less the idempotency_key (a fresh key per run is expected, and
// the call's idempotency_key column keeps it), so that two runs that send
// the same write compare equal; text that is not JSON is kept as it is.
func canonicalArgs(s string) string {
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		return s
	}
	if m, ok := v.(map[string]any); ok {
		delete(m, "idempotency_key")
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // maps encode with sorted keys
		return s
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// readCalls reads the calls of the episodes in want from the ledger
// files: a JSONL ledger's nested calls, a Parquet episode table's calls
// table beside it (X.calls.parquet, or a partitioned export's sibling
// dataset). Each episode's calls are in seq order.
func readCalls(files *table.Files, want map[string]bool) (map[string][]ledger.Call, error) {
	out := map[string][]ledger.Call{}
	opt := ledger.ReadOptions{Format: files.Format}
	keep := func(c *ledger.Call) {
		if want[c.EpisodeID] {
			out[c.EpisodeID] = append(out[c.EpisodeID], *c)
		}
	}
	for _, p := range files.Paths {
		srcs, err := ledger.ExpandInput(p)
		if err != nil {
			return nil, err
		}
		for _, s := range srcs {
			format := strings.ToLower(strings.TrimPrefix(filepath.Ext(s.Path), "."))
			if files.Format != "" {
				format = files.Format
			}
			switch format {
			case "jsonl", "ndjson":
				if err := ledger.ReadRaw(s.Path, opt, func(r *ledger.RawEpisode) error {
					for i := range r.Calls {
						c := r.Calls[i]
						c.EpisodeID = r.EpisodeID
						keep(&c)
					}
					return nil
				}); err != nil {
					return nil, err
				}
			case "parquet":
				calls, _ := s.Siblings()
				if calls == "" {
					calls, _ = ledger.SiblingPaths(s.Path)
				}
				if _, err := os.Stat(calls); err != nil {
					continue // an episode table alone: its episodes have no calls
				}
				if err := ledger.ReadCalls(calls, ledger.ReadOptions{}, func(c *ledger.Call) error { keep(c); return nil }); err != nil {
					return nil, err
				}
			}
		}
	}
	for id, cs := range out {
		slices.SortStableFunc(cs, func(a, b ledger.Call) int { return cmp.Compare(a.Seq, b.Seq) })
		out[id] = cs
	}
	return out, nil
}

// String is the row's measure as a report names it: "pass^2 eos" or
// "same_order".
func (r RepeatRow) String() string {
	if r.Measure == "pass^k" {
		return fmt.Sprintf("pass^%d %s", r.K, r.Outcome)
	}
	return r.Measure
}
