package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/enum"
	"github.com/limbo-toolkit/limbo/stats"
)

// BootMethod is the bootstrap interval a renderer shows when it shows one
// (the paper's tables); results carry both.
type BootMethod string

// The bootstrap intervals.
const (
	BootBCa        BootMethod = "bca"        // bias-corrected and accelerated (Efron 1987), the default
	BootPercentile BootMethod = "percentile" // percentile (Efron 1979)
)

// BootMethods lists the intervals, the default first.
var BootMethods = []BootMethod{BootBCa, BootPercentile}

// String returns the method's name.
func (m BootMethod) String() string { return string(m) }

// Valid reports whether m is one of BootMethods.
func (m BootMethod) Valid() bool { return slices.Contains(BootMethods, m) }

// MarshalText returns the method's name.
func (m BootMethod) MarshalText() ([]byte, error) { return []byte(m), nil }

// UnmarshalText accepts bca or percentile.
func (m *BootMethod) UnmarshalText(b []byte) error {
	return enum.Unmarshal("interval", b, BootMethods, m)
}

// BootstrapSpec asks an analysis for bootstrap intervals beside its own.
//
// A cluster bootstrap resamples the values of Cluster with replacement
// (whole clusters: every episode of a drawn cluster, as often as it is
// drawn) and recomputes the estimate on each replicate; the BCa
// acceleration comes from the jackknife over the same clusters. A GLMM is
// bootstrapped parametrically instead (new random effects and responses
// drawn from the fit, the model refitted; lme4's bootMer), with Cluster,
// when given, the unit of the jackknife. Replicate r draws from its own
// PCG stream keyed by (Seed, r) (stats.ReplicateRand), so the intervals
// are the same for any number of workers.
type BootstrapSpec struct {
	Replicates int        // 0: no bootstrap
	Cluster    string     // the column whose values are resampled, e.g. task
	Seed       uint64     // the replicates' seed
	Level      float64    // confidence level; 0 = the analysis's (0.95)
	Interval   BootMethod // the interval shown where one is: bca (default) or percentile
	Jobs       int        // parallel workers; 0 = GOMAXPROCS
}

// check validates the spec and fills in the defaults.
func (b *BootstrapSpec) check() error {
	if b.Replicates < 0 {
		return fieldErr("Replicates", "{Replicates} %d: want a number of bootstrap replicates ≥ 0", b.Replicates)
	}
	if b.Replicates == 0 {
		return nil
	}
	if b.Replicates < 50 {
		return fieldErr("Replicates", "{Replicates} %d: too few for an interval; use at least 50 (1,000 or more for BCa)", b.Replicates)
	}
	if b.Interval == "" {
		b.Interval = BootBCa
	}
	if !b.Interval.Valid() {
		return fieldf("Interval", "%q: want bca or percentile", b.Interval)
	}
	if b.Level == 0 {
		b.Level = 0.95
	}
	if !(b.Level > 0 && b.Level < 1) {
		return fieldErr("Level", "{Level} %v: want a confidence level in (0, 1)", b.Level)
	}
	return nil
}

// BootInterval is an estimate's bootstrap standard error and intervals.
type BootInterval struct {
	SE             float64 // the replicates' standard deviation
	PercLo, PercHi float64 // percentile interval
	BCaLo, BCaHi   float64 // BCa interval (NaN when undefined)
}

// Lo and Hi return the interval m (bca or percentile).
func (b *BootInterval) Bounds(m BootMethod) (lo, hi float64) {
	if m == BootPercentile {
		return b.PercLo, b.PercHi
	}
	return b.BCaLo, b.BCaHi
}

// BootstrapInfo says how a result's bootstrap intervals were made.
type BootstrapInfo struct {
	Kind       string // "cluster" or "parametric"
	Replicates int
	Failed     int    // replicates whose estimate could not be computed (left out)
	Cluster    string // the resampled (or, parametric, jackknifed) column
	Clusters   int
	Seed       uint64
	Level      float64
	Interval   BootMethod
}

// bootInterval summarises column j of the b×k replicate matrix reps for
// the estimate theta, with the jackknife values of the n×k matrix jack
// (nil: no acceleration).
func bootInterval(reps []float64, k, j int, theta float64, jack []float64, level float64) *BootInterval {
	col := stats.Column(reps, k, j)
	var jc []float64
	if jack != nil {
		jc = stats.Column(jack, k, j)
	}
	lo, hi := stats.PercentileCI(col, level)
	bca := stats.BCaCI(col, theta, jc, level)
	return &BootInterval{SE: stats.BootSE(col), PercLo: lo, PercHi: hi, BCaLo: bca.Lo, BCaHi: bca.Hi}
}

// clusterIndex numbers the levels of the cluster column of fr that occur,
// in code order: index[code] (−1 for a level no row has) and their count.
func clusterIndex(col *frame.Column) ([]int, int) {
	index := make([]int, len(col.Levels))
	for i := range index {
		index[i] = -1
	}
	for _, c := range col.Codes {
		index[c] = 0
	}
	n := 0
	for i, v := range index {
		if v == 0 {
			index[i] = n
			n++
		}
	}
	return index, n
}

// resampler builds the frame of a cluster-bootstrap replicate from the
// frame fr: every row of cluster c, counts[c] times.
type resampler struct {
	fr      *frame.Frame
	cluster []int // each row's cluster index
	n       int   // clusters
	// relabel are the columns (a GEE's clusters) whose copies of a drawn
	// cluster must stay distinct groups: the k-th copy of a row gets a
	// level of its own. Without them a replicate scales its rows instead
	// of copying them (exact for the likelihood of independent rows).
	relabel []string
}

// newResampler resamples fr by the clusters of column col.
func newResampler(fr *frame.Frame, col string, relabel []string) (*resampler, error) {
	c := fr.Col(col)
	if c == nil {
		return nil, fmt.Errorf("the frame lacks the cluster column %s", col)
	}
	index, n := clusterIndex(c)
	if n < 2 {
		return nil, fieldErr("Cluster", "{Cluster} %s has %d value(s) in the rows analysed; a cluster bootstrap needs at least 2 (better 30 or more)", col, n)
	}
	r := &resampler{fr: fr, cluster: make([]int, fr.Len()), n: n, relabel: relabel}
	for i, code := range c.Codes {
		r.cluster[i] = index[code]
	}
	for _, g := range relabel {
		// A group must lie within one cluster: resampling clusters then
		// resamples whole groups.
		gc := fr.Col(g)
		of := map[int32]int{}
		for i, code := range gc.Codes {
			if k, ok := of[code]; ok && k != r.cluster[i] {
				return nil, fieldErr("Cluster", "{Cluster} %s: the model's groups %s = %s span several clusters; resample a column the groups are nested in (or %s itself)", col, g, gc.Levels[code], g)
			}
			of[code] = r.cluster[i]
		}
	}
	return r, nil
}

// frame returns the replicate frame of the cluster counts.
func (r *resampler) frame(counts []int) *frame.Frame {
	fr := r.fr
	out := &frame.Frame{HasOutcome: fr.HasOutcome, HasWeight: fr.HasWeight}
	if len(r.relabel) == 0 {
		keep := make([]int, 0, fr.Len())
		for i := range fr.Cells {
			if counts[r.cluster[i]] > 0 {
				keep = append(keep, i)
			}
		}
		out.Cells = make([]frame.Cell, len(keep))
		for k, i := range keep {
			m := counts[r.cluster[i]]
			c := fr.Cells[i]
			fm := float64(m)
			out.Cells[k] = frame.Cell{N: c.N * int64(m), Events: c.Events * int64(m), SumW: c.SumW * fm, SumW2: c.SumW2 * fm, SumWY: c.SumWY * fm}
			out.Rows += out.Cells[k].N
		}
		for _, col := range fr.Cols {
			nc := *col
			nc.Codes = make([]int32, len(keep))
			for k, i := range keep {
				nc.Codes[k] = col.Codes[i]
			}
			out.Cols = append(out.Cols, &nc)
		}
		return out
	}
	var rows []int // source row of each replicate row
	var copyOf []int
	for i := range fr.Cells {
		for k := range counts[r.cluster[i]] {
			rows = append(rows, i)
			copyOf = append(copyOf, k)
		}
	}
	out.Cells = make([]frame.Cell, len(rows))
	for k, i := range rows {
		out.Cells[k] = fr.Cells[i]
		out.Rows += fr.Cells[i].N
	}
	for _, col := range fr.Cols {
		nc := *col
		nc.Codes = make([]int32, len(rows))
		if !slices.Contains(r.relabel, col.Name) {
			for k, i := range rows {
				nc.Codes[k] = col.Codes[i]
			}
			out.Cols = append(out.Cols, &nc)
			continue
		}
		// Copy k of level l becomes level l + k·L: distinct groups.
		L := int32(len(col.Levels))
		maxCopy := int32(0)
		for k, i := range rows {
			nc.Codes[k] = col.Codes[i] + int32(copyOf[k])*L
			maxCopy = max(maxCopy, int32(copyOf[k]))
		}
		nc.Levels = slices.Clone(col.Levels)
		nc.LevelNum = slices.Clone(col.LevelNum)
		for c := int32(1); c <= maxCopy; c++ {
			for l := range col.Levels {
				nc.Levels = append(nc.Levels, fmt.Sprintf("%s#%d", col.Levels[l], c))
				nc.LevelNum = append(nc.LevelNum, col.LevelNum[l])
			}
		}
		out.Cols = append(out.Cols, &nc)
	}
	return out
}

// resampled is a replicate's frame as a query source: the models read it
// as they read a frame of their own (readFrame), with no filter.
type resampled struct{ fr *frame.Frame }

func (s *resampled) Name() string                                            { return "a bootstrap replicate" }
func (s *resampled) Scan([]string, []string, func(*table.Batch) error) error { return errBuilt() }
func (s *resampled) IDs(func(int64) bool, func([]byte)) (int64, error)       { return 0, errBuilt() }
func (s *resampled) HasColumn(col string) (bool, error)                      { return s.fr.Col(col) != nil, nil }

// clusterCounts are the counts of replicate rng for n clusters.
func clusterCounts(rng *rand.Rand, n int) []int {
	counts := make([]int, n)
	stats.ClusterCounts(rng, counts)
	return counts
}

// leaveOut are the counts of the jackknife leaving cluster i out.
func leaveOut(n, i int) []int {
	counts := slices.Repeat([]int{1}, n)
	counts[i] = 0
	return counts
}

// bootWarnings adds the warnings of a bootstrap: failed replicates, few
// clusters.
func bootWarnings(info *BootstrapInfo, warn *warnings) {
	if info.Failed > 0 {
		warn.addf(WarnUndefined, "bootstrap: %d of %d replicates could not be computed (an estimate undefined on the resample) and are left out of the intervals", info.Failed, info.Replicates)
	}
	if info.Kind == "cluster" && info.Clusters < 30 {
		warn.addField(WarnFewClusters, "Cluster", "bootstrap: only %d clusters of {Cluster}; cluster-bootstrap intervals are too narrow with few clusters", info.Clusters)
	}
}

// nanRow reports whether a replicate row has an undefined estimate.
func nanRow(row []float64) bool { return slices.ContainsFunc(row, math.IsNaN) }
