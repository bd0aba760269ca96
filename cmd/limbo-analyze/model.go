package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/report"
)

func newModelCmd(e *env) *cobra.Command {
	var o inputOptions
	var spec analysis.ModelSpec
	var refs []string
	var reml bool
	var con analysis.ContrastSpec
	var cluster string
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

A binomial logit model of a binary outcome is fitted on rows collapsed to
covariate patterns (glm; --firth for Firth's penalised fit, and separated
terms are reported as warnings with null estimates) or to (cluster,
covariate pattern) cells (gee), which is exact, so factor-only models on
millions of rows are fast and memory follows the cells. GEE covariances:
--cov robust (default), bias-reduced (Mancl–DeRouen), kc (Kauermann–Carroll)
or naive. A GLMM is fitted by Laplace (--nagq 1, default) or adaptive
Gauss–Hermite (--nagq N, one random intercept).

--family logit, gee or glmm name the logistic models of before families:
--fit glm, gee or glmm with the binomial family and the logit link, fitted
the same way, whose output keeps its layout (as does a model given neither
--fit nor --family that is one of them).

Coefficients are named (Intercept), a numeric column's name, or col[level];
or, or_lo and or_hi are exp(estimate) with its 95% Wald interval.
Unweighted unless --weight COL (a binomial glm of a binary outcome only).

--contrast COL reports, instead of the coefficients, average contrasts on the
response scale between the levels of COL (a column of the formula): every
row fitted is predicted with COL set to each level in turn and the
predictions are averaged (G-computation, as marginaleffects' avg_comparisons
and emmeans on a counterfactuals grid), within each group of --by. Each
level is compared with --base (default: the reference level) by the
difference (percentage points for a binomial model: a risk difference) and
the ratio (a risk or rate ratio), with delta-method standard errors from the
fit's covariance (the robust sandwich for GEE) and --level Wald intervals
(the ratio's on the log scale); --adjust adjusts the differences' p-values
(none by default; holm, bonferroni, bh or by). A GLMM predicts with its
random effects at 0, or with --random-effects marginal averaged over their
fitted distribution. --bootstrap N adds bootstrap intervals: the model is
refitted on N resamples of the clusters of --cluster COL (a GEE's --group
clusters must lie within them), or for a GLMM on N data sets drawn from the
fit (parametric; --cluster then names the jackknife's unit for BCa).
Replicates are seeded by --seed and the replicate index, so the intervals
do not depend on --jobs.

Examples:
  limbo-analyze model --in runs.parquet --family logit --formula "duplicated ~ contract + fault_mode + model"
  limbo-analyze model --in runs.csv --family gee --formula "eos ~ condition" --group task --cov bias-reduced --format json
  limbo-analyze model --in runs.csv --family glmm --formula "duplicated ~ contract + (1|model) + (1|template)"
  limbo-analyze model --in runs.parquet --fit gee --group task --formula "duplicated ~ condition + model" --contrast condition --base vanilla
  limbo-analyze model --in runs.parquet --formula "duplicated ~ condition * model" --contrast condition --base vanilla --by model --bootstrap 1000 --cluster task`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if spec.Refs, err = parseRefs(refs); err != nil {
				return err
			}
			if spec.NAGQ < 1 {
				return usagef("--nagq %d: want 1 (Laplace) or more quadrature nodes", spec.NAGQ)
			}
			if reml && spec.ML {
				return usagef("--reml and --ml exclude each other")
			}
			fl := cmd.Flags()
			if con.Variable == "" {
				for _, n := range []string{"base", "levels", "by", "random-effects", "level", "adjust", "bootstrap", "cluster"} {
					if fl.Changed(n) {
						return usagef("--%s applies with --contrast COL", n)
					}
				}
			}
			if err := bootstrapOnly(fl); err != nil {
				return err
			}
			if err := checkLevel(con.Level); err != nil {
				return err
			}
			if con.Variable != "" {
				con.Model, con.Bootstrap.Cluster = spec, cluster
				r, err := analysis.Contrast(o.query(e), con)
				if r != nil {
					renameWarnings(r.Warnings)
				}
				return emit(e, o.Format, report.Contrast)(r, err)
			}
			r, err := analysis.Model(o.query(e), spec)
			if r != nil {
				renameWarnings(r.Warnings)
			}
			return emit(e, o.Format, report.Model)(r, err)
		},
	}
	addInputFlags(c, &o, `weight column (binomial glm of a binary outcome only), or "none" (default: unweighted)`)
	fl := c.Flags()
	nameVar(fl, &spec.Fit, "fit", "", "glm, gee or glmm (default: glmm with random terms, gee with --group, else glm)")
	nameVar(fl, &spec.Family, "family", "", "binomial (default), poisson or gaussian; or logit, gee, glmm (the logistic models, with their output)")
	nameVar(fl, &spec.Link, "link", "", "link: logit, probit, cloglog (binomial); log, identity (default: the family's canonical link)")
	fl.StringVar(&spec.Order, "order", "", "GEE ar1: the column that orders a cluster's rows (geepack's waves)")
	fl.BoolVar(&reml, "reml", false, "Gaussian GLMM by REML (the default)")
	fl.BoolVar(&spec.ML, "ml", false, "Gaussian GLMM by maximum likelihood")
	fl.StringVar(&spec.Formula, "formula", "", `model formula, e.g. "duplicated ~ contract + fault_mode" (required)`)
	fl.StringArrayVar(&refs, "ref", nil, "reference level of a factor, col=level (repeatable)")
	fl.StringVar(&spec.Group, "group", "", "cluster column for --family gee")
	nameVar(fl, &spec.Corr, "corr", "", "GEE working correlation: exchangeable (default), independence or ar1")
	nameVar(fl, &spec.Cov, "cov", "", "GEE covariance: robust (default), bias-reduced, kc or naive")
	nameVar(fl, &spec.Convention, "convention", "", "GEE moment estimators: statsmodels (default) or geepack (default for ar1)")
	fl.IntVar(&spec.NAGQ, "nagq", 1, "GLMM quadrature nodes: 1 = Laplace")
	fl.BoolVar(&spec.Firth, "firth", false, "Firth's penalised likelihood (finite estimates under separation)")
	fl.StringVar(&con.Variable, "contrast", "", "report average contrasts on the response scale between the levels of this column")
	fl.StringVar(&con.Base, "base", "", "--contrast: the level every other level is compared with (default: the reference level)")
	fl.StringSliceVar(&con.Levels, "levels", nil, "--contrast: compare only these levels with --base")
	fl.StringSliceVar(&con.By, "by", nil, "--contrast: average within the groups of these columns")
	nameVar(fl, &con.RandomEffects, "random-effects", "", "--contrast of a GLMM: zero (default: the population level) or marginal")
	fl.Float64Var(&con.Level, "level", 0.95, "--contrast: confidence level of the intervals")
	nameVar(fl, &con.Adjust, "adjust", "", "--contrast: adjust the differences' p-values: none (default), holm, bonferroni, bh or by")
	fl.StringVar(&cluster, "cluster", "", "--bootstrap: resample the clusters of this column (e.g. task)")
	addBootstrapFlags(fl, &con.Bootstrap)
	return c
}
