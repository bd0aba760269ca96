package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/report"
)

func newRatesCmd(e *env) *cobra.Command {
	var o inputOptions
	var spec analysis.RatesSpec
	c := &cobra.Command{
		Use:   "rates --in FILE --outcome COL [--by a,b] [--where EXPR]",
		Short: "Weighted proportions with Kish (or cluster) effective sizes and Wilson intervals",
		Long: `rates reports, for each group of --by, the proportion of episodes where the
binary --outcome holds, with a Wilson 95% interval on an effective sample size.

n and events are unweighted row counts; p = Σw·y/Σw with w the weight column
(the ledger's "weight" by default, when it has one; --weight none for unweighted, or any
numeric column); n_eff is Kish's (Σw)²/Σw². With --cluster COL, Kish's n_eff
is divided by the design effect 1+(m̄−1)ρ̂, m̄ the group's mean cluster size
and ρ̂ the one-way ANOVA intra-cluster correlation of the outcome, estimated
once over all rows after --where (with --icc-by, within each stratum and
pooled, weighting each stratum by its number of clusters); an undefined ρ̂
(a constant outcome, singleton clusters) leaves Kish's n_eff, with a
warning. Unlike the paper's tables, which cluster on task templates, rates
clusters only on the column you name. Reading streams: memory grows with
the number of groups (and clusters), not with the rows.

--bootstrap N adds cluster-bootstrap intervals beside Wilson's: N replicates
each draw the clusters of --cluster with replacement (every episode of a
drawn cluster, as often as it is drawn) and recompute each group's rate;
boot_lo and boot_hi are the BCa interval (Efron 1987; the acceleration from
the jackknife over the clusters), or with --interval percentile the
percentile one; CSV and JSON carry both and the bootstrap SE. Replicate r
draws from a stream seeded by --seed and r alone, so the intervals are the
same for any --jobs.

Examples:
  limbo-analyze rates --in runs.parquet --outcome duplicated --by contract,fault_mode
  limbo-analyze rates --in runs.csv --outcome eos --by condition --where 'fault_fired && model == "m1"' --format json
  limbo-analyze rates --in runs.jsonl --outcome duplicated --by condition --cluster task --icc-by condition
  limbo-analyze rates --in runs.parquet --outcome duplicated --by condition --cluster task --bootstrap 1000 --seed 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkLevel(spec.Level); err != nil {
				return err
			}
			if err := bootstrapOnly(cmd.Flags()); err != nil {
				return err
			}
			spec.DefaultWeight = o.Weight == ""
			spec.Bootstrap.Cluster = spec.Cluster
			return emit(e, o.Format, report.Rates)(analysis.Rates(o.query(e), spec))
		},
	}
	addInputFlags(c, &o, `weight column, or "none" (default: the ledger's weight column)`)
	f := c.Flags()
	f.StringVar(&spec.Outcome, "outcome", "", "binary outcome column (required)")
	f.StringSliceVar(&spec.By, "by", nil, "group by these columns (comma-separated)")
	f.StringVar(&spec.Cluster, "cluster", "", "cluster column (e.g. task) for a cluster design effect")
	f.StringSliceVar(&spec.ICCBy, "icc-by", nil, "estimate the ICC within strata of these columns and pool it")
	f.Float64Var(&spec.Level, "level", 0.95, "confidence level of the Wilson (and bootstrap) interval")
	addBootstrapFlags(f, &spec.Bootstrap)
	return c
}
