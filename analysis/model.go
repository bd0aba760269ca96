package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/mixed"
	"github.com/limbo-toolkit/limbo/stats"
)

// ModelSpec is a Model analysis: a logistic model of a binary outcome
// given by an R-like formula (formula.Parse).
type ModelSpec struct {
	Family  string            // logit (default), gee or glmm
	Formula string            // e.g. "duplicated ~ contract + fault_mode"; (1|g) terms for glmm
	Refs    map[string]string // reference level of a factor
	Firth   bool              // logit: Firth's penalised likelihood
	// GEE: the cluster column, the working correlation (exchangeable,
	// the default, or independence), the covariance (robust, the
	// default, bias-reduced, kc or naive) and the moment convention
	// (statsmodels, the default, or geepack).
	Group, Corr, Cov, Convention string
	NAGQ                         int // glmm quadrature nodes; 0 or 1 = Laplace
}

// Coef is one coefficient of a fitted model, with its odds ratio and 95%
// Wald interval.
type Coef struct {
	Term               string // (Intercept), a numeric column, or col[level]
	Estimate, SE, Z, P float64
	OR, ORLo, ORHi     float64
}

// RandomEffect is one random intercept of a GLMM.
type RandomEffect struct {
	Group  string
	SD     float64
	Levels int
}

// ModelResult is the result of Model.
type ModelResult struct {
	Spec         ModelSpec
	Formula      string // the formula as parsed
	N            int64  // rows (episodes) fitted
	Converged    bool
	Coefficients []Coef
	Alpha        float64        // GEE working correlation (NaN otherwise)
	Random       []RandomEffect // glmm
	LogLik       float64        // logit and glmm (NaN for gee)
	Singular     bool           // glmm: a variance at its boundary
	Clusters     int            // gee
	Warnings     []string
}

// ParseFormula parses a model formula, as a SpecError on failure.
func ParseFormula(s string) (*formula.Formula, error) {
	if s == "" {
		return nil, specf("--formula is required, e.g. --formula \"eos ~ contract + fault_mode\"")
	}
	f, err := formula.Parse(s)
	if err != nil {
		return nil, specf("--formula: %v", err)
	}
	return f, nil
}

// RandomTerms renders the formula's random intercepts, "(1|a) + (1|b)".
func RandomTerms(f *formula.Formula) string {
	var s []string
	for _, g := range f.Random {
		s = append(s, "(1|"+g+")")
	}
	return strings.Join(s, " + ")
}

// check validates the spec against its formula (usage errors) and fills
// in the defaults.
func (spec *ModelSpec) check(f *formula.Formula, weighted bool) error {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&spec.Family, "logit")
	def(&spec.Corr, "exchangeable")
	def(&spec.Cov, "robust")
	def(&spec.Convention, "statsmodels")
	if spec.NAGQ < 0 {
		return specf("--nagq %d: want 1 (Laplace) or more quadrature nodes", spec.NAGQ)
	}
	spec.NAGQ = max(spec.NAGQ, 1)
	switch spec.Family {
	case "logit":
		if len(f.Random) > 0 {
			return specf("random intercepts %s need --family glmm", RandomTerms(f))
		}
	case "gee":
		if len(f.Random) > 0 {
			return specf("random intercepts %s need --family glmm (GEE takes --group)", RandomTerms(f))
		}
		if spec.Group == "" {
			return specf("--family gee needs --group COL (the cluster, e.g. task)")
		}
		switch spec.Corr {
		case "exchangeable", "independence":
		default:
			return specf("--corr %q: want exchangeable or independence", spec.Corr)
		}
		switch spec.Cov {
		case "robust", "bias-reduced", "kc", "naive":
		default:
			return specf("--cov %q: want robust, bias-reduced, kc or naive", spec.Cov)
		}
		switch spec.Convention {
		case "statsmodels", "geepack":
		default:
			return specf("--convention %q: want statsmodels or geepack", spec.Convention)
		}
	case "glmm":
		if len(f.Random) == 0 {
			return specf("--family glmm needs at least one random intercept (1|group) in the formula")
		}
		if spec.NAGQ > 1 && len(f.Random) > 1 {
			return specf("--nagq %d needs a single random intercept; the formula has %d", spec.NAGQ, len(f.Random))
		}
	default:
		return specf("--family %q: want logit, gee or glmm", spec.Family)
	}
	if weighted && spec.Family != "logit" {
		return specf("--weight: --family %s is unweighted", spec.Family)
	}
	if spec.Firth && spec.Family != "logit" {
		return specf("--firth applies to --family logit")
	}
	if spec.Group != "" && spec.Family != "gee" {
		return specf("--group applies to --family gee (use (1|%s) for a GLMM)", spec.Group)
	}
	return nil
}

// geeCollapseLimit is the share of distinct (cluster, covariate pattern)
// cells among the first frame.CollapseProbe rows above which GEE stops
// merging rows: collapsing pays when cells ≪ rows (factor-only designs,
// low-cardinality numbers), and stats.GEECollapsed is exact either way.
const geeCollapseLimit = 0.5

// Model fits a logistic model of the formula's binary response:
//
//   - logit: maximum likelihood by IRLS (stats.Logistic; Firth 1993 with
//     Firth), on rows collapsed to covariate patterns. Separated terms are
//     reported in the warnings and their estimates as NaN.
//   - gee: a marginal model with Group clusters (Liang & Zeger 1986;
//     stats.GEECollapsed), on (cluster, covariate pattern) cells, which is
//     exact, so memory follows the cells.
//   - glmm: random intercepts for each (1|g) term, Laplace or adaptive
//     Gauss–Hermite (package mixed).
//
// Odds ratios carry 95% Wald intervals. Only logit takes q.Weight.
func Model(q Query, spec ModelSpec) (*ModelResult, error) {
	var warn warnings
	f, err := ParseFormula(spec.Formula)
	if err != nil {
		return nil, err
	}
	if err := spec.check(f, q.Weight != ""); err != nil {
		return nil, err
	}
	res := &ModelResult{Spec: spec, Formula: f.String(), Alpha: math.NaN(), LogLik: math.NaN()}
	var fr *frame.Frame
	switch spec.Family {
	case "logit":
		var d *formula.Design
		if fr, d, err = q.modelDesign(f, nil, q.Weight, true, 0, spec.Refs, &warn); err != nil {
			return nil, err
		}
		r, err := stats.Logistic(d.X, fr.Y(), fr.W(), stats.LogisticOptions{Firth: spec.Firth, Names: d.Names})
		if err != nil {
			return nil, fitError(err)
		}
		warn.add(r.Warnings...)
		res.Converged = r.Converged
		res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
		if r.Separation && !spec.Firth {
			var terms []string
			for _, j := range r.SeparatedTerms {
				terms = append(terms, d.Names[j])
				res.Coefficients[j] = Coef{Term: d.Names[j], Estimate: nan, SE: nan, Z: nan, P: nan, OR: nan, ORLo: nan, ORHi: nan}
			}
			msg := "estimates of the separated terms " + strings.Join(terms, ", ") + " are reported as null"
			if sep := formula.Separated(d, fr); len(sep) > 0 {
				msg += "; levels with a constant outcome: " + strings.Join(sep, ", ")
			}
			warn.add(msg + "; use --firth for finite estimates")
		}
		res.LogLik = r.LogLik
	case "gee":
		var d *formula.Design
		if fr, d, err = q.modelDesign(f, []string{spec.Group}, "", true, geeCollapseLimit, spec.Refs, &warn); err != nil {
			return nil, err
		}
		g := fr.Col(spec.Group)
		cluster := make([]int, fr.Len())
		for i, c := range g.Codes {
			cluster[i] = int(c)
		}
		n, s := make([]float64, fr.Len()), make([]float64, fr.Len())
		for i, c := range fr.Cells {
			n[i], s[i] = float64(c.N), float64(c.Events)
		}
		r, err := stats.GEECollapsed(d.X, n, s, cluster, stats.GEEOptions{Corr: spec.Corr, Cov: spec.Cov, Convention: spec.Convention, Names: d.Names})
		if err != nil {
			return nil, fitError(err)
		}
		warn.add(r.Warnings...)
		res.Converged = r.Converged
		res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
		res.Alpha = r.Alpha
		res.Clusters = r.NClusters
		if r.NClusters < 40 && spec.Cov == "robust" {
			warn.addf("only %d clusters: the robust sandwich is biased downwards; consider --cov bias-reduced or kc", r.NClusters)
		}
	case "glmm":
		var d *formula.Design
		if fr, d, err = q.modelDesign(f, nil, "", false, 0, spec.Refs, &warn); err != nil {
			return nil, err
		}
		gs, err := formula.Groups(f, fr)
		if err != nil {
			return nil, err
		}
		groups := make([]mixed.Group, len(gs))
		for k, g := range gs {
			groups[k] = mixed.Group{Name: g.Name, Index: g.Index, Levels: g.Levels}
		}
		r, err := mixed.FitLogit(d.X, fr.Y(), groups, mixed.Options{NAGQ: spec.NAGQ})
		if err != nil {
			return nil, fitError(err)
		}
		warn.add(r.Warnings...)
		res.Converged = r.Converged
		res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
		for k, g := range gs {
			res.Random = append(res.Random, RandomEffect{Group: g.Name, SD: r.SD[k], Levels: len(g.Levels)})
		}
		res.LogLik = r.LogLik
		res.Singular = r.Singular
	}
	res.N = fr.Rows
	res.Warnings = warn.items()
	return res, nil
}

func coefs(names []string, coef, se, z, p []float64) []Coef {
	rows := make([]Coef, len(names))
	for j, n := range names {
		b, s := coef[j], se[j]
		rows[j] = Coef{Term: n, Estimate: b, SE: s, Z: z[j], P: p[j],
			OR: math.Exp(b), ORLo: math.Exp(b - z95*s), ORHi: math.Exp(b + z95*s)}
	}
	return rows
}

// modelFrame reads the formula's columns (and extra); collapse merges
// rows into covariate patterns (limit: frame.Spec.CollapseLimit).
func (q *Query) modelFrame(f *formula.Formula, extra []string, weight string, collapse bool, limit float64, warn *warnings) (*frame.Frame, error) {
	cols := f.Columns()[1:]
	for _, c := range extra {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	fr, err := q.readFrame(frame.Spec{Columns: cols, Outcome: f.Response, Weight: weight, Collapse: collapse, CollapseLimit: limit}, warn)
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

// modelDesign reads the frame of f (with the extra columns), drops the
// patterns with no weight and builds f's design matrix with the reference
// levels refs; the design's warnings join warn.
func (q *Query) modelDesign(f *formula.Formula, extra []string, weight string, collapse bool, limit float64, refs map[string]string, warn *warnings) (*frame.Frame, *formula.Design, error) {
	fr, err := q.modelFrame(f, extra, weight, collapse, limit, warn)
	if err != nil {
		return nil, nil, err
	}
	fr = positive(fr)
	d, err := formula.Build(f, fr, formula.Options{Ref: refs})
	if err != nil {
		return nil, nil, err
	}
	warn.add(d.Warnings...)
	return fr, d, nil
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
