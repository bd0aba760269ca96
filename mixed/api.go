package mixed

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/stats"
)

// Term is one random-effects term, lme4's (z₁ + … + z_c | g): c
// coefficients that vary over the levels of the grouping factor g, with a
// c×c covariance matrix σ²ΛΛᵀ (Gaussian) or ΛΛᵀ (otherwise), Λ lower
// triangular (Diagonal: diagonal, lme4's (z₁ + … || g)). A nested term
// (1 | a/b) is two terms, (1 | a) and (1 | a:b), with the a:b levels coded
// by the caller.
type Term struct {
	Name   string   // grouping factor name, for results and messages
	Group  []int    // level index of each row, 0..Levels-1
	Levels int      // number of levels (unused levels are allowed)
	Coef   []string // names of the term's columns, e.g. "(Intercept)", "Days"
	// Z[j][i] is the value of the term's j-th column at row i; a nil Z[j]
	// is a column of ones (the random intercept). len(Z) must equal
	// len(Coef); Z nil stands for a single intercept.
	Z        [][]float64
	Diagonal bool // uncorrelated coefficients (lme4's ||)
}

// Spec is a generalised linear mixed model and its data.
type Spec struct {
	X *mat.Dense // n×p fixed-effects design, including an intercept if wanted
	// Y is the response: successes (0/1 when Trials is nil) for Binomial,
	// a count for Poisson, a value for Gaussian.
	Y       []float64
	Weights []float64 // prior weights, nil = 1 (Gaussian: precision weights, as lmer's)
	Offset  []float64 // known part of η, nil = 0
	// Trials is the number of binomial trials per row (Y successes of
	// Trials, R's cbind(Y, Trials−Y)); nil = 1. Binomial only.
	Trials []float64
	// BernoulliRows says each row with Trials stands for Trials Bernoulli
	// rows (collapsed data): LogLik then omits the binomial coefficients
	// log C(Trials, Y), and N, BIC count Bernoulli rows, as if the rows had
	// not been collapsed. Without it LogLik is glmer's for cbind data.
	BernoulliRows bool
	// Family is the conditional distribution of the response given the
	// random effects: binomial (y successes of Trials), poisson (a count)
	// or gaussian (a linear mixed model).
	Family stats.Family
	// Link is g in g(E[y | u]) = η, "" for the family's canonical link.
	// Binomial takes logit, probit and cloglog; Poisson log; Gaussian
	// identity. Fit refuses the other links stats declares.
	Link  stats.Link
	Terms []Term // at least one
	// REML fits a Gaussian model by restricted maximum likelihood (lmer's
	// default, REML = TRUE); otherwise by maximum likelihood. Refused for
	// other families.
	REML bool
}

// WarningCode classifies a Warning.
type WarningCode int

// Warning codes. Each Warning's Message says what to do.
const (
	WarnSingular      WarningCode = iota + 1 // boundary (singular) fit: a variance or correlation at its bound
	WarnNotConverged                         // the optimiser stopped before converging
	WarnGradient                             // the scaled gradient at the optimum is above lme4's tolerance
	WarnHessian                              // Hessian not positive definite; SEs fell back to RX or are NaN
	WarnSingleObs                            // levels with a single observation
	WarnSeparation                           // (quasi-)separation in a binomial model
	WarnPIRLS                                // penalised IRLS broke down or did not converge in some evaluations
	WarnConstantSlope                        // a random slope column constant within every level
	WarnObsLevel                             // an observation-level random effect of a binary response
)

var warningNames = map[WarningCode]string{
	WarnSingular:      "singular",
	WarnNotConverged:  "not-converged",
	WarnGradient:      "gradient",
	WarnHessian:       "hessian",
	WarnSingleObs:     "single-observation",
	WarnSeparation:    "separation",
	WarnPIRLS:         "pirls",
	WarnConstantSlope: "constant-slope",
	WarnObsLevel:      "observation-level",
}

// String returns the code's stable name, e.g. "singular".
func (c WarningCode) String() string {
	if s, ok := warningNames[c]; ok {
		return s
	}
	return fmt.Sprintf("WarningCode(%d)", int(c))
}

// Warning is a diagnostic on a fit that does not stop it.
type Warning struct {
	Code    WarningCode
	Term    string // the random term concerned, "" for the whole fit
	Message string // one line, saying what to do
}

func (w Warning) String() string { return w.Message }

// TermFit is the fitted random part of one Term.
type TermFit struct {
	Name    string
	Coef    []string
	NLevels int       // sampled levels (lme4's "groups:" count)
	SD      []float64 // standard deviation of each coefficient
	// Corr is the correlation matrix of the coefficients (identity for a
	// Diagonal term; NaN entries where an SD is 0). Cov is the covariance
	// matrix, σ²ΛΛᵀ for Gaussian, ΛΛᵀ otherwise.
	Corr, Cov *mat.SymDense
	// Theta is the term's part of lme4's θ: the lower triangle of Λ by
	// columns (Diagonal: the diagonal), relative to σ for Gaussian.
	Theta []float64
	// Modes[l][j] is the conditional mode of coefficient j at level l
	// (lme4's ranef: b = Λu), 0 for unused levels.
	Modes [][]float64
}

// Fitted is a fitted mixed model. Slices over fixed effects follow the
// columns of X; Terms follow Spec.Terms.
type Fitted struct {
	Family stats.Family
	Link   stats.Link // the link used (never "")
	REML   bool

	Coef, SE, Z, P []float64     // β, standard error, Wald z (lmer: t), two-sided normal p
	Cov            *mat.SymDense // covariance of β used for SE
	SEMethod       string        // "Hessian" or "RX"

	Terms []TermFit
	Theta []float64 // all terms' Theta, concatenated in Spec.Terms order
	// Sigma is the residual standard deviation (Gaussian; 1 otherwise).
	Sigma float64

	// LogLik is the (Laplace-approximated, for non-Gaussian) log-likelihood
	// at the estimates: for a REML fit, the log-likelihood lme4's logLik
	// reports, −REMLCrit/2. Deviance is −2 LogLik.
	LogLik   float64
	REMLCrit float64 // REML criterion at the optimum (REML fits), NaN otherwise
	Deviance float64
	AIC, BIC float64
	NPar     int // parameters counted by AIC: p + len(Theta) (+1 for σ)
	N        int // rows (Bernoulli rows when Spec.BernoulliRows)
	NAGQ     int // quadrature nodes (1: Laplace; 0: lme4's nAGQ = 0; Gaussian: 0)

	Converged bool
	Singular  bool    // lme4's isSingular: some diagonal element of Λ below 1e-4
	MaxGrad   float64 // lme4's max|scaled gradient| (non-Gaussian), NaN when not computed
	Warnings  []Warning
	Iter      int // deviance evaluations
}

// ErrNotImplemented is returned by Fit for models it cannot fit yet.
var ErrNotImplemented = errors.New("mixed: not implemented yet")

// Fit fits the generalised linear mixed model s. Gaussian models are fitted
// as lme4's lmer (profiled deviance or REML criterion over θ, β and σ
// profiled out); binomial and Poisson models as glmer with the Laplace
// approximation, or adaptive Gauss–Hermite quadrature with opt.NAGQ > 1
// nodes and a single scalar term.
//
// Caller mistakes (lengths of Y, Weights, Offset, Trials, Group or Z
// columns that differ from X's rows, a level index out of range, len(Coef)
// ≠ len(Z), no terms, an unknown family or link) panic, as in FitLogit.
// Data problems (a response outside the family's support, NaN, rank
// deficient X, a grouping factor with fewer than two sampled levels, a
// term with more random effects than rows, or, for a Gaussian model, as
// many, a link the family does not take) are errors naming the term or
// column. A binomial or Poisson term with one row per level is an
// observation-level random effect, as glmer fits it (overdispersion); of
// a 0/1 response it is fitted with a WarnObsLevel warning.
func Fit(s Spec, opt Options) (*Fitted, error) {
	sp, err := check(&s)
	if err != nil {
		return nil, err
	}
	n, p := sp.n, sp.p
	nlev, warns, err := levelCheck(&s, n)
	if err != nil {
		return nil, err
	}
	xcols := make([][]float64, p)
	for j := range xcols {
		xcols[j] = mat.Col(nil, j, s.X)
	}
	if err := rankCheck(xcols, n, p); err != nil {
		return nil, err
	}
	L, err := newLayout(&s, p)
	if err != nil {
		return nil, err
	}
	if L.q >= n && s.Family == stats.Gaussian {
		return nil, fmt.Errorf("mixed: %d random effects for %d rows; the residual variance is not identifiable", L.q, n)
	}
	res := &Fitted{Family: s.Family, Link: sp.link, REML: s.REML, Converged: true, Sigma: 1}
	if logitIntercepts(&s, sp.link) {
		if err := fitViaLogit(&s, opt, res); err != nil {
			return nil, err
		}
		return res, nil
	}
	switch s.Family {
	case stats.Gaussian:
		err = fitLMM(&s, L, opt, res)
	default:
		err = fitGLMM(&s, L, sp.link, opt, res)
	}
	if err != nil {
		return nil, err
	}
	for k := range res.Terms {
		res.Terms[k].NLevels = nlev[k]
	}
	res.Warnings = append(warns, res.Warnings...)
	return res, nil
}

// checked is a validated Spec.
type checked struct {
	n, p int
	link stats.Link
}

// glmmLink reports whether Fit takes link with family f: binomial with
// logit, probit or cloglog, Poisson with log, Gaussian with identity
// (lme4's glmer and lmer take more; these are the ones tested against it).
func glmmLink(f stats.Family, link stats.Link) bool {
	switch f {
	case stats.Binomial:
		return link == stats.LinkLogit || link == stats.LinkProbit || link == stats.LinkCloglog
	case stats.Poisson:
		return link == stats.LinkLog
	}
	return link == stats.LinkIdentity
}

// check validates s (see Fit) and resolves the canonical link.
func check(s *Spec) (*checked, error) {
	if s.X == nil {
		panic("mixed: Spec.X is nil")
	}
	n, p := s.X.Dims()
	if len(s.Y) != n {
		panic(fmt.Sprintf("mixed: Spec.Y has %d rows, X %d", len(s.Y), n))
	}
	for _, v := range []struct {
		name string
		x    []float64
	}{{"Weights", s.Weights}, {"Offset", s.Offset}, {"Trials", s.Trials}} {
		if v.x != nil && len(v.x) != n {
			panic(fmt.Sprintf("mixed: Spec.%s has %d rows, X %d", v.name, len(v.x), n))
		}
	}
	if !s.Family.Valid() {
		panic(fmt.Sprintf("mixed: unknown family %q", string(s.Family)))
	}
	link := s.Link
	if link == "" {
		link = s.Family.CanonicalLink()
	}
	if !slices.Contains(stats.Links, link) {
		panic(fmt.Sprintf("mixed: unknown link %q", string(s.Link)))
	}
	if !glmmLink(s.Family, link) {
		return nil, fmt.Errorf("mixed: the %s family does not take the %s link", s.Family, link)
	}
	if len(s.Terms) == 0 {
		panic("mixed: Spec.Terms is empty")
	}
	for _, t := range s.Terms {
		if len(t.Group) != n {
			panic(fmt.Sprintf("mixed: term %q has %d level indices for %d rows", t.Name, len(t.Group), n))
		}
		for _, l := range t.Group {
			if l < 0 || l >= t.Levels {
				panic(fmt.Sprintf("mixed: term %q has level index %d out of range [0,%d)", t.Name, l, t.Levels))
			}
		}
		if (t.Z != nil && len(t.Z) != len(t.Coef)) || (t.Z == nil && len(t.Coef) > 1) {
			panic(fmt.Sprintf("mixed: term %q has %d Z columns and %d Coef names", t.Name, len(t.Z), len(t.Coef)))
		}
		for j, z := range t.Z {
			if z != nil && len(z) != n {
				panic(fmt.Sprintf("mixed: term %q column %d has %d rows, X %d", t.Name, j, len(z), n))
			}
		}
	}
	if s.Trials != nil && s.Family != stats.Binomial {
		return nil, fmt.Errorf("mixed: Trials given for the %s family (binomial only)", s.Family)
	}
	if s.REML && s.Family != stats.Gaussian {
		return nil, fmt.Errorf("mixed: REML is for the gaussian family, not %s", s.Family)
	}
	for i, y := range s.Y {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return nil, fmt.Errorf("mixed: response in row %d is %v", i, y)
		}
		switch s.Family {
		case stats.Binomial:
			m := 1.0
			if s.Trials != nil {
				m = s.Trials[i]
			}
			if !(m >= 0) || m != math.Trunc(m) || math.IsInf(m, 0) {
				return nil, fmt.Errorf("mixed: trials in row %d is %v, not a non-negative integer", i, m)
			}
			if y < 0 || y > m || y != math.Trunc(y) {
				if s.Trials == nil {
					return nil, fmt.Errorf("mixed: response in row %d is %v, not 0 or 1", i, y)
				}
				return nil, fmt.Errorf("mixed: response in row %d is %v successes of %v trials (failures must be a non-negative integer)", i, y, m)
			}
		case stats.Poisson:
			if y < 0 || y != math.Trunc(y) {
				return nil, fmt.Errorf("mixed: response in row %d is %v, not a non-negative integer count", i, y)
			}
		}
		if s.Weights != nil {
			if w := s.Weights[i]; !(w >= 0) || math.IsInf(w, 0) {
				return nil, fmt.Errorf("mixed: weight in row %d is %v, not a non-negative number", i, w)
			}
		}
		if s.Offset != nil {
			if o := s.Offset[i]; math.IsNaN(o) || math.IsInf(o, 0) {
				return nil, fmt.Errorf("mixed: offset in row %d is %v", i, o)
			}
		}
		for j := 0; j < p; j++ {
			if x := s.X.At(i, j); math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("mixed: X[%d,%d] is %v", i, j, x)
			}
		}
	}
	for _, t := range s.Terms {
		for j, z := range t.Z {
			for i, v := range z {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return nil, fmt.Errorf("mixed: term %q column %q is %v in row %d", t.Name, t.coefName(j), v, i)
				}
			}
		}
	}
	return &checked{n: n, p: p, link: link}, nil
}

// nc is the number of coefficients of the term.
func (t *Term) nc() int { return max(len(t.Z), 1) }

// coefName is the name of column j, or "#j" when Coef is short.
func (t *Term) coefName(j int) string {
	if j < len(t.Coef) {
		return t.Coef[j]
	}
	return fmt.Sprintf("#%d", j)
}
