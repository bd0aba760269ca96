package main

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

type ratesOptions struct {
	inputOptions
	Outcome string
	By      []string
	Cluster string
	ICCBy   []string
	Level   float64
}

func newRatesCmd(e *env) *cobra.Command {
	o := &ratesOptions{}
	c := &cobra.Command{
		Use:   "rates --in FILE --outcome COL [--by a,b] [--where EXPR]",
		Short: "Weighted proportions with Kish (or cluster) effective sizes and Wilson intervals",
		Long: `rates reports, for each group of --by, the proportion of episodes where the
binary --outcome holds, with a Wilson 95% interval on an effective sample size.

n and events are unweighted row counts; p = Σw·y/Σw with w the weight column
(the ledger's "weight" by default, when it has one; --weight none for unweighted, or any
numeric column); n_eff is Kish's (Σw)²/Σw². With --cluster COL, n_eff is
instead n/(1+(m̄−1)ρ̂), m̄ the group's mean cluster size and ρ̂ the one-way
ANOVA intra-cluster correlation of the outcome, estimated once over all rows
after --where (with --icc-by, within each stratum and pooled, weighting each
stratum by its number of clusters). Reading streams: memory grows with the
number of groups (and clusters), not with the rows.

Examples:
  limbo-analyze rates --in runs.parquet --outcome duplicated --by contract,fault_mode
  limbo-analyze rates --in runs.csv --outcome eos --by condition --where 'fault_fired && model == "m1"' --format json
  limbo-analyze rates --in runs.jsonl --outcome duplicated --by condition --cluster task --icc-by condition`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			if o.Outcome == "" {
				return usagef("--outcome is required")
			}
			if len(o.ICCBy) > 0 && o.Cluster == "" {
				return usagef("--icc-by needs --cluster")
			}
			if !(o.Level > 0 && o.Level < 1) {
				return usagef("--level %v: want a confidence level in (0, 1)", o.Level)
			}
			return runRates(e, o)
		},
	}
	addInputFlags(c, &o.inputOptions, `weight column, or "none" (default: the ledger's weight column)`)
	c.Flags().StringVar(&o.Outcome, "outcome", "", "binary outcome column (required)")
	c.Flags().StringSliceVar(&o.By, "by", nil, "group by these columns (comma-separated)")
	c.Flags().StringVar(&o.Cluster, "cluster", "", "cluster column (e.g. task) for a cluster design effect")
	c.Flags().StringSliceVar(&o.ICCBy, "icc-by", nil, "estimate the ICC within strata of these columns and pool it")
	c.Flags().Float64Var(&o.Level, "level", 0.95, "confidence level of the Wilson interval")
	return c
}

// rateRow is one group of the rates output.
type rateRow struct {
	Group  orderedObject `json:"group"`
	N      int64         `json:"n"`
	Events int64         `json:"events"`
	P      num           `json:"p"`
	NEff   num           `json:"n_eff"`
	Lo     num           `json:"lo"`
	Hi     num           `json:"hi"`
}

type ratesResult struct {
	Rows     []rateRow `json:"rows"`
	ICC      num       `json:"icc"`
	Warnings []string  `json:"warnings"`
}

func runRates(e *env, o *ratesOptions) error {
	var warn warnings
	weight := o.weightColumn("weight")
	if o.Weight == "" {
		// The default weight applies when the ledger has one: a user's
		// CSV or Parquet without a weight column is read unweighted.
		have, err := ledger.FileColumns(o.In, o.InFormat)
		if err != nil {
			return err
		}
		if have != nil && !slices.Contains(have, "weight") {
			weight = ""
			warn.addf("the ledger has no weight column; rates are unweighted")
		}
	}
	keys := slices.Clone(o.By)
	for _, c := range append([]string{o.Cluster}, o.ICCBy...) {
		if c != "" && !slices.Contains(keys, c) {
			keys = append(keys, c)
		}
	}
	for i, c := range o.By {
		if slices.Contains(o.By[:i], c) {
			return usagef("--by lists %s twice", c)
		}
	}
	fr, err := readFrame(e, &o.inputOptions, frame.Spec{Columns: keys, Outcome: o.Outcome, Weight: weight, Collapse: true}, &warn)
	if err != nil {
		return err
	}
	if err := checkWeights(fr, weight); err != nil {
		return err
	}
	groups := groupCells(fr, o.By)

	icc := math.NaN()
	var clusterCount []int // distinct clusters per group
	if o.Cluster != "" {
		icc = pooledICC(fr, o.Cluster, o.ICCBy, &warn)
		clusterCount = countClusters(fr, o.By, o.Cluster, groups)
	}

	z := stats.ZLevel(o.Level)
	res := ratesResult{ICC: num(icc)}
	t := &table{header: append(slices.Clone(o.By), "n", "events", "p", "n_eff", "lo", "hi")}
	if o.Cluster != "" {
		t.header = append(t.header, "icc")
	}
	if len(o.By) == 0 {
		t.header = append([]string{"group"}, t.header...)
	}
	for gi, g := range groups {
		c := g.cell
		p := math.Min(1, c.SumWY/c.SumW) // a subset sum cannot exceed the total but for rounding
		var neff float64
		if o.Cluster != "" && !math.IsNaN(icc) {
			mbar := float64(c.N) / float64(clusterCount[gi])
			neff = stats.ClusterNEff(float64(c.N), mbar, icc)
		} else {
			neff = c.KishESS()
		}
		if c.SumW == 0 {
			p, neff = math.NaN(), math.NaN()
			warn.addf("group %s: all weights are zero; p is undefined", g.label(o.By))
		}
		lo, hi := math.NaN(), math.NaN()
		if !math.IsNaN(p) {
			lo, hi = stats.Wilson(p, neff, z)
		}
		if neff < 1 {
			warn.addf("group %s: effective sample size %.3g < 1", g.label(o.By), neff)
		}
		obj := orderedObject{}
		var cells []any
		for j, col := range o.By {
			fc := fr.Col(col)
			obj.keys = append(obj.keys, col)
			obj.vals = append(obj.vals, typedLevel(fc, g.levels[j]))
			cells = append(cells, g.levels[j])
		}
		if obj.keys == nil {
			obj.keys, obj.vals = []string{}, []json.RawMessage{}
			cells = append(cells, "all")
		}
		res.Rows = append(res.Rows, rateRow{Group: obj, N: c.N, Events: c.Events, P: num(p), NEff: num(neff), Lo: num(lo), Hi: num(hi)})
		cells = append(cells, c.N, c.Events, p, neff, lo, hi)
		if o.Cluster != "" {
			cells = append(cells, icc)
		}
		t.add(cells...)
	}
	res.Warnings = warn.items()
	var pre []string
	if o.Cluster != "" {
		pre = append(pre, fmt.Sprintf("ICC (%s) = %s", o.Cluster, textCell(icc, 4)))
	}
	return render(e, o.Format, res, t, pre, &warn)
}

// cellGroup is one --by group: its levels and summed statistics, with the
// frame rows (patterns) it holds.
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
func countClusters(fr *frame.Frame, by []string, cluster string, groups []cellGroup) []int {
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

// pooledICC estimates the ANOVA ICC of the outcome over the clusters: over
// all rows, or within each stratum of iccBy and pooled as the mean weighted
// by each stratum's number of clusters (strata where it is undefined are
// left out with a warning).
func pooledICC(fr *frame.Frame, cluster string, iccBy []string, warn *warnings) float64 {
	strata := groupCells(fr, iccBy)
	cc := fr.Col(cluster)
	var sum, wsum float64
	for _, s := range strata {
		// ICCANOVA needs rows; a binary outcome is rebuilt from each
		// pattern's counts (order does not matter to the ANOVA).
		var y []float64
		var cl []int
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
		if math.IsNaN(rho) {
			warn.addf("ICC undefined in stratum %s (%d rows, %d clusters): fewer than two clusters, singleton clusters or a constant outcome", s.label(iccBy), len(y), len(clusters))
			continue
		}
		sum += rho * float64(len(clusters))
		wsum += float64(len(clusters))
	}
	if wsum == 0 {
		warn.addf("the ICC of %s is undefined; n_eff falls back to Kish's", cluster)
		return math.NaN()
	}
	return sum / wsum
}
