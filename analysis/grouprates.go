package analysis

import (
	"math"
	"slices"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// RatesSpec is a Rates analysis: the proportion of a binary outcome in each
// group of By.
type RatesSpec struct {
	Outcome string   // binary outcome column (required)
	By      []string // group columns; none = one group "all"
	// Cluster, when set, replaces Kish's n_eff by the cluster design
	// effect n/(1+(m̄−1)ρ̂) with ρ̂ the ANOVA ICC of Outcome over Cluster.
	Cluster string
	ICCBy   []string // estimate ρ̂ within these strata and pool it
	Level   float64  // Wilson confidence level; 0 = 0.95
	// DefaultWeight weights by the ledger's "weight" column when the
	// query names no weight and every input has one (with a warning when
	// one lacks it).
	DefaultWeight bool
	// Bootstrap adds cluster-bootstrap intervals (RateRow.Boot): the
	// rates of each replicate of Bootstrap.Cluster's clusters.
	Bootstrap BootstrapSpec
}

// RateRow is one group of a Rates result.
type RateRow struct {
	Levels []string      // the group's level of each By column
	N      int64         // rows (unweighted)
	Events int64         // rows with outcome 1 (unweighted)
	P      float64       // Σw·y/Σw; NaN when Σw = 0
	NEff   float64       // Kish's (Σw)²/Σw², or the clustered n_eff
	Lo, Hi float64       // Wilson interval on NEff
	Boot   *BootInterval // with RatesSpec.Bootstrap
}

// RatesResult is the result of Rates.
type RatesResult struct {
	Spec   RatesSpec
	Weight string        // the weight column used; "" unweighted
	Kinds  []ledger.Kind // the kind of each By column
	Rows   []RateRow     // groups in sorted level order
	ICC    float64       // the pooled ρ̂ (NaN without Cluster, or undefined)
	// Bootstrap says how RateRow.Boot was made (nil without
	// RatesSpec.Bootstrap).
	Bootstrap *BootstrapInfo
	Warnings  []Warning
}

// weightColumn is the weight column of an analysis with a DefaultWeight
// field (RatesSpec, MeansSpec): q.Weight when the query names one; with
// defaultWeight, the ledger's "weight" column when every input has one,
// and otherwise none with a warning that what (the results) are
// unweighted, so that a user's CSV or Parquet without a weight column is
// read unweighted; "" without defaultWeight.
func (q *Query) weightColumn(defaultWeight bool, what string, warn *warnings) (string, error) {
	if q.Weight != "" || !defaultWeight {
		return q.Weight, nil
	}
	ok, err := q.hasColumn("weight")
	if err != nil {
		return "", err
	}
	if !ok {
		warn.addField(WarnUnweighted, "Weight", "the ledger has no weight column; %s are unweighted", what)
		return "", nil
	}
	return "weight", nil
}

// Rates computes, for each group of spec.By, the weighted proportion of the
// binary outcome with a Wilson interval (Wilson 1927) on an effective
// sample size: Kish's (Σw)²/Σw² (Kish 1965, §11.7), with a cluster column
// divided by the design effect (designNEff)
//
//	n_eff = n_Kish / (1 + (m̄ − 1) ρ̂),
//
// m̄ the group's mean cluster size and ρ̂ the one-way ANOVA intra-cluster
// correlation of the outcome over all rows (stats.ICCANOVA), or within
// each ICCBy stratum pooled by its number of clusters. A constant outcome
// has no ICC: ρ̂ is NaN with a warning and n_eff falls back to Kish's.
// Reading streams into covariate patterns: memory grows with the number of
// groups and clusters, not with the rows.
func Rates(q Query, spec RatesSpec) (*RatesResult, error) {
	var warn warnings
	switch {
	case spec.Outcome == "":
		return nil, fieldErr("Outcome", "{Outcome} is required")
	case len(spec.ICCBy) > 0 && spec.Cluster == "":
		return nil, fieldErr("ICCBy", "{ICCBy} needs {Cluster}")
	case spec.Level == 0:
		spec.Level = 0.95
	case !(spec.Level > 0 && spec.Level < 1):
		return nil, fieldErr("Level", "{Level} %v: want a confidence level in (0, 1)", spec.Level)
	}
	for i, c := range spec.By {
		if slices.Contains(spec.By[:i], c) {
			return nil, fieldErr("By", "{By} lists %s twice", c)
		}
	}
	if spec.Bootstrap.Level == 0 {
		spec.Bootstrap.Level = spec.Level
	}
	if err := spec.Bootstrap.check(); err != nil {
		return nil, err
	}
	if spec.Bootstrap.Replicates > 0 && spec.Bootstrap.Cluster == "" {
		return nil, fieldErr("Cluster", "a bootstrap of rates resamples clusters: name the column ({Cluster}), e.g. task")
	}
	weight, err := q.weightColumn(spec.DefaultWeight, "rates", &warn)
	if err != nil {
		return nil, err
	}
	keys := slices.Clone(spec.By)
	for _, c := range slices.Concat([]string{spec.Cluster}, spec.ICCBy, []string{spec.Bootstrap.Cluster}) {
		if c != "" && !slices.Contains(keys, c) {
			keys = append(keys, c)
		}
	}
	fr, err := q.readFrame(frame.Spec{Columns: keys, Outcome: spec.Outcome, Weight: weight, Collapse: true}, &warn)
	if err != nil {
		return nil, err
	}
	if err := checkWeights(fr, weight); err != nil {
		return nil, err
	}
	groups := groupCells(fr, spec.By)
	res := &RatesResult{Spec: spec, Weight: weight, ICC: math.NaN()}
	for _, c := range spec.By {
		res.Kinds = append(res.Kinds, fr.Col(c).Kind)
	}
	var clusterCount []int // distinct clusters per group
	if spec.Cluster != "" {
		res.ICC = pooledClusterICC(fr, spec.Cluster, spec.ICCBy, &warn)
		clusterCount = countClusters(fr, spec.Cluster, groups)
	}
	z := stats.ZLevel(spec.Level)
	for gi, g := range groups {
		c := g.cell
		p := math.Min(1, c.SumWY/c.SumW) // a subset sum cannot exceed the total but for rounding
		clusters := 0
		if spec.Cluster != "" {
			clusters = clusterCount[gi]
		}
		neff := designNEff(float64(c.N), c.SumW, c.SumW2, clusters, res.ICC)
		if c.SumW == 0 {
			p, neff = math.NaN(), math.NaN()
			warn.addf(WarnZeroWeight, "group %s: all weights are zero; p is undefined", g.label(spec.By))
		}
		lo, hi := math.NaN(), math.NaN()
		if !math.IsNaN(p) {
			lo, hi = stats.Wilson(p, neff, z)
		}
		if neff < 1 {
			warn.addf(WarnSmallSample, "group %s: effective sample size %.3g < 1", g.label(spec.By), neff)
		}
		res.Rows = append(res.Rows, RateRow{Levels: g.levels, N: c.N, Events: c.Events, P: p, NEff: neff, Lo: lo, Hi: hi})
	}
	if spec.Bootstrap.Replicates > 0 {
		res.Bootstrap = bootRates(fr, groups, spec, res.Rows, &warn)
	}
	res.Warnings = warn.items()
	return res, nil
}

// bootRates adds cluster-bootstrap intervals to the rates of groups: the
// weighted proportion Σw·y/Σw is a ratio of cluster sums (ratioBoot).
func bootRates(fr *frame.Frame, groups []cellGroup, spec RatesSpec, rows []RateRow, warn *warnings) *BootstrapInfo {
	bs := spec.Bootstrap
	index, nc := clusterIndex(fr.Col(bs.Cluster))
	cc := fr.Col(bs.Cluster)
	num, den := make([][]float64, len(groups)), make([][]float64, len(groups))
	for gi, g := range groups {
		num[gi], den[gi] = make([]float64, nc), make([]float64, nc)
		for _, i := range g.rows {
			c := index[cc.Codes[i]]
			num[gi][c] += fr.Cells[i].SumWY
			den[gi][c] += fr.Cells[i].SumW
		}
	}
	iv, undefined := ratioBoot(num, den, bs)
	for gi := range rows {
		rows[gi].Boot = iv[gi]
		if undefined[gi] > 0 {
			warn.addf(WarnUndefined, "bootstrap: group %s has no episodes in %d of %d replicates; its intervals rest on the others", groups[gi].label(spec.By), undefined[gi], bs.Replicates)
		}
	}
	info := &BootstrapInfo{Kind: "cluster", Replicates: bs.Replicates, Cluster: bs.Cluster, Clusters: nc, Seed: bs.Seed, Level: bs.Level, Interval: bs.Interval}
	bootWarnings(info, warn)
	return info
}

// cellGroup is one group of a frame: its levels and summed statistics,
// with the frame rows (patterns) it holds.
type cellGroup struct {
	codes  []int32
	levels []string
	cell   frame.Cell
	rows   []int
}

func (g cellGroup) label(by []string) string {
	if len(by) == 0 {
		return "all"
	}
	s := ""
	for i, c := range by {
		if i > 0 {
			s += ", "
		}
		s += c + "=" + g.levels[i]
	}
	return s
}

// groupCells sums the frame's patterns by the levels of the by columns, in
// sorted level order.
func groupCells(fr *frame.Frame, by []string) []cellGroup {
	cols := make([]*frame.Column, len(by))
	for j, c := range by {
		cols[j] = fr.Col(c)
	}
	index := map[string]int{}
	var groups []cellGroup
	key := make([]byte, 0, 4*len(by))
	for i := range fr.Len() {
		key = key[:0]
		for _, c := range cols {
			code := c.Codes[i]
			key = append(key, byte(code), byte(code>>8), byte(code>>16), byte(code>>24))
		}
		gi, ok := index[string(key)]
		if !ok {
			gi = len(groups)
			index[string(key)] = gi
			g := cellGroup{}
			for _, c := range cols {
				g.codes = append(g.codes, c.Codes[i])
				g.levels = append(g.levels, c.Level(i))
			}
			groups = append(groups, g)
		}
		groups[gi].cell.Add(fr.Cells[i])
		groups[gi].rows = append(groups[gi].rows, i)
	}
	slices.SortFunc(groups, func(a, b cellGroup) int { return slices.Compare(a.codes, b.codes) })
	return groups
}

// countClusters returns the number of distinct clusters in each group.
func countClusters(fr *frame.Frame, cluster string, groups []cellGroup) []int {
	cc := fr.Col(cluster)
	out := make([]int, len(groups))
	for gi, g := range groups {
		seen := map[int32]bool{}
		for _, i := range g.rows {
			seen[cc.Codes[i]] = true
		}
		out[gi] = len(seen)
	}
	return out
}

// pooledClusterICC estimates the ANOVA ICC of the outcome over the
// clusters: over all rows, or within each stratum of iccBy and pooled as
// the mean weighted by each stratum's number of clusters (strata where it
// is undefined are left out with a warning).
func pooledClusterICC(fr *frame.Frame, cluster string, iccBy []string, warn *warnings) float64 {
	strata := groupCells(fr, iccBy)
	cc := fr.Col(cluster)
	var sum, wsum float64
	for _, s := range strata {
		// ICCANOVA needs rows; a binary outcome is rebuilt from each
		// pattern's counts (order does not matter to the ANOVA).
		var n int64
		for _, i := range s.rows {
			n += fr.Cells[i].N
		}
		y := make([]float64, 0, n)
		cl := make([]int, 0, n)
		clusters := map[int32]bool{}
		for _, i := range s.rows {
			c := fr.Cells[i]
			code := cc.Codes[i]
			clusters[code] = true
			for k := int64(0); k < c.N; k++ {
				cl = append(cl, int(code))
				yk := 0.0
				if k < c.Events {
					yk = 1
				}
				y = append(y, yk)
			}
		}
		rho := stats.ICCANOVA(y, cl)
		if math.IsNaN(rho) && len(iccBy) == 0 {
			warn.addf(WarnICCUndefined, "ICC undefined for %s (%d rows, %d clusters: fewer than two clusters, singleton clusters or a constant outcome); n_eff falls back to Kish's", cluster, len(y), len(clusters))
			return math.NaN()
		}
		if math.IsNaN(rho) {
			warn.addf(WarnICCUndefined, "ICC undefined in stratum %s (%d rows, %d clusters): fewer than two clusters, singleton clusters or a constant outcome", s.label(iccBy), len(y), len(clusters))
			continue
		}
		sum += rho * float64(len(clusters))
		wsum += float64(len(clusters))
	}
	if wsum == 0 {
		warn.addf(WarnICCUndefined, "the ICC of %s is undefined; n_eff falls back to Kish's", cluster)
		return math.NaN()
	}
	return sum / wsum
}
