package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/internal/enum"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mixed"
	"github.com/limbo-toolkit/limbo/stats"
)

// ModelFit is how a model is fitted: glm (maximum likelihood), gee
// (marginal model with clusters) or glmm (random effects).
type ModelFit string

// The fits.
const (
	FitGLM  ModelFit = "glm"
	FitGEE  ModelFit = "gee"
	FitGLMM ModelFit = "glmm"
)

// String returns the fit's name.
func (f ModelFit) String() string { return string(f) }

// UnmarshalText accepts glm, gee or glmm.
func (f *ModelFit) UnmarshalText(b []byte) error {
	return enum.Unmarshal("fit", b, []ModelFit{FitGLM, FitGEE, FitGLMM}, f)
}

// ModelFamily is a model's family: binomial, poisson or gaussian, or one
// of the names of the logistic models before families (logit = glm
// binomial, gee, glmm), which keep today's output.
type ModelFamily string

// The families.
const (
	FamilyBinomial ModelFamily = "binomial"
	FamilyPoisson  ModelFamily = "poisson"
	FamilyGaussian ModelFamily = "gaussian"
	FamilyLogit    ModelFamily = "logit"
	FamilyGEE      ModelFamily = "gee"
	FamilyGLMM     ModelFamily = "glmm"
)

// String returns the family's name.
func (f ModelFamily) String() string { return string(f) }

// UnmarshalText accepts binomial, poisson, gaussian, logit, gee or glmm.
func (f *ModelFamily) UnmarshalText(b []byte) error {
	switch v := ModelFamily(b); v {
	case FamilyBinomial, FamilyPoisson, FamilyGaussian, FamilyLogit, FamilyGEE, FamilyGLMM:
		*f = v
		return nil
	}
	return fmt.Errorf("family %q: want binomial, poisson or gaussian (or logit, gee, glmm)", b)
}

// legacy reports whether f names one of the logistic models before
// families ("" included).
func (f ModelFamily) legacy() bool {
	return f == "" || f == FamilyLogit || f == FamilyGEE || f == FamilyGLMM
}

// ModelSpec is a Model analysis: a generalised linear model (GLM, GEE or
// GLMM) given by an R-like formula (formula.Parse).
type ModelSpec struct {
	// Fit is glm, gee or glmm; "" chooses glmm when the formula has random
	// terms, gee when Group is set and glm otherwise.
	Fit ModelFit
	// Family is binomial (the default), poisson or gaussian; logit, gee
	// and glmm (with Fit "") are the logistic models of before families,
	// with their output.
	Family  ModelFamily
	Link    stats.Link        // "" for the family's canonical link
	Formula string            // e.g. "duplicated ~ contract * fault_mode"; (1|g) terms for glmm
	Refs    map[string]string // reference level of a factor
	Firth   bool              // glm binomial logit: Firth's penalised likelihood
	// GEE: the cluster column, the working correlation (exchangeable,
	// the default, independence or ar1), the covariance (robust, the
	// default, bias-reduced, kc or naive) and the moment convention
	// (statsmodels, the default, or geepack; geepack for ar1).
	Group      string
	Corr       stats.Corr
	Cov        stats.GEECov
	Convention stats.Convention
	// Order is the column whose values order a cluster's rows for the ar1
	// working correlation (geepack's waves); ties within a cluster are an
	// error.
	Order string
	NAGQ  int  // glmm quadrature nodes; 0 or 1 = Laplace
	ML    bool // gaussian glmm: maximum likelihood instead of REML
}

// Coef is one coefficient of a fitted model, with its odds ratio and 95%
// Wald interval.
type Coef struct {
	Term               string // (Intercept), a numeric column, or col[level]
	Estimate, SE, Z, P float64
	OR, ORLo, ORHi     float64
}

// RandomEffect is one random effect of a GLMM: a random intercept, or
// with families one coefficient of a random term.
type RandomEffect struct {
	Group  string
	SD     float64
	Levels int
	// Effect names the coefficient ("(Intercept)", a slope's column) and
	// Corr holds its correlations with the term's earlier coefficients
	// (lme4's summary layout); set with families only.
	Effect string
	Corr   []float64
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
	Warnings     []Warning
	// Fit is set for models with families; it is "" for the logistic
	// models named by family logit, gee or glmm, whose output is that of
	// before families, and the fields below are then unset.
	Fit    ModelFit
	Family stats.Family
	Link   stats.Link
	// Stat names the Wald statistic of the coefficients: "z", or "t" for
	// a Gaussian GLM (p-values on DFResidual degrees of freedom).
	Stat string
	// Dispersion is the scale φ (1 for binomial and Poisson GLMs; the
	// Pearson estimate for Gaussian; GEE: its moment estimate) and
	// ResidualSD = √φ for Gaussian models (NaN otherwise).
	Dispersion, ResidualSD float64
	// Deviance, AIC and BIC of a GLM (NaN otherwise); NObs the number of
	// observations and DFResidual NObs − p.
	Deviance, NullDeviance, AIC, BIC, NObs, DFResidual float64
	// REML reports a Gaussian GLMM fitted by REML, and REMLCrit is its
	// criterion (lmer's "REML criterion at convergence"; NaN otherwise).
	REML     bool
	REMLCrit float64
	// Fitted is the fitted model, for the estimators built on it
	// (contrasts, the bootstrap).
	Fitted *FittedModel `json:"-"`
}

// parseFormula parses a model formula, as a SpecError on failure.
func parseFormula(s string) (*formula.Formula, error) {
	if s == "" {
		return nil, fieldErr("Formula", "{Formula} is required, e.g. {Formula} \"eos ~ contract + fault_mode\"")
	}
	f, err := formula.Parse(s)
	if err != nil {
		return nil, fieldErr("Formula", "{Formula}: %v", err)
	}
	return f, nil
}

// randomTerms renders the formula's random terms, "(1 | a) + (1 | b)".
func randomTerms(f *formula.Formula) string {
	var s []string
	for _, r := range f.Random {
		s = append(s, r.String())
	}
	return strings.Join(s, " + ")
}

// check validates a legacy spec (family logit, gee or glmm) against its
// formula (usage errors) and fills in the defaults.
func (spec *ModelSpec) check(f *formula.Formula, weighted bool) error {
	if spec.Family == "" {
		switch {
		case f.HasRandom():
			spec.Family = FamilyGLMM
		case spec.Group != "":
			spec.Family = FamilyGEE
		default:
			spec.Family = FamilyLogit
		}
	}
	if spec.Corr == "" {
		spec.Corr = stats.Exchangeable
	}
	if spec.Cov == "" {
		spec.Cov = stats.Robust
	}
	if spec.Convention == "" {
		spec.Convention = stats.Statsmodels
	}
	if spec.NAGQ < 0 {
		return fieldErr("NAGQ", "{NAGQ} %d: want 1 (Laplace) or more quadrature nodes", spec.NAGQ)
	}
	spec.NAGQ = max(spec.NAGQ, 1)
	switch spec.Family {
	case "logit":
		if len(f.Random) > 0 {
			return fieldErr("Family", "random intercepts %s need {Family} glmm", randomTerms(f))
		}
	case "gee":
		if len(f.Random) > 0 {
			return fieldErr("Family", "random intercepts %s need {Family} glmm (GEE takes {Group})", randomTerms(f))
		}
		if spec.Group == "" {
			return fieldErr("Group", "{Family} gee needs {Group} COL (the cluster, e.g. task)")
		}
		switch spec.Corr {
		case "exchangeable", "independence":
		default:
			return fieldErr("Corr", "{Corr} %q: want exchangeable or independence", spec.Corr)
		}
		switch spec.Cov {
		case "robust", "bias-reduced", "kc", "naive":
		default:
			return fieldErr("Cov", "{Cov} %q: want robust, bias-reduced, kc or naive", spec.Cov)
		}
		switch spec.Convention {
		case "statsmodels", "geepack":
		default:
			return fieldErr("Convention", "{Convention} %q: want statsmodels or geepack", spec.Convention)
		}
	case "glmm":
		if len(f.Random) == 0 {
			return fieldErr("Family", "{Family} glmm needs at least one random intercept (1|group) in the formula")
		}
		if spec.NAGQ > 1 && len(f.Random) > 1 {
			return fieldErr("NAGQ", "{NAGQ} %d needs a single random intercept; the formula has %d", spec.NAGQ, len(f.Random))
		}
	default:
		return fieldErr("Family", "{Family} %q: want logit, gee or glmm", spec.Family)
	}
	if weighted && spec.Family != "logit" {
		return fieldErr("Weight", "{Weight}: {Family} %s is unweighted", spec.Family)
	}
	if spec.Firth && spec.Family != "logit" {
		return fieldErr("Firth", "{Firth} applies to {Family} logit")
	}
	if spec.Group != "" && spec.Family != "gee" {
		return fieldErr("Group", "{Group} applies to {Family} gee (use (1|%s) for a GLMM)", spec.Group)
	}
	if spec.Order != "" || spec.Link != "" || spec.ML {
		return fieldf("Family", "%s is a logistic model of before families; Order, Link and ML need Family binomial, poisson or gaussian", spec.Family)
	}
	return nil
}

// isLegacy reports whether spec asks for a logistic model of before
// families, with today's output: no Fit, Family "" or logit/gee/glmm, and
// a formula that such a model fits (a binary response, no offset).
func (spec *ModelSpec) isLegacy(f *formula.Formula) bool {
	slopes := slices.ContainsFunc(f.Random, func(r formula.RandomTerm) bool { return !r.IsIntercept() || r.Uncorrelated })
	return spec.Fit == "" && spec.Family.legacy() && f.Cbind == nil && len(f.Offsets) == 0 && spec.Order == "" && spec.Link == "" && spec.Corr != stats.AR1 && !slopes
}

// resolve validates a spec with families (usage errors naming the spec's
// fields) and fills in the defaults: the fit, the family and its link.
func (spec *ModelSpec) resolve(f *formula.Formula, weighted bool) (stats.Family, error) {
	switch spec.Family {
	case FamilyLogit:
		spec.Family = FamilyBinomial
		if spec.Fit == "" {
			spec.Fit = FitGLM
		}
	case FamilyGEE, FamilyGLMM:
		fit := ModelFit(spec.Family)
		if spec.Fit != "" && spec.Fit != fit {
			return "", fieldf("Fit", "%s contradicts Family %s; give Family binomial, poisson or gaussian", spec.Fit, spec.Family)
		}
		spec.Fit, spec.Family = fit, FamilyBinomial
	case "":
		spec.Family = FamilyBinomial
	}
	fam := stats.Family(spec.Family)
	if !fam.Valid() {
		return "", fieldf("Family", "%q: want binomial, poisson or gaussian", spec.Family)
	}
	if spec.Fit == "" {
		switch {
		case f.HasRandom():
			spec.Fit = FitGLMM
		case spec.Group != "":
			spec.Fit = FitGEE
		default:
			spec.Fit = FitGLM
		}
	}
	if spec.Link == "" {
		spec.Link = fam.CanonicalLink()
	}
	var l stats.Link
	if err := l.UnmarshalText([]byte(spec.Link)); err != nil {
		return "", fieldf("Link", "%v", err)
	}
	if !spec.Link.Allowed(fam) {
		return "", fieldf("Link", "%s does not apply to family %s (binomial: logit, probit, cloglog; poisson and gaussian: log, identity)", spec.Link, fam)
	}
	if f.Cbind != nil && fam != stats.Binomial {
		return "", fieldf("Formula", "a cbind(successes, failures) response is binomial; the family is %s", fam)
	}
	if spec.NAGQ < 0 {
		return "", fieldf("NAGQ", "%d: want 1 (Laplace) or more quadrature nodes", spec.NAGQ)
	}
	spec.NAGQ = max(spec.NAGQ, 1)
	switch spec.Fit {
	case FitGLM, FitGEE:
		if f.HasRandom() {
			return "", fieldf("Fit", "%s does not take random terms; %s need Fit glmm", spec.Fit, randomTerms(f))
		}
	case FitGLMM:
		if !f.HasRandom() {
			return "", fieldf("Fit", "glmm needs at least one random term such as (1 | group) in the formula")
		}
	default:
		return "", fieldf("Fit", "%q: want glm, gee or glmm", spec.Fit)
	}
	if spec.Fit == FitGEE {
		if spec.Group == "" {
			return "", fieldf("Group", "Fit gee needs the cluster column (Group)")
		}
		if spec.Corr == "" {
			spec.Corr = stats.Exchangeable
		}
		if !spec.Corr.Valid() {
			return "", fieldf("Corr", "%q: want independence, exchangeable or ar1", spec.Corr)
		}
		if spec.Cov == "" {
			spec.Cov = stats.Robust
		}
		if !spec.Cov.Valid() {
			return "", fieldf("Cov", "%q: want robust, bias-reduced, kc or naive", spec.Cov)
		}
		if spec.Convention == "" {
			spec.Convention = stats.Statsmodels
			if spec.Corr == stats.AR1 {
				spec.Convention = stats.Geepack
			}
		}
		if !spec.Convention.Valid() {
			return "", fieldf("Convention", "%q: want statsmodels or geepack", spec.Convention)
		}
		if spec.Corr == stats.AR1 {
			if spec.Order == "" {
				return "", fieldf("Order", "the ar1 working correlation needs the column that orders a cluster's rows (Order)")
			}
			if spec.Convention != stats.Geepack {
				return "", fieldf("Convention", "the ar1 working correlation is estimated as geepack does; use the geepack convention")
			}
		} else if spec.Order != "" {
			return "", fieldf("Order", "orders rows for the ar1 working correlation; Corr is %s", spec.Corr)
		}
	} else {
		if spec.Group != "" {
			return "", fieldf("Group", "applies to Fit gee (for a GLMM write (1 | %s) in the formula)", spec.Group)
		}
		if spec.Order != "" {
			return "", fieldf("Order", "applies to Fit gee with Corr ar1")
		}
	}
	if spec.ML && !(spec.Fit == FitGLMM && fam == stats.Gaussian) {
		return "", fieldf("ML", "applies to a gaussian glmm (REML or ML)")
	}
	if weighted && !(spec.Fit == FitGLM && fam == stats.Binomial && f.Cbind == nil) {
		return "", fieldf("Weight", "weights apply to a binomial glm of a binary outcome")
	}
	if spec.Firth && !(spec.Fit == FitGLM && fam == stats.Binomial && spec.Link == stats.LinkLogit) {
		return "", fieldf("Firth", "applies to a binomial glm with the logit link")
	}
	return fam, nil
}

// geeCollapseLimit is the share of distinct (cluster, covariate pattern)
// cells among the first frame.CollapseProbe rows above which GEE stops
// merging rows: collapsing pays when cells ≪ rows (factor-only designs,
// low-cardinality numbers), and stats.GEECollapsed is exact either way.
const geeCollapseLimit = 0.5

// Model fits a generalised linear model of the formula's response.
//
// With Family logit, gee or glmm (or none, and no Fit), it is the logistic
// model of before families, with its output:
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
// Otherwise Fit glm fits the binomial, Poisson or Gaussian family by IRLS
// (stats.GLM; a binomial logit model of a binary outcome by stats.Logistic,
// as logit), with offsets and cbind(successes, failures) responses; Fit
// gee fits any family with the independence, exchangeable or AR(1)
// working correlation (stats.GEEGLM; the binomial logit model with the
// first two by stats.GEECollapsed, as gee).
//
// Odds ratios carry 95% Wald intervals. Only binomial GLMs of a binary
// outcome take q.Weight.
func Model(q Query, spec ModelSpec) (*ModelResult, error) {
	f, err := parseFormula(spec.Formula)
	if err != nil {
		return nil, err
	}
	if !spec.isLegacy(f) {
		return modelFamily(q, spec, f)
	}
	var warn warnings
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
		warn.addStats(r.Warnings)
		res.Converged = r.Converged
		res.Coefficients = logitCoefs(r, d, fr, spec.Firth, &warn)
		res.LogLik = r.LogLik
		res.keep(f, fr, d, r.Coef, r.Cov)
	case "gee":
		r, d, rows, err := q.geeCollapsed(f, spec, &warn)
		if err != nil {
			return nil, err
		}
		fr = rows
		res.keep(f, fr, d, r.Coef, r.Cov)
		res.Converged = r.Converged
		res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
		res.Alpha = r.Alpha
		res.Clusters = r.NClusters
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
		warn.addMixed(r.Warnings)
		res.Converged = r.Converged
		res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
		for k, g := range gs {
			res.Random = append(res.Random, RandomEffect{Group: g.Name, SD: r.SD[k], Levels: len(g.Levels)})
		}
		res.keep(f, fr, d, r.Coef, r.Cov)
		res.LogLik = r.LogLik
		res.Singular = r.Singular
	}
	res.N = fr.Rows
	res.Warnings = warn.items()
	return res, nil
}

// logitCoefs are the coefficients of a logistic fit, the separated terms'
// as NaN with a warning (unless Firth).
func logitCoefs(r *stats.LogisticResult, d *formula.Design, fr *frame.Frame, firth bool, warn *warnings) []Coef {
	out := coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
	if r.Separation && !firth {
		var terms []string
		for _, j := range r.SeparatedTerms {
			terms = append(terms, d.Names[j])
			out[j] = Coef{Term: d.Names[j], Estimate: nan, SE: nan, Z: nan, P: nan, OR: nan, ORLo: nan, ORHi: nan}
		}
		msg := "estimates of the separated terms " + strings.Join(terms, ", ") + " are reported as null"
		if sep := formula.Separated(d, fr); len(sep) > 0 {
			msg += "; levels with a constant outcome: " + strings.Join(sep, ", ")
		}
		warn.addField(WarnSeparation, "Firth", "%s; use {Firth} for finite estimates", msg)
	}
	return out
}

// geeCollapsed fits the binomial logit GEE on (cluster, pattern) cells.
func (q *Query) geeCollapsed(f *formula.Formula, spec ModelSpec, warn *warnings) (*stats.GEEResult, *formula.Design, *frame.Frame, error) {
	fr, d, err := q.modelDesign(f, []string{spec.Group}, "", true, geeCollapseLimit, spec.Refs, warn)
	if err != nil {
		return nil, nil, nil, err
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
		return nil, nil, nil, fitError(err)
	}
	warn.addStats(r.Warnings)
	if r.NClusters < 40 && spec.Cov == "robust" {
		warn.addField(WarnFewClusters, "Cov", "only %d clusters: the robust sandwich is biased downwards; consider {Cov} bias-reduced or kc", r.NClusters)
	}
	return r, d, fr, nil
}

// modelFamily fits a spec with families (see Model).
func modelFamily(q Query, spec ModelSpec, f *formula.Formula) (*ModelResult, error) {
	var warn warnings
	fam, err := spec.resolve(f, q.Weight != "")
	if err != nil {
		return nil, err
	}
	res := &ModelResult{Spec: spec, Formula: f.String(), Alpha: math.NaN(), LogLik: math.NaN(), Fit: spec.Fit, Family: fam, Link: spec.Link,
		Stat: "z", REMLCrit: math.NaN(), Dispersion: math.NaN(), ResidualSD: math.NaN(), Deviance: math.NaN(), NullDeviance: math.NaN(), AIC: math.NaN(), BIC: math.NaN(), NObs: math.NaN(), DFResidual: math.NaN()}
	binary := fam == stats.Binomial && f.Cbind == nil
	switch spec.Fit {
	case FitGLM:
		if binary && spec.Link == stats.LinkLogit && len(f.Offsets) == 0 {
			// The logistic model of before families: the same numbers.
			fr, d, err := q.modelDesign(f, nil, q.Weight, true, 0, spec.Refs, &warn)
			if err != nil {
				return nil, err
			}
			r, err := stats.Logistic(d.X, fr.Y(), fr.W(), stats.LogisticOptions{Firth: spec.Firth, Names: d.Names})
			if err != nil {
				return nil, fitError(err)
			}
			warn.addStats(r.Warnings)
			res.keep(f, fr, d, r.Coef, r.Cov)
			res.Converged = r.Converged
			res.Coefficients = logitCoefs(r, d, fr, spec.Firth, &warn)
			res.LogLik, res.Deviance, res.NObs = r.LogLik, r.Deviance, r.SumW
			res.NullDeviance = -2 * r.NullLogLik
			k := float64(len(d.Names))
			res.AIC, res.BIC, res.DFResidual, res.Dispersion = -2*r.LogLik+2*k, -2*r.LogLik+k*math.Log(r.SumW), r.SumW-k, 1
			res.N = fr.Rows
			break
		}
		fr, d, y, w, trials, off, err := q.familyData(f, spec, fam, nil, true, &warn)
		if err != nil {
			return nil, err
		}
		r, err := stats.GLM(d.X, y, stats.GLMOptions{Family: fam, Link: spec.Link, Weights: w, Trials: trials, Offset: off, Names: d.Names})
		if err != nil {
			return nil, fitError(err)
		}
		warn.addStats(r.Warnings)
		res.keep(f, fr, d, r.Coef, r.Cov)
		res.Converged = r.Converged
		res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
		if !fam.FixedScale() {
			res.Stat = "t"
			res.ResidualSD = r.ResidualSD
		}
		res.Dispersion, res.Deviance, res.NullDeviance, res.LogLik, res.AIC, res.BIC = r.Dispersion, r.Deviance, r.NullDeviance, r.LogLik, r.AIC, r.BIC
		res.NObs, res.DFResidual = r.NObs, r.DFResidual
		res.N = fr.Rows
	case FitGEE:
		if binary && spec.Link == stats.LinkLogit && len(f.Offsets) == 0 && spec.Corr != stats.AR1 {
			r, d, fr, err := q.geeCollapsed(f, spec, &warn)
			if err != nil {
				return nil, err
			}
			res.keep(f, fr, d, r.Coef, r.Cov)
			res.Converged = r.Converged
			res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
			res.Alpha, res.Clusters, res.Dispersion, res.N = r.Alpha, r.NClusters, r.Scale, fr.Rows
			break
		}
		extra := []string{spec.Group}
		if spec.Order != "" {
			extra = append(extra, spec.Order)
		}
		fr, d, y, w, _, off, err := q.familyData(f, spec, fam, extra, false, &warn)
		if err != nil {
			return nil, err
		}
		cluster, wave, err := clustersOf(fr, spec)
		if err != nil {
			return nil, err
		}
		r, err := stats.GEEGLM(d.X, y, cluster, wave, stats.GEEOptions{Family: fam, Link: spec.Link, Weights: w, Offset: off,
			Corr: spec.Corr, Cov: spec.Cov, Convention: spec.Convention, Names: d.Names})
		if err != nil {
			return nil, fitError(err)
		}
		warn.addStats(r.Warnings)
		if r.NClusters < 40 && spec.Cov == stats.Robust {
			warn.addField(WarnFewClusters, "Cov", "only %d clusters: the robust sandwich is biased downwards; consider {Cov} bias-reduced or kc", r.NClusters)
		}
		res.keep(f, fr, d, r.Coef, r.Cov)
		res.Converged = r.Converged
		res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
		res.Alpha, res.Clusters, res.Dispersion, res.N = r.Alpha, r.NClusters, r.Scale, fr.Rows
		if fam == stats.Gaussian {
			res.ResidualSD = math.Sqrt(r.Scale)
		}
	case FitGLMM:
		return q.modelGLMM(spec, f, fam, res, &warn)
	}
	res.Warnings = warn.items()
	return res, nil
}

// clustersOf codes the cluster column of a GEE and, for ar1, each row's
// wave: the rank of its Order value among all values. Two rows of a
// cluster with the same Order value are an error naming the cluster.
func clustersOf(fr *frame.Frame, spec ModelSpec) (cluster, wave []int, err error) {
	g := fr.Col(spec.Group)
	cluster = make([]int, fr.Len())
	for i, c := range g.Codes {
		cluster[i] = int(c)
	}
	if spec.Order == "" {
		return cluster, nil, nil
	}
	o := fr.Col(spec.Order)
	wave = make([]int, fr.Len())
	seen := map[[2]int32]bool{}
	for i, c := range o.Codes {
		key := [2]int32{g.Codes[i], c}
		if seen[key] {
			return nil, nil, fmt.Errorf("order column %s: cluster %s = %s has two rows with %s = %s; the ar1 working correlation needs one row per value within a cluster", spec.Order, spec.Group, g.Level(i), spec.Order, o.Level(i))
		}
		seen[key] = true
		wave[i] = int(c)
	}
	return cluster, wave, nil
}

// familyData reads the frame of a model with families and builds its
// design, response, prior weights, binomial trials (cbind) and offsets.
// collapse merges identical rows (exact for GLMs: they become frequency
// weights); GEE keeps rows.
func (q *Query) familyData(f *formula.Formula, spec ModelSpec, fam stats.Family, extra []string, collapse bool, warn *warnings) (fr *frame.Frame, d *formula.Design, y, w, trials, off []float64, err error) {
	binary := fam == stats.Binomial && f.Cbind == nil
	cols := f.CovariateColumns()
	for _, c := range slices.Concat(extra, q.extra) {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	fs := frame.Spec{Collapse: collapse}
	if binary {
		fs.Outcome = f.Response
	} else {
		for _, c := range f.ResponseColumns() {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
		fs.Check = responseCheck(f, fam)
	}
	if len(f.Offsets) > 0 {
		prev := fs.Check
		fs.Check = func(r frame.Row) error {
			if prev != nil {
				if err := prev(r); err != nil {
					return err
				}
			}
			return offsetCheck(f, r)
		}
	}
	fs.Columns = cols
	fr, err = q.readFrame(fs, warn)
	if err != nil {
		return
	}
	if binary {
		if err = checkOutcome(fr, f.Response); err != nil {
			return
		}
	}
	if d, err = formula.Build(f, fr, formula.Options{Ref: spec.Refs}); err != nil {
		return
	}
	warn.add(WarnDroppedTerm, d.Warnings...)
	if off, err = formula.Offset(f, fr); err != nil {
		return
	}
	w = fr.W()
	switch {
	case binary:
		y = fr.Y()
	case f.Cbind != nil:
		var k []float64
		if k, trials, err = formula.Trials(f, fr); err != nil {
			return
		}
		y = make([]float64, len(k))
		for i := range k {
			if trials[i] > 0 {
				y[i] = k[i] / trials[i]
			}
			w[i] *= trials[i]
		}
	default:
		c := fr.Col(f.Response)
		y = make([]float64, fr.Len())
		for i := range y {
			y[i] = c.Value(i)
		}
	}
	return
}

// responseCheck validates a row's response for the family: a number
// (Gaussian), a count ≥ 0 (Poisson), or cbind counts ≥ 0 (binomial); the
// error is a ledger.Problem naming the column, which the reader places.
func responseCheck(f *formula.Formula, fam stats.Family) func(frame.Row) error {
	return func(r frame.Row) error {
		vals := map[string]float64{}
		for _, c := range f.ResponseColumns() {
			v, _ := r.Get(c)
			x, ok := frame.Number(v)
			if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
				return ledger.Problem{Field: c, Msg: fmt.Sprintf("%s response: value %q is not a number", fam, v.String())}
			}
			vals[c] = x
		}
		if f.Cbind != nil {
			get := func(c string) float64 { return vals[c] }
			for _, side := range []struct {
				name string
				e    *formula.Expr
			}{{"successes", f.Cbind.Successes}, {"failures", f.Cbind.Failures}} {
				if v := side.e.Eval(get); !(v >= 0) {
					return ledger.Problem{Field: side.e.Columns()[0], Msg: fmt.Sprintf("cbind %s %s = %v is negative (want counts ≥ 0)", side.name, side.e, v)}
				}
			}
			return nil
		}
		if v := vals[f.Response]; fam == stats.Poisson && v < 0 {
			return ledger.Problem{Field: f.Response, Msg: fmt.Sprintf("poisson response: value %v is a negative count", v)}
		}
		return nil
	}
}

// offsetCheck checks that a row's offsets are finite numbers.
func offsetCheck(f *formula.Formula, r frame.Row) error {
	for _, e := range f.Offsets {
		var bad string
		get := func(c string) float64 {
			v, _ := r.Get(c)
			x, ok := frame.Number(v)
			if !ok {
				bad = c
				return math.NaN()
			}
			return x
		}
		v := e.Eval(get)
		if bad != "" {
			return ledger.Problem{Field: bad, Msg: fmt.Sprintf("offset(%s): the column is not a number", e)}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ledger.Problem{Field: e.Columns()[0], Msg: fmt.Sprintf("offset(%s) = %v is not a finite number", e, v)}
		}
	}
	return nil
}

// modelGLMM fits a GLMM with families by package mixed: one block of Z
// per random term, the term's left side coded as fixed terms are
// (formula.RandomDesign) over the levels of its grouping factor; a
// Gaussian model by REML unless ML.
func (q *Query) modelGLMM(spec ModelSpec, f *formula.Formula, fam stats.Family, res *ModelResult, warn *warnings) (*ModelResult, error) {
	var link mixed.Link
	if err := link.UnmarshalText([]byte(spec.Link)); err != nil {
		return nil, fieldf("Link", "%v", err)
	}
	if fam == stats.Gaussian && spec.Link != stats.LinkIdentity {
		return nil, fieldf("Link", "a gaussian glmm takes the identity link only")
	}
	if fam == stats.Poisson && spec.Link != stats.LinkLog {
		return nil, fieldf("Link", "a poisson glmm takes the log link only")
	}
	if spec.NAGQ > 1 && (len(f.Random) > 1 || !f.Random[0].IsIntercept()) {
		return nil, fieldf("NAGQ", "%d needs a single random intercept (1|g); the formula has %s", spec.NAGQ, randomTerms(f))
	}
	fr, d, y, w, trials, off, err := q.familyData(f, spec, fam, nil, false, warn)
	if err != nil {
		return nil, err
	}
	ms := mixed.Spec{X: d.X, Family: mixed.Family(fam), Link: link, Offset: off, REML: fam == stats.Gaussian && !spec.ML}
	ms.Y = y
	if trials != nil {
		ms.Y = make([]float64, len(y))
		for i := range y {
			ms.Y[i] = math.Round(y[i] * trials[i])
		}
		ms.Trials = trials
	} else if slices.ContainsFunc(w, func(v float64) bool { return v != 1 }) {
		ms.Weights = w
	}
	var levels []int
	for _, r := range f.Random {
		g, err := formula.Group(r, fr)
		if err != nil {
			return nil, err
		}
		rd, err := formula.RandomDesign(r, fr, formula.Options{Ref: spec.Refs})
		if err != nil {
			return nil, err
		}
		t := mixed.Term{Name: g.Name, Group: g.Index, Levels: len(g.Levels), Coef: rd.Names, Diagonal: r.Uncorrelated}
		n, _ := rd.X.Dims()
		for j, name := range rd.Names {
			if name == "(Intercept)" {
				t.Z = append(t.Z, nil)
				continue
			}
			t.Z = append(t.Z, mat.Col(nil, j, rd.X)[:n])
		}
		ms.Terms = append(ms.Terms, t)
		levels = append(levels, len(g.Levels))
	}
	r, err := mixed.Fit(ms, mixed.Options{NAGQ: spec.NAGQ})
	if err != nil {
		return nil, fitError(err)
	}
	warn.addMixed(r.Warnings)
	res.Converged = r.Converged
	res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
	if fam == stats.Gaussian {
		res.Stat = "t"
		res.ResidualSD, res.Dispersion = r.Sigma, r.Sigma*r.Sigma
		res.REML = ms.REML
		res.REMLCrit = r.REMLCrit
	}
	for k, tf := range r.Terms {
		for j, c := range tf.Coef {
			re := RandomEffect{Group: tf.Name, Effect: c, SD: tf.SD[j], Levels: levels[k]}
			for i := range j {
				re.Corr = append(re.Corr, tf.Corr.At(j, i))
			}
			res.Random = append(res.Random, re)
		}
	}
	res.LogLik, res.AIC, res.BIC, res.Deviance = r.LogLik, r.AIC, r.BIC, r.Deviance
	res.Singular = r.Singular
	res.keep(f, fr, d, r.Coef, r.Cov)
	res.N, res.NObs = fr.Rows, float64(r.N)
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
	cols := f.CovariateColumns()
	for _, c := range slices.Concat(extra, q.extra) {
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
	warn.add(WarnDroppedTerm, d.Warnings...)
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
