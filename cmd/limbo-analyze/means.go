package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/report"
)

func newMeansCmd(e *env) *cobra.Command {
	var o inputOptions
	var spec analysis.MeansSpec
	c := &cobra.Command{
		Use:   "means --in FILE --outcome COL [--by a,b] [--where EXPR] [--cluster COL]",
		Short: "Weighted means of a numeric column with t (or cluster-robust) intervals",
		Long: `means reports, for each group of --by, the mean of the numeric --outcome
(tool_calls, agent_time_s, cost_usd, focal_commits or any numeric column),
its SD and a 95% t interval: the counterpart of rates for a number.

n is the unweighted row count; mean = Σw·y/Σw with w the weight column (the
ledger's "weight" by default, when it has one; --weight none for unweighted,
or any numeric column); sd = √(Σw(y−ȳ)²/Σw · n/(n−1)), the sample SD when
unweighted. se is the sandwich SE of the intercept of the weighted
least-squares fit y ~ 1: HC1 (s/√n when unweighted, R's t.test), or with
--cluster COL the cluster-robust CR1 over the group's clusters (R's
sandwich::vcovCL, statsmodels' cov_type="cluster"); the interval is
mean ∓ t·se on n−1 (or G−1, G clusters) degrees of freedom. A value that is
not a number is an error naming the column and line; empty values are
left out with a warning; an undefined SD or interval is NaN (null in JSON).

Examples:
  limbo-analyze means --in runs.parquet --outcome agent_time_s --by condition
  limbo-analyze means --in runs.csv --outcome cost_usd --by condition,model --cluster task --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkLevel(spec.Level); err != nil {
				return err
			}
			spec.DefaultWeight = o.Weight == ""
			return emit(e, o.Format, report.Means)(analysis.Means(o.query(e), spec))
		},
	}
	addInputFlags(c, &o, `weight column, or "none" (default: the ledger's weight column)`)
	f := c.Flags()
	f.StringVar(&spec.Outcome, "outcome", "", "numeric outcome column (required)")
	f.StringSliceVar(&spec.By, "by", nil, "group by these columns (comma-separated)")
	f.StringVar(&spec.Cluster, "cluster", "", "cluster column (e.g. task) for a cluster-robust (CR1) interval")
	f.Float64Var(&spec.Level, "level", 0.95, "confidence level of the t interval")
	return c
}
