package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/report"
)

type modelOptions struct {
	inputOptions
	Family     string
	Formula    string
	Refs       []string
	Group      string
	Corr       string
	Cov        string
	Convention string
	NAGQ       int
	Firth      bool
}

func newModelCmd(e *env) *cobra.Command {
	o := &modelOptions{}
	c := &cobra.Command{
		Use:   "model --in FILE --family logit|gee|glmm --formula \"Y ~ …\"",
		Short: "Logistic regression, GEE or a logistic GLMM over any columns",
		Long: `model fits a logistic model of a binary outcome with an R-like formula:
  Y ~ a + b + C(x)          string columns are factors (treatment coding, the
                            first level in sorted order is the reference unless
                            --ref col=level); numbers and booleans enter as
                            numbers; C(x) forces a factor
  Y ~ a + (1|model)         random intercepts (--family glmm only)

--family logit   maximum likelihood by IRLS (--firth for Firth's penalised
                 fit). Rows are collapsed to covariate patterns first, so
                 factor-only models on millions of rows are fast. Separated
                 terms are reported as warnings and their estimates as null
                 (use --firth for finite ones).
--family gee     marginal model with --group clusters, --corr exchangeable
                 (default) or independence, --cov robust (default),
                 bias-reduced (Mancl–DeRouen), kc (Kauermann–Carroll) or naive.
                 Rows are collapsed to (cluster, covariate pattern) cells,
                 which is exact, so memory follows the cells, not the rows.
--family glmm    random intercepts for each (1|g) term, Laplace (--nagq 1,
                 default) or adaptive Gauss–Hermite (--nagq N, one group).

Coefficients are named (Intercept), a numeric column's name, or col[level];
or, or_lo and or_hi are exp(estimate) with its 95% Wald interval.
Unweighted unless --weight COL (logit only).

Examples:
  limbo-analyze model --in runs.parquet --family logit --formula "duplicated ~ contract + fault_mode + model"
  limbo-analyze model --in runs.csv --family gee --formula "eos ~ condition" --group task --cov bias-reduced --format json
  limbo-analyze model --in runs.csv --family glmm --formula "duplicated ~ contract + (1|model) + (1|template)"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			refs, err := analysis.ParseRefs(o.Refs)
			if err != nil {
				return usageError{err}
			}
			if o.NAGQ < 1 {
				return usagef("--nagq %d: want 1 (Laplace) or more quadrature nodes", o.NAGQ)
			}
			q := o.query(e)
			return emit(e, o.Format, report.Model)(analysis.Model(q, analysis.ModelSpec{Family: o.Family, Formula: o.Formula, Refs: refs, Firth: o.Firth,
				Group: o.Group, Corr: o.Corr, Cov: o.Cov, Convention: o.Convention, NAGQ: o.NAGQ}))
		},
	}
	addInputFlags(c, &o.inputOptions, `weight column (logit only), or "none" (default: unweighted)`)
	fl := c.Flags()
	fl.StringVar(&o.Family, "family", "logit", "model family: logit, gee or glmm")
	fl.StringVar(&o.Formula, "formula", "", `model formula, e.g. "duplicated ~ contract + fault_mode" (required)`)
	fl.StringArrayVar(&o.Refs, "ref", nil, "reference level of a factor, col=level (repeatable)")
	fl.StringVar(&o.Group, "group", "", "cluster column for --family gee")
	fl.StringVar(&o.Corr, "corr", "exchangeable", "GEE working correlation: exchangeable or independence")
	fl.StringVar(&o.Cov, "cov", "robust", "GEE covariance: robust, bias-reduced, kc or naive")
	fl.StringVar(&o.Convention, "convention", "statsmodels", "GEE moment estimators: statsmodels or geepack")
	fl.IntVar(&o.NAGQ, "nagq", 1, "GLMM quadrature nodes: 1 = Laplace")
	fl.BoolVar(&o.Firth, "firth", false, "Firth's penalised likelihood (finite estimates under separation)")
	return c
}
