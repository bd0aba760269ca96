package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/report"
)

func newTOSTCmd(e *env) *cobra.Command {
	var o inputOptions
	var spec analysis.TOSTSpec
	c := &cobra.Command{
		Use:   "tost --in FILE --outcome COL --arm COL --a L1 --b L2 [--margin 0.05]",
		Short: "Two one-sided tests of equivalence of two proportions",
		Long: `tost tests whether the proportions of the binary --outcome in two levels of
--arm (--a and --b) are equivalent within ±--margin: H₀ |p_a − p_b| ≥ margin.
diff = p_a − p_b; p_tost is the larger of the two one-sided p-values and
equivalent means p_tost < 0.05 (the 90% interval lies inside ±margin).

Independent samples use --method agresti-caffo (default, as statsmodels),
wald or score (Miettinen–Nurminen); newcombe90 is the Newcombe hybrid score
interval. With --paired-by COLS the episodes are matched as in 'paired'
(sorted by episode_id within each key) and the paired Wald test is used,
with Newcombe's square-and-add interval. The tests take counts, so tost is
unweighted.

Examples:
  limbo-analyze tost --in runs.parquet --outcome eos --arm condition --a vanilla --b aware --margin 0.05
  limbo-analyze tost --in runs.csv --outcome eos --arm condition --a vanilla --b guard --paired-by pair_key,contract --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(spec.PairedBy) > 0 && cmd.Flags().Changed("method") {
				return usagef("--method applies to independent samples; with --paired-by the paired Wald test is used")
			}
			return emit(e, o.Format, report.TOST)(analysis.TOST(o.query(e), spec))
		},
	}
	addInputFlags(c, &o, `not supported: tost is unweighted`)
	f := c.Flags()
	f.StringVar(&spec.Outcome, "outcome", "", "binary outcome column (required)")
	f.StringVar(&spec.Arm, "arm", "", "column whose two levels are compared (required)")
	f.StringVar(&spec.A, "a", "", "first level of --arm (diff = p_a − p_b)")
	f.StringVar(&spec.B, "b", "", "second level of --arm")
	f.Float64Var(&spec.Margin, "margin", 0.05, "equivalence margin on the difference of proportions")
	nameVar(f, &spec.Method, "method", "agresti-caffo", "independent-samples test: wald, agresti-caffo or score")
	f.StringSliceVar(&spec.PairedBy, "paired-by", nil, "match episodes on these columns and use the paired test")
	return c
}
