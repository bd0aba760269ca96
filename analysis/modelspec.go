package analysis

import (
	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/stats"
)

// fitNamer names a spec's fit in messages as the spec gave it: "{Fit}
// gee", or for a logistic model of before families "{Family} gee" (a
// command's --family gee), its glm being "{Family} logit". The names
// carry fieldtext placeholders, so they go into a message's format.
type fitNamer stats.Family

func (n fitNamer) name(fit ModelFit) string {
	if n == "" {
		return "{Fit} " + string(fit)
	}
	for name, f := range legacyFits {
		if f == fit {
			return "{Family} " + string(name)
		}
	}
	return "{Family} " + string(n)
}

// field is the spec field that names the fit.
func (n fitNamer) field() string {
	if n == "" {
		return "Fit"
	}
	return "Family"
}

// resolve validates a spec with families (usage errors naming the spec's
// fields; legacy names the logistic model of before families the spec
// was translated from, whose field Family names the fit) and fills in
// the defaults: the fit, the family and its link, the GEE's options and
// the quadrature nodes.
func (spec *ModelSpec) resolve(f *formula.Formula, weighted bool, legacy stats.Family) error {
	n := fitNamer(legacy)
	if spec.Family == "" {
		spec.Family = stats.Binomial
	}
	fam := spec.Family
	if !fam.Valid() {
		return fieldf("Family", "%q: want binomial, poisson or gaussian", spec.Family)
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
		return fieldf("Link", "%v", err)
	}
	if !spec.Link.Allowed(fam) {
		return fieldf("Link", "%s does not apply to family %s (binomial: logit, probit, cloglog; poisson and gaussian: log, identity)", spec.Link, fam)
	}
	if f.Cbind != nil && fam != stats.Binomial {
		return fieldf("Formula", "a cbind(successes, failures) response is binomial; the family is %s", fam)
	}
	if spec.NAGQ < 0 {
		return fieldf("NAGQ", "%d: want 1 (Laplace) or more quadrature nodes", spec.NAGQ)
	}
	spec.NAGQ = max(spec.NAGQ, 1)
	switch spec.Fit {
	case FitGLM, FitGEE:
		if f.HasRandom() {
			extra := ""
			if spec.Fit == FitGEE {
				extra = " (a GEE's clusters are {Group})"
			}
			return fieldErr(n.field(), n.name(spec.Fit)+" does not take random terms; %s need "+n.name(FitGLMM)+extra, randomTerms(f))
		}
	case FitGLMM:
		if !f.HasRandom() {
			return fieldErr(n.field(), n.name(FitGLMM)+" needs at least one random intercept such as (1 | group) in the formula")
		}
	default:
		return fieldf("Fit", "%q: want glm, gee or glmm", spec.Fit)
	}
	if spec.Fit == FitGEE {
		if err := spec.resolveGEE(n); err != nil {
			return err
		}
	} else {
		if spec.Group != "" {
			return fieldErr("Group", "{Group} applies to "+n.name(FitGEE)+" (for a GLMM write (1 | %s) in the formula)", spec.Group)
		}
		if spec.Order != "" {
			return fieldf("Order", "applies to Fit gee with Corr ar1")
		}
	}
	if spec.Fit == FitGLMM {
		if spec.NAGQ > 1 && (len(f.Random) > 1 || !f.Random[0].IsIntercept()) {
			return fieldErr("NAGQ", "{NAGQ} %d needs a single random intercept (1 | group); the formula has %s", spec.NAGQ, randomTerms(f))
		}
		if fam == stats.Gaussian && spec.Link != stats.LinkIdentity {
			return fieldf("Link", "a gaussian glmm takes the identity link only")
		}
		if fam == stats.Poisson && spec.Link != stats.LinkLog {
			return fieldf("Link", "a poisson glmm takes the log link only")
		}
	}
	if spec.ML && !(spec.Fit == FitGLMM && fam == stats.Gaussian) {
		return fieldf("ML", "applies to a gaussian glmm (REML or ML)")
	}
	if weighted && !(spec.Fit == FitGLM && fam == stats.Binomial && f.Cbind == nil) {
		if legacy != "" {
			return fieldErr("Weight", "{Weight}: "+n.name(spec.Fit)+" is unweighted")
		}
		return fieldf("Weight", "weights apply to a binomial glm of a binary outcome")
	}
	if spec.Firth && !(spec.Fit == FitGLM && fam == stats.Binomial && spec.Link == stats.LinkLogit) {
		if legacy != "" {
			return fieldErr("Firth", "{Firth} applies to "+n.name(FitGLM))
		}
		return fieldf("Firth", "applies to a binomial glm with the logit link")
	}
	return nil
}

// resolveGEE validates a GEE's cluster, working correlation, covariance,
// convention and order, and fills in their defaults.
func (spec *ModelSpec) resolveGEE(n fitNamer) error {
	if spec.Group == "" {
		return fieldErr("Group", n.name(FitGEE)+" needs {Group}, the cluster column (e.g. task)")
	}
	if spec.Corr == "" {
		spec.Corr = stats.Exchangeable
	}
	if !spec.Corr.Valid() {
		return fieldf("Corr", "%q: want independence, exchangeable or ar1", spec.Corr)
	}
	if spec.Cov == "" {
		spec.Cov = stats.Robust
	}
	if !spec.Cov.Valid() {
		return fieldf("Cov", "%q: want robust, bias-reduced, kc or naive", spec.Cov)
	}
	if spec.Convention == "" {
		spec.Convention = stats.Statsmodels
		if spec.Corr == stats.AR1 {
			spec.Convention = stats.Geepack
		}
	}
	if !spec.Convention.Valid() {
		return fieldf("Convention", "%q: want statsmodels or geepack", spec.Convention)
	}
	switch {
	case spec.Corr == stats.AR1 && spec.Order == "":
		return fieldf("Order", "the ar1 working correlation needs the column that orders a cluster's rows (Order)")
	case spec.Corr == stats.AR1 && spec.Convention != stats.Geepack:
		return fieldf("Convention", "the ar1 working correlation is estimated as geepack does; use the geepack convention")
	case spec.Corr != stats.AR1 && spec.Order != "":
		return fieldf("Order", "orders rows for the ar1 working correlation; Corr is %s", spec.Corr)
	}
	return nil
}
