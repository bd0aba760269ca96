package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/report"
)

func newPairedCmd(e *env) *cobra.Command {
	var o inputOptions
	var spec analysis.PairedSpec
	c := &cobra.Command{
		Use:   "paired --in FILE --outcome COL --arm COL --base LEVEL --pair-by a,b,c",
		Short: "McNemar (or paired t, Wilcoxon) tests of a base arm against every other arm on matched episodes",
		Long: `paired compares the binary --outcome of the --base level of --arm with each
other level on matched episodes. Within each --pair-by key, the base and the
other arm's episodes are sorted by episode_id and paired k-th with k-th;
unmatched episodes are dropped and counted in the warnings.

For each comparison, b counts pairs where only the base succeeds and c pairs
where only the other does; gain_pp = 100·(b−c)/pairs; p is the two-sided
exact McNemar test (--test midp, chi2 or chi2cc for the others) and p_adj
adjusts over exactly the comparisons reported (Holm by default; --adjust
bonferroni, bh for Benjamini–Hochberg, by for Benjamini–Yekutieli or none). Unweighted
unless --weight COL: gain_pp then weights each pair by its base episode's
weight, while b, c and p stay unweighted counts.

A numeric --outcome (tool_calls, agent_time_s, cost_usd, or any column with
a number other than 0 and 1; --test t or wilcoxon forces it) is compared by
its differences base − other on the same pairs: mean_diff with its 95% t
interval, t on pairs−1 df and the paired t test's p (--test t, the default:
R's t.test(paired = TRUE)), or with --test wilcoxon the signed-rank V and its
p (R's wilcox.test(paired = TRUE): zero differences dropped, exact below 50
pairs without ties or zeros, else the normal approximation with continuity
and tie corrections). Numeric comparisons are unweighted.

--bootstrap N adds a cluster-bootstrap interval of each gain_pp (or
mean_diff): N replicates draw the clusters of --cluster COL (e.g. task)
with replacement, a pair belonging to its base episode's cluster, and
recompute the gain on the pairs drawn; boot_lo and boot_hi are the BCa
interval (--interval percentile for the percentile one). Seeded by --seed
and the replicate index, so --jobs does not change the intervals.

Examples:
  limbo-analyze paired --in runs.parquet --outcome duplicated --arm condition --base vanilla --pair-by pair_key,contract
  limbo-analyze paired --in runs.csv --outcome eos --arm condition --base vanilla --pair-by pair_key --levels aware,guard --adjust bh --format json
  limbo-analyze paired --in runs.csv --outcome agent_time_s --arm condition --base vanilla --pair-by pair_key --test wilcoxon
  limbo-analyze paired --in runs.parquet --outcome eos --arm condition --base vanilla --pair-by pair_key --bootstrap 1000 --cluster task`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := bootstrapOnly(cmd.Flags()); err != nil {
				return err
			}
			if cmd.Flags().Changed("cluster") && spec.Bootstrap.Replicates == 0 {
				return usagef("--cluster applies with --bootstrap N")
			}
			return emit(e, o.Format, report.Paired)(analysis.Paired(o.query(e), spec))
		},
	}
	addInputFlags(c, &o, `weight column for gain_pp, or "none" (default: unweighted)`)
	f := c.Flags()
	f.StringVar(&spec.Outcome, "outcome", "", "binary outcome column (required)")
	f.StringVar(&spec.Arm, "arm", "", "column whose levels are compared, e.g. condition (required)")
	f.StringVar(&spec.Base, "base", "", "the level of --arm every other level is compared with (required)")
	f.StringSliceVar(&spec.PairBy, "pair-by", nil, "columns that match episodes across arms (required)")
	f.StringSliceVar(&spec.Levels, "levels", nil, "compare only these levels of --arm (default: all present)")
	nameVar(f, &spec.Test, "test", "", "binary outcome, McNemar: exact (default), midp, chi2 or chi2cc; numeric: t (default) or wilcoxon")
	nameVar(f, &spec.Adjust, "adjust", "holm", "multiplicity adjustment: holm, bonferroni, bh, by or none")
	f.StringVar(&spec.Bootstrap.Cluster, "cluster", "", "--bootstrap: resample the clusters of this column (e.g. task)")
	addBootstrapFlags(f, &spec.Bootstrap)
	return c
}
