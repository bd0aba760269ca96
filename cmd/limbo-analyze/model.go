package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/report"
)

type modelOptions struct {
	inputOptions
	Fit        string
	Link       string
	Order      string
	REML, ML   bool
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
		Use:   "model --in FILE [--fit glm|gee|glmm] [--family binomial|poisson|gaussian] --formula \"Y ~ …\"",
		Short: "GLM, GEE or GLMM (binomial, Poisson, Gaussian) over any columns",
		Long: `model fits a generalised linear model with an R-like formula:
  Y ~ a + b + C(x)          string columns are factors (treatment coding, the
                            first level in sorted order is the reference unless
                            --ref col=level); numbers and booleans enter as
                            numbers; C(x) forces a factor
  Y ~ a*b, a:b, (a+b+c)^2   interactions (columns named a[x]:b[y]), - a
                            removes a term, 0 + or - 1 the intercept
  Y ~ a + offset(log(t))    offsets
  cbind(k, n - k) ~ a       aggregated binomial counts
  Y ~ a + (1|model)         random intercepts (glmm); (x | g), (x || g),
                            (0 + x | g), (1 | a/b) random slopes and nesting

--fit glm|gee|glmm (default: glmm with random terms, gee with --group, else
glm) with --family binomial (default; --link logit, probit or cloglog),
poisson (log, identity) or gaussian (identity, log). GEE takes --corr
independence, exchangeable or ar1 (--order COL orders a cluster's rows;
geepack's waves). A Gaussian GLMM is fitted by --reml (default) or --ml.
Text output adds the dispersion (and residual SD), log-likelihood, AIC and
BIC; JSON carries every number.

The logistic models of before families keep their output:

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
			refs, err := parseRefs(o.Refs)
			if err != nil {
				return usageError{err}
			}
			if o.NAGQ < 1 {
				return usagef("--nagq %d: want 1 (Laplace) or more quadrature nodes", o.NAGQ)
			}
			if o.REML && o.ML {
				return usagef("--reml and --ml exclude each other")
			}
			q := o.query(e)
			spec := analysis.ModelSpec{Fit: analysis.ModelFit(o.Fit), Family: analysis.ModelFamily(o.Family),
				Formula: o.Formula, Refs: refs, Firth: o.Firth, Group: o.Group, Order: o.Order, NAGQ: o.NAGQ, ML: o.ML}
			setName(&spec.Link, o.Link)
			setName(&spec.Corr, o.Corr)
			setName(&spec.Cov, o.Cov)
			setName(&spec.Convention, o.Convention)
			r, err := analysis.Model(q, spec)
			if r != nil {
				for i, w := range r.Warnings {
					r.Warnings[i] = w.Renamed(specFlags) // the advice names this command's flags
				}
			}
			return emit(e, o.Format, report.Model)(r, err)
		},
	}
	addInputFlags(c, &o.inputOptions, `weight column (logit only), or "none" (default: unweighted)`)
	fl := c.Flags()
	fl.StringVar(&o.Fit, "fit", "", "glm, gee or glmm (default: glmm with random terms, gee with --group, else glm)")
	fl.StringVar(&o.Family, "family", "", "binomial (default), poisson or gaussian; or logit, gee, glmm (the logistic models, with their output)")
	fl.StringVar(&o.Link, "link", "", "link: logit, probit, cloglog (binomial); log, identity (default: the family's canonical link)")
	fl.StringVar(&o.Order, "order", "", "GEE ar1: the column that orders a cluster's rows (geepack's waves)")
	fl.BoolVar(&o.REML, "reml", false, "Gaussian GLMM by REML (the default)")
	fl.BoolVar(&o.ML, "ml", false, "Gaussian GLMM by maximum likelihood")
	fl.StringVar(&o.Formula, "formula", "", `model formula, e.g. "duplicated ~ contract + fault_mode" (required)`)
	fl.StringArrayVar(&o.Refs, "ref", nil, "reference level of a factor, col=level (repeatable)")
	fl.StringVar(&o.Group, "group", "", "cluster column for --family gee")
	fl.StringVar(&o.Corr, "corr", "", "GEE working correlation: exchangeable (default), independence or ar1")
	fl.StringVar(&o.Cov, "cov", "", "GEE covariance: robust (default), bias-reduced, kc or naive")
	fl.StringVar(&o.Convention, "convention", "", "GEE moment estimators: statsmodels (default) or geepack (default for ar1)")
	fl.IntVar(&o.NAGQ, "nagq", 1, "GLMM quadrature nodes: 1 = Laplace")
	fl.BoolVar(&o.Firth, "firth", false, "Firth's penalised likelihood (finite estimates under separation)")
	return c
}
