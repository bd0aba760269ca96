package main

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/mixed"
	"github.com/limbo-toolkit/limbo/stats"
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
	Level      float64
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
			f, err := parseFormula(o.Formula)
			if err != nil {
				return err
			}
			refs, err := parseRefs(o.Refs)
			if err != nil {
				return err
			}
			weighted := o.Weight != "" && o.Weight != "none"
			switch o.Family {
			case "logit":
				if len(f.Random) > 0 {
					return usagef("random intercepts %s need --family glmm", randomTerms(f))
				}
			case "gee":
				if len(f.Random) > 0 {
					return usagef("random intercepts %s need --family glmm (GEE takes --group)", randomTerms(f))
				}
				if o.Group == "" {
					return usagef("--family gee needs --group COL (the cluster, e.g. task)")
				}
				switch o.Corr {
				case "exchangeable", "independence":
				default:
					return usagef("--corr %q: want exchangeable or independence", o.Corr)
				}
				switch o.Cov {
				case "robust", "bias-reduced", "kc", "naive":
				default:
					return usagef("--cov %q: want robust, bias-reduced, kc or naive", o.Cov)
				}
				switch o.Convention {
				case "statsmodels", "geepack":
				default:
					return usagef("--convention %q: want statsmodels or geepack", o.Convention)
				}
			case "glmm":
				if len(f.Random) == 0 {
					return usagef("--family glmm needs at least one random intercept (1|group) in the formula")
				}
				if o.NAGQ < 1 {
					return usagef("--nagq %d: want 1 (Laplace) or more quadrature nodes", o.NAGQ)
				}
				if o.NAGQ > 1 && len(f.Random) > 1 {
					return usagef("--nagq %d needs a single random intercept; the formula has %d", o.NAGQ, len(f.Random))
				}
			default:
				return usagef("--family %q: want logit, gee or glmm", o.Family)
			}
			if weighted && o.Family != "logit" {
				return usagef("--weight: --family %s is unweighted", o.Family)
			}
			if o.Firth && o.Family != "logit" {
				return usagef("--firth applies to --family logit")
			}
			if o.Group != "" && o.Family != "gee" {
				return usagef("--group applies to --family gee (use (1|%s) for a GLMM)", o.Group)
			}
			return runModel(e, o, f, refs)
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

func randomTerms(f *formula.Formula) string {
	var s []string
	for _, g := range f.Random {
		s = append(s, "(1|"+g+")")
	}
	return strings.Join(s, " + ")
}

type coefRow struct {
	Term     string `json:"term"`
	Estimate num    `json:"estimate"`
	SE       num    `json:"se"`
	Z        num    `json:"z"`
	P        num    `json:"p"`
	OR       num    `json:"or"`
	ORLo     num    `json:"or_lo"`
	ORHi     num    `json:"or_hi"`
}

type randomRow struct {
	Group  string `json:"group"`
	SD     num    `json:"sd"`
	Levels int    `json:"levels"`
}

type modelResult struct {
	Family       string      `json:"family"`
	Formula      string      `json:"formula"`
	N            int64       `json:"n"`
	Converged    bool        `json:"converged"`
	Coefficients []coefRow   `json:"coefficients"`
	Alpha        num         `json:"alpha"`
	Random       []randomRow `json:"random,omitempty"`
	LogLik       *num        `json:"loglik,omitempty"`
	Singular     *bool       `json:"singular,omitempty"`
	Clusters     int         `json:"clusters,omitempty"`
	Warnings     []string    `json:"warnings"`
}

// z95 is the normal quantile of the 95% Wald intervals of odds ratios.
var z95 = stats.ZLevel(0.95)

func coefRows(names []string, coef, se, z, p []float64) []coefRow {
	rows := make([]coefRow, len(names))
	for j, n := range names {
		b, s := coef[j], se[j]
		rows[j] = coefRow{Term: n, Estimate: num(b), SE: num(s), Z: num(z[j]), P: num(p[j]),
			OR: num(math.Exp(b)), ORLo: num(math.Exp(b - z95*s)), ORHi: num(math.Exp(b + z95*s))}
	}
	return rows
}

// modelFrame reads the formula's columns; logit collapses to covariate
// patterns, GLMM keeps rows (GEE: see geeCollapseLimit).
func modelFrame(e *env, o *inputOptions, f *formula.Formula, extra []string, weight string, collapse bool, warn *warnings) (*frame.Frame, error) {
	return modelFrameLimit(e, o, f, extra, weight, collapse, 0, warn)
}

// geeCollapseLimit is the share of distinct (cluster, covariate pattern)
// cells among the first frame.CollapseProbe rows above which GEE stops
// merging rows: collapsing pays when cells ≪ rows (factor-only designs,
// low-cardinality numbers), and stats.GEECollapsed is exact either way.
const geeCollapseLimit = 0.5

// modelFrameLimit is modelFrame with frame.Spec.CollapseLimit.
func modelFrameLimit(e *env, o *inputOptions, f *formula.Formula, extra []string, weight string, collapse bool, limit float64, warn *warnings) (*frame.Frame, error) {
	cols := termColumns(f)
	for _, c := range extra {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	fr, err := readFrame(e, o, frame.Spec{Columns: cols, Outcome: f.Response, Weight: weight, Collapse: collapse, CollapseLimit: limit}, warn)
	if err != nil {
		return nil, err
	}
	if err := checkWeights(fr, weight); err != nil {
		return nil, err
	}
	if err := checkOutcome(fr, f.Response); err != nil {
		return nil, err
	}
	return fr, nil
}

// positive drops the patterns with zero total weight (nothing to fit).
func positive(fr *frame.Frame) *frame.Frame {
	keep := make([]int, 0, fr.Len())
	for i, c := range fr.Cells {
		if !fr.HasWeight || c.SumW > 0 {
			keep = append(keep, i)
		}
	}
	if len(keep) == fr.Len() {
		return fr
	}
	out := *fr
	out.Cells = make([]frame.Cell, len(keep))
	out.Cols = make([]*frame.Column, len(fr.Cols))
	for j, c := range fr.Cols {
		nc := *c
		nc.Codes = make([]int32, len(keep))
		for k, i := range keep {
			nc.Codes[k] = c.Codes[i]
		}
		out.Cols[j] = &nc
	}
	for k, i := range keep {
		out.Cells[k] = fr.Cells[i]
	}
	return &out
}

// fitError turns a data-dependent fitting failure into a message naming
// the design.
func fitError(err error) error {
	var se *stats.SingularError
	if errors.As(err, &se) {
		return fmt.Errorf("the design is rank deficient: %s duplicate(s) other columns (a factor nested in another, or a column that is constant within the data); drop one of the terms", strings.Join(se.Names, ", "))
	}
	return err
}

func runModel(e *env, o *modelOptions, f *formula.Formula, refs map[string]string) error {
	var warn warnings
	res := modelResult{Family: o.Family, Formula: f.String(), Alpha: num(math.NaN())}
	var fr *frame.Frame
	var err error
	switch o.Family {
	case "logit":
		weight := o.weightColumn("")
		if fr, err = modelFrame(e, &o.inputOptions, f, nil, weight, true, &warn); err != nil {
			return err
		}
		fr = positive(fr)
		d, err := formula.Build(f, fr, formula.Options{Ref: refs})
		if err != nil {
			return err
		}
		warn.add(d.Warnings...)
		r, err := stats.Logistic(d.X, fr.Y(), fr.W(), stats.LogisticOptions{Firth: o.Firth, Names: d.Names})
		if err != nil {
			return fitError(err)
		}
		warn.add(r.Warnings...)
		res.Converged = r.Converged
		res.Coefficients = coefRows(d.Names, r.Coef, r.SE, r.Z, r.P)
		if r.Separation && !o.Firth {
			var terms []string
			for _, j := range r.SeparatedTerms {
				terms = append(terms, d.Names[j])
				res.Coefficients[j] = coefRow{Term: d.Names[j], Estimate: num(math.NaN()), SE: num(math.NaN()), Z: num(math.NaN()),
					P: num(math.NaN()), OR: num(math.NaN()), ORLo: num(math.NaN()), ORHi: num(math.NaN())}
			}
			msg := "estimates of the separated terms " + strings.Join(terms, ", ") + " are reported as null"
			if sep := formula.Separated(d, fr); len(sep) > 0 {
				msg += "; levels with a constant outcome: " + strings.Join(sep, ", ")
			}
			warn.add(msg + "; use --firth for finite estimates")
		}
		ll := num(r.LogLik)
		res.LogLik = &ll
	case "gee":
		// Rows are collapsed to (cluster, covariate pattern) cells while
		// reading, so memory follows the cells, not the rows.
		if fr, err = modelFrameLimit(e, &o.inputOptions, f, []string{o.Group}, "", true, geeCollapseLimit, &warn); err != nil {
			return err
		}
		d, err := formula.Build(f, fr, formula.Options{Ref: refs})
		if err != nil {
			return err
		}
		warn.add(d.Warnings...)
		g := fr.Col(o.Group)
		cluster := make([]int, fr.Len())
		for i, c := range g.Codes {
			cluster[i] = int(c)
		}
		n, s := make([]float64, fr.Len()), make([]float64, fr.Len())
		for i, c := range fr.Cells {
			n[i], s[i] = float64(c.N), float64(c.Events)
		}
		r, err := stats.GEECollapsed(d.X, n, s, cluster, stats.GEEOptions{Corr: o.Corr, Cov: o.Cov, Convention: o.Convention, Names: d.Names})
		if err != nil {
			return fitError(err)
		}
		warn.add(r.Warnings...)
		res.Converged = r.Converged
		res.Coefficients = coefRows(d.Names, r.Coef, r.SE, r.Z, r.P)
		res.Alpha = num(r.Alpha)
		res.Clusters = r.NClusters
		if r.NClusters < 40 && o.Cov == "robust" {
			warn.addf("only %d clusters: the robust sandwich is biased downwards; consider --cov bias-reduced or kc", r.NClusters)
		}
	case "glmm":
		if fr, err = modelFrame(e, &o.inputOptions, f, nil, "", false, &warn); err != nil {
			return err
		}
		d, err := formula.Build(f, fr, formula.Options{Ref: refs})
		if err != nil {
			return err
		}
		warn.add(d.Warnings...)
		gs, err := formula.Groups(f, fr)
		if err != nil {
			return err
		}
		groups := make([]mixed.Group, len(gs))
		for k, g := range gs {
			groups[k] = mixed.Group{Name: g.Name, Index: g.Index, Levels: g.Levels}
		}
		r, err := mixed.FitLogit(d.X, fr.Y(), groups, mixed.Options{NAGQ: o.NAGQ})
		if err != nil {
			return fitError(err)
		}
		warn.add(r.Warnings...)
		res.Converged = r.Converged
		res.Coefficients = coefRows(d.Names, r.Coef, r.SE, r.Z, r.P)
		for k, g := range gs {
			res.Random = append(res.Random, randomRow{Group: g.Name, SD: num(r.SD[k]), Levels: len(g.Levels)})
		}
		ll := num(r.LogLik)
		res.LogLik = &ll
		sing := r.Singular
		res.Singular = &sing
	}
	res.N = fr.Rows
	res.Warnings = warn.items()

	t := &table{header: []string{"term", "estimate", "se", "z", "p", "or", "or_lo", "or_hi"}}
	for _, c := range res.Coefficients {
		t.add(c.Term, float64(c.Estimate), float64(c.SE), float64(c.Z), float64(c.P), float64(c.OR), float64(c.ORLo), float64(c.ORHi))
	}
	pre := []string{fmt.Sprintf("%s: %s", o.Family, res.Formula),
		fmt.Sprintf("n = %d, converged = %v", res.N, res.Converged)}
	if res.LogLik != nil {
		pre[1] += ", loglik = " + textCell(float64(*res.LogLik), 8)
	}
	if o.Family == "gee" {
		pre[1] += fmt.Sprintf(", clusters = %d, alpha = %s (%s, %s SE)", res.Clusters, textCell(float64(res.Alpha), 4), o.Corr, o.Cov)
	}
	tables := []*table{t}
	csvT := t
	if o.Family == "gee" {
		// CSV has one table: the working correlation follows as a row.
		csvT = &table{header: t.header, rows: slices.Clone(t.rows)}
		csvT.add("alpha", float64(res.Alpha), nil, nil, nil, nil, nil, nil)
	}
	if o.Family == "glmm" {
		// CSV has one table: the random-effect SDs follow as sd(1|g) rows.
		csvT = &table{header: t.header, rows: slices.Clone(t.rows)}
		for _, r := range res.Random {
			csvT.add("sd(1|"+r.Group+")", float64(r.SD), nil, nil, nil, nil, nil, nil)
		}
		pre[1] += fmt.Sprintf(", singular = %v", *res.Singular)
		rt := &table{header: []string{"group", "sd", "levels"}}
		for _, r := range res.Random {
			rt.add(r.Group, float64(r.SD), r.Levels)
		}
		tables = append(tables, rt)
	}
	return renderWith(e, o.Format, res, csvT, textOf(pre, tables...), &warn)
}

// logisticFit fits the intercept and the columns of terms (indices into
// d.Terms) of a collapsed frame's design; shapley calls it for every subset.
func logisticFit(d *formula.Design, terms []int, y, w []float64) (*stats.LogisticResult, error) {
	x, names := d.Select(terms)
	r, err := stats.Logistic(x, y, w, stats.LogisticOptions{Names: names})
	if err != nil {
		return nil, fitError(err)
	}
	return r, nil
}
