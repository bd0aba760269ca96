package stats

import (
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// Family is the error distribution of a generalised linear model: the
// one declaration of the families, shared by GLM, GEE and package mixed's
// GLMMs (the conditional distribution given the random effects).
type Family string

// The families GLM and GEE fit (and mixed.Fit).
const (
	Binomial Family = "binomial"
	Poisson  Family = "poisson"
	Gaussian Family = "gaussian"
)

// Families lists the accepted families.
var Families = []Family{Binomial, Poisson, Gaussian}

// String returns the family's name.
func (f Family) String() string { return string(f) }

// UnmarshalText accepts binomial, poisson or gaussian.
func (f *Family) UnmarshalText(b []byte) error { return unmarshalName("family", b, Families, f) }

// Valid reports whether f is a known family.
func (f Family) Valid() bool { return f == Binomial || f == Poisson || f == Gaussian }

// CanonicalLink is the default link of the family: logit, log, identity.
func (f Family) CanonicalLink() Link {
	switch f {
	case Poisson:
		return LinkLog
	case Gaussian:
		return LinkIdentity
	}
	return LinkLogit
}

// FixedScale reports whether the dispersion is 1 (binomial, Poisson), as
// R's summary.glm reports it.
func (f Family) FixedScale() bool { return f != Gaussian }

// variance is V(μ).
func (f Family) variance(mu float64) float64 {
	switch f {
	case Binomial:
		return mu * (1 - mu)
	case Poisson:
		return mu
	}
	return 1
}

// devResid is the unit deviance d(y, μ) (without the prior weight).
func (f Family) devResid(y, mu float64) float64 {
	switch f {
	case Binomial:
		return 2 * (ylogy(y, mu) + ylogy(1-y, 1-mu))
	case Poisson:
		return 2 * (ylogy(y, mu) - (y - mu))
	}
	return (y - mu) * (y - mu)
}

// ylogy is y·log(y/μ), 0 at y = 0.
func ylogy(y, mu float64) float64 {
	if y == 0 {
		return 0
	}
	return y * math.Log(y/mu)
}

// Link is the link function of a generalised linear model, shared with
// package mixed as Family is (mixed.Fit takes fewer combinations; see
// mixed.Spec).
type Link string

// The links GLM and GEE fit.
const (
	LinkLogit    Link = "logit"
	LinkProbit   Link = "probit"
	LinkCloglog  Link = "cloglog"
	LinkLog      Link = "log"
	LinkIdentity Link = "identity"
)

// Links lists the accepted links.
var Links = []Link{LinkLogit, LinkProbit, LinkCloglog, LinkLog, LinkIdentity}

// String returns the link's name.
func (l Link) String() string { return string(l) }

// UnmarshalText accepts logit, probit, cloglog, log or identity.
func (l *Link) UnmarshalText(b []byte) error { return unmarshalName("link", b, Links, l) }

// Allowed reports whether the link may be used with family f: logit,
// probit and cloglog for binomial; log and identity for Poisson and
// Gaussian.
func (l Link) Allowed(f Family) bool {
	switch f {
	case Binomial:
		return l == LinkLogit || l == LinkProbit || l == LinkCloglog
	case Poisson, Gaussian:
		return l == LinkLog || l == LinkIdentity
	}
	return false
}

var stdNormal = distuv.UnitNormal

// linkfun is η = g(μ).
func (l Link) linkfun(mu float64) float64 {
	switch l {
	case LinkLogit:
		return math.Log(mu / (1 - mu))
	case LinkProbit:
		return stdNormal.Quantile(mu)
	case LinkCloglog:
		return math.Log(-math.Log1p(-mu))
	case LinkLog:
		return math.Log(mu)
	}
	return mu
}

// eps is R's .Machine$double.eps, the bound of binomial μ away from 0 and 1.
const eps = 2.220446049250313e-16

// inverse returns μ = g⁻¹(η) and dμ/dη, with R's guards (make.link):
// logit and probit μ in [ε, 1−ε]... through their thresholds, cloglog
// clamped, log μ ≥ ε.
func (l Link) inverse(eta float64) (mu, dmu float64) {
	switch l {
	case LinkLogit:
		// R's logit linkinv: thresholds at ±30 (DBL_EPSILON), as C code.
		const thresh = 30.
		var e float64
		switch {
		case eta < -thresh:
			e = eps
		case eta > thresh:
			e = 1 / eps
		default:
			e = math.Exp(eta)
		}
		mu = e / (1 + e)
		opexp := 1 + math.Exp(eta)
		dmu = math.Exp(eta) / (opexp * opexp)
		if eta > thresh || eta < -thresh {
			dmu = eps
		}
		return mu, dmu
	case LinkProbit:
		thresh := -stdNormal.Quantile(eps)
		e := math.Min(math.Max(eta, -thresh), thresh)
		return stdNormal.CDF(e), math.Max(stdNormal.Prob(eta), eps)
	case LinkCloglog:
		mu = math.Max(math.Min(-math.Expm1(-math.Exp(eta)), 1-eps), eps)
		e := math.Min(eta, 700)
		return mu, math.Max(math.Exp(e)*math.Exp(-math.Exp(e)), eps)
	case LinkLog:
		mu = math.Max(math.Exp(eta), eps)
		return mu, mu
	}
	return eta, 1
}

// unmarshalName sets *dst to the value of values that b spells; otherwise
// it leaves *dst as it is and fails with `<what> "<b>": want <values>`.
// It is internal/enum's Unmarshal, which stats may not import: the
// numerics import nothing of the project (docs/design.md, "Packages and
// layers").
func unmarshalName[T ~string](what string, b []byte, values []T, dst *T) error {
	for _, v := range values {
		if string(b) == string(v) {
			*dst = v
			return nil
		}
	}
	return fmt.Errorf("%s %q: want %s", what, b, join(values))
}

// join joins names as "a, b or c".
func join[T ~string](vs []T) string {
	s := make([]string, len(vs))
	for i, v := range vs {
		s[i] = string(v)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
