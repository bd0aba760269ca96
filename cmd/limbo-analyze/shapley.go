package main

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/shapley"
	"github.com/limbo-toolkit/limbo/stats"
)

type shapleyOptions struct {
	inputOptions
	Formula string
	R2      string
	Refs    []string
}

func newShapleyCmd(e *env) *cobra.Command {
	o := &shapleyOptions{}
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
its finite supremum log-likelihood and is reported in the warnings.
Unweighted unless --weight COL.

Examples:
  limbo-analyze shapley --in runs.parquet --formula "duplicated ~ contract + fault_mode + model + harness"
  limbo-analyze shapley --in runs.csv --formula "eos ~ condition + model" --r2 nagelkerke --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			f, err := parseFormula(o.Formula)
			if err != nil {
				return err
			}
			switch {
			case len(f.Random) > 0:
				return usagef("shapley decomposes a fixed-effects logistic model; remove %s", randomTerms(f))
			case !f.Intercept:
				return usagef("shapley needs the intercept (the value of no terms is the intercept-only model)")
			case len(f.Terms) == 0:
				return usagef("the formula has no terms to decompose")
			case len(f.Terms) > shapley.MaxGroups:
				return usagef("%d terms: at most %d (2^k fits)", len(f.Terms), shapley.MaxGroups)
			}
			switch o.R2 {
			case "mcfadden", "nagelkerke", "tjur", "coxsnell":
			default:
				return usagef("--r2 %q: want mcfadden, nagelkerke, tjur or coxsnell", o.R2)
			}
			refs, err := parseRefs(o.Refs)
			if err != nil {
				return err
			}
			return runShapley(e, o, f, refs)
		},
	}
	addInputFlags(c, &o.inputOptions, `weight column, or "none" (default: unweighted)`)
	c.Flags().StringVar(&o.Formula, "formula", "", `logistic model, e.g. "duplicated ~ contract + fault_mode + model" (required)`)
	c.Flags().StringVar(&o.R2, "r2", "mcfadden", "pseudo-R²: mcfadden, nagelkerke, tjur or coxsnell")
	c.Flags().StringArrayVar(&o.Refs, "ref", nil, "reference level of a factor, col=level (repeatable; does not change the values)")
	return c
}

type shapleyFactor struct {
	Name        string `json:"name"`
	Value       num    `json:"value"`
	Share       num    `json:"share"`
	Conditional []num  `json:"conditional"`
}

type shapleyResult struct {
	R2       string          `json:"r2"`
	N        int64           `json:"n"`
	Total    num             `json:"total"`
	Factors  []shapleyFactor `json:"factors"`
	Warnings []string        `json:"warnings"`
}

// pseudoR2 is the chosen pseudo-R² of a fit (n = Σw Bernoulli rows).
func pseudoR2(kind string, r *stats.LogisticResult, y, w []float64) float64 {
	if (kind == "nagelkerke" || kind == "coxsnell") && !(r.SumW > 0) {
		return math.NaN() // n = Σw is 0: the index is undefined
	}
	switch kind {
	case "nagelkerke":
		return stats.Nagelkerke(r.LogLik, r.NullLogLik, r.SumW)
	case "coxsnell":
		return stats.CoxSnell(r.LogLik, r.NullLogLik, r.SumW)
	case "tjur":
		return stats.TjurWeighted(y, r.Mu, w)
	}
	return stats.McFadden(r.LogLik, r.NullLogLik)
}

func runShapley(e *env, o *shapleyOptions, f *formula.Formula, refs map[string]string) error {
	var warn warnings
	weight := o.weightColumn("")
	fr, err := modelFrame(e, &o.inputOptions, f, nil, weight, true, &warn)
	if err != nil {
		return err
	}
	fr = positive(fr)
	d, err := formula.Build(f, fr, formula.Options{Ref: refs})
	if err != nil {
		return err
	}
	warn.add(d.Warnings...)
	y, w := fr.Y(), fr.W()
	k := len(d.Terms)
	var separated []string
	v := func(subset []int) (float64, error) {
		r, err := logisticFit(d, subset, y, w)
		if err != nil {
			return 0, err
		}
		if r.Separation {
			var names []string
			for _, j := range subset {
				names = append(names, d.Terms[j].Term.String())
			}
			separated = append(separated, "{"+strings.Join(names, ", ")+"}")
		}
		// Under separation the deviance still converges to its finite
		// supremum (methods §3.2), which is all a pseudo-R² needs; any
		// other non-convergence makes the value unreliable.
		if !r.Converged && !r.Separation {
			return 0, fmt.Errorf("the fit did not converge")
		}
		return pseudoR2(o.R2, r, y, w), nil
	}
	sr, err := shapley.Exact(k, v)
	if err != nil {
		return err
	}
	if len(separated) > 0 {
		warn.addf("separation in %d of %d subset fits (%s); their pseudo-R² uses the finite supremum log-likelihood", len(separated), 1<<k, strings.Join(separated, " "))
	}
	res := shapleyResult{R2: o.R2, N: fr.Rows, Total: num(sr.Total)}
	t := &table{header: []string{"name", "value", "share"}}
	for j, dt := range d.Terms {
		fac := shapleyFactor{Name: dt.Term.String(), Value: num(sr.Values[j]), Share: num(sr.Shares[j])}
		for _, c := range sr.Dominance[j] {
			fac.Conditional = append(fac.Conditional, num(c))
		}
		res.Factors = append(res.Factors, fac)
		t.add(fac.Name, sr.Values[j], sr.Shares[j])
	}
	res.Warnings = warn.items()
	// Terminal order: largest share first, then the total.
	text := &table{header: t.header, rows: slices.Clone(t.rows)}
	slices.SortStableFunc(text.rows, func(a, b []any) int {
		return cmp.Compare(b[1].(float64), a[1].(float64))
	})
	text.add("total", sr.Total, 100.0)
	pre := []string{fmt.Sprintf("%s pseudo-R² of %s (n = %d)", o.R2, f, fr.Rows)}
	return renderWith(e, o.Format, res, t, textOf(pre, text), &warn)
}
