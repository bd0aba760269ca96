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

// Check validates the spec as every analysis that bootstraps does (an
// error is a *SpecError naming the field), for a caller that hands it on
// to code that does not check it itself, such as the paper's tables.
func (b BootstrapSpec) Check() error { return b.check() }

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
	// pattern, when set (pool), maps each row to its covariate pattern
	// over the columns but the cluster; a scaled replicate then sums its
	// rows into one row per pattern (rep[k] the first row of pattern k),
	// so that a fit reads as few rows as the data without clusters.
	pattern []int
	rep     []int
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

// pool makes scaled replicates sum their rows by covariate pattern over
// the columns but the cluster (the cluster column then holds the first
// row's value, which no fit may read).
func (r *resampler) pool(cluster string) {
	index := map[string]int{}
	key := make([]byte, 0, 4*len(r.fr.Cols))
	r.pattern = make([]int, r.fr.Len())
	for i := range r.fr.Cells {
		key = key[:0]
		for _, c := range r.fr.Cols {
			if c.Name != cluster {
				code := c.Codes[i]
				key = append(key, byte(code), byte(code>>8), byte(code>>16), byte(code>>24))
			}
		}
		k, ok := index[string(key)]
		if !ok {
			k = len(r.rep)
			index[string(key)] = k
			r.rep = append(r.rep, i)
		}
		r.pattern[i] = k
	}
}

// frame returns the replicate frame of the cluster counts.
func (r *resampler) frame(counts []int) *frame.Frame {
	fr := r.fr
	out := &frame.Frame{HasOutcome: fr.HasOutcome, HasWeight: fr.HasWeight}
	if r.pattern != nil && len(r.relabel) == 0 {
		cells := make([]frame.Cell, len(r.rep))
		for i, c := range fr.Cells {
			m := counts[r.cluster[i]]
			if m == 0 {
				continue
			}
			fm := float64(m)
			cells[r.pattern[i]].Add(frame.Cell{N: c.N * int64(m), Events: c.Events * int64(m), SumW: c.SumW * fm, SumW2: c.SumW2 * fm, SumWY: c.SumWY * fm})
		}
		var keep []int
		for k, c := range cells {
			if c.N > 0 {
				keep = append(keep, k)
				out.Cells = append(out.Cells, c)
				out.Rows += c.N
			}
		}
		for _, col := range fr.Cols {
			nc := *col
			nc.Codes = make([]int32, len(keep))
			for j, k := range keep {
				nc.Codes[j] = col.Codes[r.rep[k]]
			}
			out.Cols = append(out.Cols, &nc)
		}
		return out
	}
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
		warn.addf(WarnFewClusters, "bootstrap: only %d clusters of %s; cluster-bootstrap intervals are too narrow with few clusters", info.Clusters, info.Cluster)
	}
}

// nanRow reports whether a replicate row has an undefined estimate.
func nanRow(row []float64) bool { return slices.ContainsFunc(row, math.IsNaN) }

// ratioBoot bootstraps ratio estimators over clusters: statistic k is
// Σ_c num[k][c] / Σ_c den[k][c] (a weighted proportion, a mean
// difference per pair), so that a replicate with cluster counts m is
// Σ_c m_c num[k][c] / Σ_c m_c den[k][c] and its jackknife leaves one
// cluster's sums out. A statistic whose denominator is 0 in a replicate
// (its clusters not drawn) is left out of that statistic's intervals;
// undefined counts, per statistic, the replicates so left out.
func ratioBoot(num, den [][]float64, bs BootstrapSpec) (iv []*BootInterval, undefined []int) {
	k := len(num)
	nc := 0
	if k > 0 {
		nc = len(num[0])
	}
	theta := make([]float64, k)
	totN, totD := make([]float64, k), make([]float64, k)
	for j := range k {
		for c := range nc {
			totN[j] += num[j][c]
			totD[j] += den[j][c]
		}
		theta[j] = totN[j] / totD[j]
	}
	ratio := func(n, d float64) float64 {
		if d == 0 {
			return math.NaN()
		}
		return n / d
	}
	reps, _ := stats.Replicates(bs.Replicates, k, bs.Seed, bs.Jobs, func(_ int, rng *rand.Rand, out []float64) error {
		m := clusterCounts(rng, nc)
		for j := range k {
			var n, d float64
			for c, w := range m {
				if w > 0 {
					n += float64(w) * num[j][c]
					d += float64(w) * den[j][c]
				}
			}
			out[j] = ratio(n, d)
		}
		return nil
	})
	jack, _ := stats.Jackknife(nc, k, bs.Jobs, func(i int, out []float64) error {
		for j := range k {
			out[j] = ratio(totN[j]-num[j][i], totD[j]-den[j][i])
		}
		return nil
	})
	undefined = make([]int, k)
	for r := range bs.Replicates {
		for j := range k {
			if math.IsNaN(reps[r*k+j]) {
				undefined[j]++
			}
		}
	}
	iv = make([]*BootInterval, k)
	for j := range k {
		iv[j] = bootInterval(reps, k, j, theta[j], jack, bs.Level)
	}
	return iv, undefined
}

// checkCluster is check for the analyses whose bootstrap resamples
// clusters only: with replicates, Cluster is required.
func (b *BootstrapSpec) checkCluster() error {
	if err := b.check(); err != nil {
		return err
	}
	if b.Replicates > 0 && b.Cluster == "" {
		return fieldErr("Cluster", "a cluster bootstrap needs the column whose clusters it resamples ({Cluster}), e.g. task")
	}
	return nil
}

// pairClusters numbers the clusters of a paired bootstrap: a pair
// belongs to its base episode's cluster; pairs whose episodes sit in
// different clusters are counted for a warning.
type pairClusters struct {
	col   *frame.Column
	index []int
	n     int
	split int
}

func newPairClusters(col *frame.Column) *pairClusters {
	index, n := clusterIndex(col)
	return &pairClusters{col: col, index: index, n: n}
}

// of is the cluster of the pair (b, o).
func (c *pairClusters) of(b, o int) int {
	if c.col.Codes[b] != c.col.Codes[o] {
		c.split++
	}
	return c.index[c.col.Codes[b]]
}

// info is the bootstrap's description, with its warnings.
func (c *pairClusters) info(bs BootstrapSpec, warn *warnings) *BootstrapInfo {
	if c.split > 0 {
		warn.addf(WarnUndefined, "bootstrap: %d pair(s) have their episodes in different clusters of %s; each is resampled with its base episode's cluster", c.split, bs.Cluster)
	}
	info := &BootstrapInfo{Kind: "cluster", Replicates: bs.Replicates, Cluster: bs.Cluster, Clusters: c.n, Seed: bs.Seed, Level: bs.Level, Interval: bs.Interval}
	bootWarnings(info, warn)
	return info
}
