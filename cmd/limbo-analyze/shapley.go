package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/report"
)

func newShapleyCmd(e *env) *cobra.Command {
	var o inputOptions
	var spec analysis.ShapleySpec
	var refs []string
	c := &cobra.Command{
		Use:   "shapley --in FILE --formula \"Y ~ a + b + c\" [--r2 mcfadden]",
		Short: "Shapley decomposition of a logistic pseudo-R² over the formula's terms",
		Long: `shapley splits the pseudo-R² of the logistic model of the formula among its
terms: each term is a player (a factor contributes all its dummy columns),
the value of a set of terms is the pseudo-R² of the model with the intercept
and those terms, and a term's share is its Shapley value (the LMG / general
dominance decomposition; 2^k fits for k terms). --r2 chooses McFadden
(default), Nagelkerke, Tjur or Cox–Snell. Rows are collapsed to covariate
patterns, so factor-only formulas over millions of rows stream with memory
bounded by the number of patterns. A subset whose fit separates contributes
its finite supremum log-likelihood, and columns aliased with others are
left out of a subset's fit (its likelihood does not change); both are
reported in the warnings. Unweighted unless --weight COL.

--bootstrap N adds cluster-bootstrap intervals of the shares (boot_lo,
boot_hi; BCa, or --interval percentile) and of the total: each of N
replicates draws the clusters of --cluster COL with replacement and
decomposes again (2^k fits a replicate). Seeded by --seed and the replicate
index, so --jobs does not change them.

Examples:
  limbo-analyze shapley --in runs.parquet --formula "duplicated ~ contract + fault_mode + model + harness"
  limbo-analyze shapley --in runs.csv --formula "eos ~ condition + model" --r2 nagelkerke --format json
  limbo-analyze shapley --in runs.parquet --formula "duplicated ~ contract + fault_mode + model" --bootstrap 200 --cluster task`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if spec.Refs, err = parseRefs(refs); err != nil {
				return err
			}
			if err := bootstrapOnly(cmd.Flags()); err != nil {
				return err
			}
			if cmd.Flags().Changed("cluster") && spec.Bootstrap.Replicates == 0 {
				return usagef("--cluster applies with --bootstrap N")
			}
			return emit(e, o.Format, report.Shapley)(analysis.Shapley(o.query(e), spec))
		},
	}
	addInputFlags(c, &o, `weight column, or "none" (default: unweighted)`)
	f := c.Flags()
	f.StringVar(&spec.Formula, "formula", "", `logistic model, e.g. "duplicated ~ contract + fault_mode + model" (required)`)
	nameVar(f, &spec.R2, "r2", "mcfadden", "pseudo-R²: mcfadden, nagelkerke, tjur or coxsnell")
	f.StringArrayVar(&refs, "ref", nil, "reference level of a factor, col=level (repeatable; does not change the values)")
	f.StringVar(&spec.Bootstrap.Cluster, "cluster", "", "--bootstrap: resample the clusters of this column (e.g. task)")
	addBootstrapFlags(f, &spec.Bootstrap)
	return c
}
