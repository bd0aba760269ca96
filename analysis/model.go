package analysis

import (
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/internal/enum"
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

// The logistic models of before families, as ModelSpec.Family names them
// (the command's --family logit|gee|glmm, a preregistration's model).
// Model translates such a spec into the spec with families it is (fit
// glm, gee or glmm, family binomial, link logit) before anything else,
// and fits it as any other; only the result's layout stays theirs.
const (
	FamilyLogit stats.Family = "logit"
	FamilyGEE   stats.Family = "gee"
	FamilyGLMM  stats.Family = "glmm"
)

// legacyFits are the fits the logistic models of before families name.
var legacyFits = map[stats.Family]ModelFit{FamilyLogit: FitGLM, FamilyGEE: FitGEE, FamilyGLMM: FitGLMM}

// ModelSpec is a Model analysis: a generalised linear model (GLM, GEE or
// GLMM) given by an R-like formula (formula.Parse).
type ModelSpec struct {
	// Fit is glm, gee or glmm; "" chooses glmm when the formula has random
	// terms, gee when Group is set and glm otherwise.
	Fit ModelFit
	// Family is binomial (the default), poisson or gaussian; or logit,
	// gee or glmm (with Fit "" or the fit it names), a logistic model of
	// before families, which keeps its output (FamilyLogit).
	Family  stats.Family
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

// Coef is one coefficient of a fitted model, with exp(estimate) (the odds
// ratio of a logit model) and its 95% Wald interval.
type Coef struct {
	Term               string // (Intercept), a numeric column, or col[level]
	Estimate, SE, Z, P float64
	OR, ORLo, ORHi     float64
}

// RandomEffect is one coefficient of a GLMM's random term: a random
// intercept or slope.
type RandomEffect struct {
	Group  string
	SD     float64
	Levels int
	// Effect names the coefficient ("(Intercept)", a slope's column) and
	// Corr holds its correlations with the term's earlier coefficients
	// (lme4's summary layout).
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
	LogLik       float64        // glm and glmm (NaN for gee)
	Singular     bool           // glmm: a variance at its boundary
	Clusters     int            // gee
	Warnings     []Warning
	// Fit is how the model was fitted; it is "" for a logistic model of
	// before families (Spec.Family logit, gee or glmm, or neither Fit nor
	// Family given, and a model such as those fit), whose output keeps
	// their layout. Family and Link are the model's either way.
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
	// Deviance, AIC and BIC of a GLM or GLMM (NaN otherwise); NObs the
	// number of observations and DFResidual NObs − p.
	Deviance, NullDeviance, AIC, BIC, NObs, DFResidual float64
	// REML reports a Gaussian GLMM fitted by REML, and REMLCrit is its
	// criterion (lmer's "REML criterion at convergence"; NaN otherwise).
	REML     bool
	REMLCrit float64
	// Fitted is the fitted model behind these numbers, for estimators
	// built on it (contrasts, predictions); nil when Model failed.
	Fitted *FittedModel `json:"-"`
}

// FittedModel is a fitted GLM, GEE or GLMM as the estimators built on a
// model use it: the frame it was fitted on, the design, the estimates
// with their covariance, the family and link and, for a GLMM, the random
// terms. A prediction at rows of the frame is g⁻¹(Xβ + offset).
type FittedModel struct {
	Formula *formula.Formula
	// Frame holds the fitted rows' columns: one row per episode, or per
	// covariate pattern (GLM of a binary outcome: its Cells count the
	// episodes and events, weighted when Weighted) or per (cluster,
	// pattern) cell (GEE of a binary outcome).
	Frame    *frame.Frame
	Weighted bool // Frame's cells carry a weight column's sums
	// Design is the fixed-effects design over Frame's rows (formula.Build
	// with Refs); Offset the offsets per row (nil: none).
	Design *formula.Design
	Refs   map[string]string
	Offset []float64
	// Coef are β in the order of Design.Names, as the fitter left them
	// (a separated term's diverging estimate, which the result's
	// Coefficients report as NaN); Cov their covariance: the inverse
	// information of a GLM (× the dispersion; Firth's at its estimate),
	// the sandwich Spec.Cov names for a GEE (robust by default), lme4's
	// vcov for a GLMM (2H⁻¹ of the deviance's Hessian over (θ, β), or RX;
	// docs/methods.md, "GLMM standard errors").
	Coef   []float64
	Cov    *mat.SymDense
	Fit    ModelFit
	Family stats.Family
	Link   stats.Link
	// Group is a GEE's cluster column.
	Group string
	// Terms are a GLMM's random terms, in the formula's order; predictions
	// at the population level set their effects to 0.
	Terms []RandomTerm
}

// RandomTerm is one random term of a fitted GLMM, lme4's (z₁ + … | g):
// its grouping factor, the names of its coefficients and their
// covariance matrix (σ²ΛΛᵀ for a Gaussian model, ΛΛᵀ otherwise), and
// each level's conditional modes (lme4's ranef).
type RandomTerm struct {
	Group  string
	Coef   []string
	Cov    *mat.SymDense
	Levels []string
	Modes  [][]float64 // Modes[l][j]: coefficient j at level l
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

// Model fits a generalised linear model of the formula's response.
//
// Fit glm fits the binomial, Poisson or Gaussian family by IRLS
// (stats.GLM), with offsets and cbind(successes, failures) responses; a
// binomial logit model of a binary outcome by stats.Logistic on rows
// collapsed to covariate patterns (Firth 1993 with Firth), so that
// factor-only models on millions of rows are fast, its separated terms
// reported in the warnings and their estimates as NaN. Fit gee fits any
// family with the independence, exchangeable or AR(1) working correlation
// (stats.GEEGLM; Liang & Zeger 1986), the binomial logit model of a
// binary outcome with the first two on (cluster, covariate pattern)
// cells (stats.GEECollapsed), which is exact, so memory follows the
// cells. Fit glmm fits random terms by package mixed: Laplace or adaptive
// Gauss–Hermite, as lme4's glmer, or REML/ML as lmer for a Gaussian
// model.
//
// A spec naming a logistic model of before families (Family logit, gee
// or glmm, or neither Fit nor Family) is first translated into the spec
// it is (glm, gee or glmm binomial logit) and fitted the same way; when
// the model is one of theirs (a binary response without offsets, scalar
// random intercepts, no ar1), the result keeps their layout (Fit "").
//
// Exp(estimate) carries a 95% Wald interval. Only binomial GLMs of a
// binary outcome take q.Weight.
func Model(q Query, spec ModelSpec) (*ModelResult, error) {
	f, err := parseFormula(spec.Formula)
	if err != nil {
		return nil, err
	}
	given := spec
	legacy, err := spec.general(f)
	if err != nil {
		return nil, err
	}
	if err := spec.resolve(f, q.Weight != "", legacy); err != nil {
		return nil, err
	}
	res, err := fitModel(q, spec, f)
	if err != nil {
		return nil, err
	}
	if legacy != "" {
		res.Spec, res.Fit = legacySpec(given, legacy), ""
	}
	return res, nil
}

// general translates a spec naming a logistic model of before families
// into the spec with families it is, the one every model is fitted by,
// and returns the model's name when the result keeps its layout: Fit ""
// and Family logit, gee, glmm or "" (named by the formula: glmm with
// random terms, gee with Group, else logit), for a model of theirs.
func (spec *ModelSpec) general(f *formula.Formula) (stats.Family, error) {
	name := spec.Family
	fit, named := legacyFits[name]
	switch {
	case named && spec.Fit != "" && spec.Fit != fit && name != FamilyLogit:
		// logit, also the binomial family's link, goes with any fit.
		return "", fieldf("Fit", "%s contradicts Family %s; give Family binomial, poisson or gaussian", spec.Fit, name)
	case named:
		spec.Family = stats.Binomial
		if spec.Fit != "" {
			return "", nil // Fit and Family name the same fit: the output of families
		}
		spec.Fit = fit
	case name != "" || spec.Fit != "":
		return "", nil
	}
	slopes := slices.ContainsFunc(f.Random, func(r formula.RandomTerm) bool { return !r.IsIntercept() || r.Uncorrelated })
	if f.Cbind != nil || len(f.Offsets) > 0 || spec.Order != "" || spec.Link != "" || spec.Corr == stats.AR1 || slopes {
		return "", nil // not one of their models: the output of families
	}
	if !named {
		switch {
		case f.HasRandom():
			name = FamilyGLMM
		case spec.Group != "":
			name = FamilyGEE
		default:
			name = FamilyLogit
		}
	}
	return name, nil
}

// legacySpec is the spec a logistic model of before families reports:
// as given, its Family the model's name, with that model's defaults.
func legacySpec(s ModelSpec, name stats.Family) ModelSpec {
	s.Family = name
	if s.Corr == "" {
		s.Corr = stats.Exchangeable
	}
	if s.Cov == "" {
		s.Cov = stats.Robust
	}
	if s.Convention == "" {
		s.Convention = stats.Statsmodels
	}
	s.NAGQ = max(s.NAGQ, 1)
	return s
}

// newModelResult is a result with every number that a fit may leave
// undefined set to NaN.
func newModelResult(spec ModelSpec, f *formula.Formula) *ModelResult {
	return &ModelResult{Spec: spec, Formula: f.String(), Alpha: math.NaN(), LogLik: math.NaN(), Fit: spec.Fit, Family: spec.Family, Link: spec.Link,
		Stat: "z", REMLCrit: math.NaN(), Dispersion: math.NaN(), ResidualSD: math.NaN(), Deviance: math.NaN(), NullDeviance: math.NaN(),
		AIC: math.NaN(), BIC: math.NaN(), NObs: math.NaN(), DFResidual: math.NaN()}
}
