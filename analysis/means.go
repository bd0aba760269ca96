package analysis

import (
	"fmt"
	"math"
	"slices"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// MeansSpec is a Means analysis: the mean of a numeric column in each
// group of By, the counterpart of Rates for a numeric outcome.
type MeansSpec struct {
	Outcome string   // numeric column (required): tool_calls, agent_time_s, cost_usd, …
	By      []string // group columns; none = one group "all"
	// Cluster, when set, makes the standard error cluster-robust (CR1)
	// over this column's levels, with a t on G − 1 degrees of freedom.
	Cluster string
	Level   float64 // confidence level; 0 = 0.95
	// DefaultWeight weights by the ledger's "weight" column when the
	// query names no weight and every input has one, as RatesSpec's.
	DefaultWeight bool
}

// MeanRow is one group of a Means result.
type MeanRow struct {
	Levels   []string // the group's level of each By column
	N        int64    // rows (unweighted)
	SumW     float64  // Σw (N when unweighted)
	Mean     float64  // Σw·y/Σw; NaN when Σw = 0
	SD       float64  // √(Σw(y−ȳ)²/Σw · n/(n−1)); NaN when n < 2
	SE       float64  // sandwich SE of Mean: HC1, or CR1 with Cluster
	Clusters int      // G, the distinct clusters (N without Cluster)
	DF       float64  // degrees of freedom of the t interval, G − 1
	Lo, Hi   float64  // t interval at Spec.Level
}

// MeansResult is the result of Means.
type MeansResult struct {
	Spec     MeansSpec
	Weight   string        // the weight column used; "" unweighted
	Kinds    []ledger.Kind // the kind of each By column
	Rows     []MeanRow     // groups in sorted level order
	Warnings []Warning
}

// Means computes, for each group of spec.By, the (weighted) mean of the
// numeric spec.Outcome with a confidence interval from the sandwich
// standard error of the intercept-only weighted least-squares fit
// (stats.MeanCI): without Cluster, HC1, which unweighted is s/√n, the
// one-sample t interval (R's t.test); with Cluster, CR1 over the
// clusters within the group, as R's sandwich::vcovCL(type = "HC1") or
// statsmodels' cov_type "cluster", with a t on G − 1 degrees of freedom.
// A value that is not a finite number is an error naming the column (and,
// read from a file, its line); a null is left out with a warning; a
// group whose mean or interval is undefined (all weights zero, one row,
// one cluster) has NaN there, with a warning. Reading collapses rows into
// patterns of (group, cluster, value): memory grows with the distinct
// values, not with the rows.
func Means(q Query, spec MeansSpec) (*MeansResult, error) {
	var warn warnings
	switch {
	case spec.Outcome == "":
		return nil, fieldf("Outcome", "a numeric column is required")
	case slices.Contains(spec.By, spec.Outcome):
		return nil, fieldf("Outcome", "%s is also a By column", spec.Outcome)
	case spec.Cluster == spec.Outcome:
		return nil, fieldf("Cluster", "%s is the outcome", spec.Cluster)
	case spec.Level == 0:
		spec.Level = 0.95
	case !(spec.Level > 0 && spec.Level < 1):
		return nil, fieldf("Level", "%v: want a confidence level in (0, 1)", spec.Level)
	}
	for i, c := range spec.By {
		if slices.Contains(spec.By[:i], c) {
			return nil, fieldf("By", "lists %s twice", c)
		}
	}
	if k, ok := schemaKind(spec.Outcome); ok && k == ledger.KindString {
		return nil, fieldf("Outcome", "%s is a text column, not a number", spec.Outcome)
	}
	weight, err := q.weightColumn(spec.DefaultWeight, "means", &warn)
	if err != nil {
		return nil, err
	}
	keys := slices.Clone(spec.By)
	if spec.Cluster != "" && !slices.Contains(keys, spec.Cluster) {
		keys = append(keys, spec.Cluster)
	}
	fr, err := q.readFrame(frame.Spec{Columns: append(slices.Clone(keys), spec.Outcome), Weight: weight, Collapse: true,
		Check: numberCheck(spec.Outcome)}, &warn)
	if err != nil {
		return nil, err
	}
	if err := checkWeights(fr, weight); err != nil {
		return nil, err
	}
	res := &MeansResult{Spec: spec, Weight: weight}
	for _, c := range spec.By {
		res.Kinds = append(res.Kinds, fr.Col(c).Kind)
	}
	y := fr.Col(spec.Outcome)
	var cl *frame.Column
	if spec.Cluster != "" {
		cl = fr.Col(spec.Cluster)
	}
	for _, g := range groupCells(fr, spec.By) {
		cells := make([]stats.MeanCell, len(g.rows))
		for k, i := range g.rows {
			c := fr.Cells[i]
			cells[k] = stats.MeanCell{Y: y.Value(i), N: c.N, SumW: c.SumW, SumW2: c.SumW2}
			if cl != nil {
				cells[k].Cluster = int(cl.Codes[i])
			}
		}
		e := stats.MeanCI(cells, cl != nil, spec.Level)
		label := g.label(spec.By)
		switch {
		case e.SumW == 0:
			warn.addf(WarnZeroWeight, "group %s: all weights are zero; the mean is undefined", label)
		case cl != nil && e.Clusters < 2:
			warn.addf(WarnUndefined, "group %s: one cluster of %s; the interval is undefined", label, spec.Cluster)
		case e.N < 2:
			warn.addf(WarnUndefined, "group %s: one row; the SD and the interval are undefined", label)
		}
		if inf := slices.ContainsFunc([]float64{e.Mean, e.SD, e.SE, e.Lo, e.Hi}, func(x float64) bool { return math.IsInf(x, 0) }); inf {
			warn.addf(WarnUndefined, "group %s: the mean, SD or interval of %s is beyond the largest number (±1.8e308) and reads as ±Inf", label, spec.Outcome)
		}
		res.Rows = append(res.Rows, MeanRow{Levels: g.levels, N: e.N, SumW: e.SumW / fr.WeightScale, Mean: e.Mean, SD: e.SD, SE: e.SE,
			Clusters: e.Clusters, DF: e.DF, Lo: e.Lo, Hi: e.Hi})
	}
	res.Warnings = warn.items()
	return res, nil
}

// numberCheck validates a row's value of col: a finite number (or a
// boolean, as 0/1); the error is a ledger.Problem naming the column, which
// the reader places at the row's file and line.
func numberCheck(col string) func(frame.Row) error {
	return func(r frame.Row) error {
		v, _ := r.Get(col)
		x, ok := frame.Number(v)
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
			return ledger.Problem{Field: col, Msg: fmt.Sprintf("value %q is not a number (a mean needs a numeric column)", v.String())}
		}
		return nil
	}
}
