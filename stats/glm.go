package stats

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"
)

// GLMOptions configures GLM.
type GLMOptions struct {
	Family Family // binomial, poisson or gaussian (required)
	Link   Link   // "" for the family's canonical link
	// Weights are prior weights (nil: 1). For binomial they are the
	// trials of each row times its frequency (y is then a proportion); for
	// Poisson and Gaussian they are frequency weights (a row of weight w
	// stands for w identical rows). A zero weight leaves the row out.
	Weights []float64
	// Trials are the binomial trials of each row (cbind data), used for
	// the binomial coefficient of the log-likelihood and for the number of
	// observations (Σ Weights/Trials); nil when rows are Bernoulli totals.
	Trials []float64
	// Offset is added to the linear predictor (nil: 0).
	Offset []float64
	// MaxIter bounds the iterations (default 100); Tol is the convergence
	// tolerance on |D − D_old|/(|D| + 0.1) (default 1e-12; R's glm uses
	// 1e-8).
	MaxIter int
	Tol     float64
	// Names are column names for messages (optional).
	Names []string
}

// GLMResult is a fitted generalised linear model.
type GLMResult struct {
	Family Family
	Link   Link
	// Coef are the estimates; SE, Z and P their standard errors, Wald
	// statistics and two-sided p-values: normal for binomial and Poisson,
	// Student t on DFResidual for Gaussian (an estimated dispersion), as
	// R's summary.glm.
	Coef, SE, Z, P []float64
	Cov            *mat.SymDense // Dispersion·(XᵀWX)⁻¹
	// Dispersion is 1 for binomial and Poisson and the Pearson estimate
	// Σw(y−μ)²/V(μ) / DFResidual for Gaussian; ResidualSD = √Dispersion.
	Dispersion, ResidualSD float64
	// Deviance and NullDeviance (of the model with only the intercept and
	// the offset): binomial rows without Trials are Bernoulli totals, and
	// the deviance is that of the Bernoulli observations, −2·LogLik.
	Deviance, NullDeviance float64
	// LogLik is the maximised log-likelihood (Gaussian: at the ML
	// variance Deviance/NObs); AIC = −2·LogLik + 2k and BIC = −2·LogLik +
	// k·log(NObs), k = p (+1 for the Gaussian variance), as R's logLik.
	LogLik, AIC, BIC float64
	NObs, DFResidual float64
	Iter             int
	Converged        bool
	Warnings         []Warning
	Mu               []float64 // fitted means, one per row
}

// GLM fits a generalised linear model by iteratively reweighted least
// squares (McCullagh & Nelder 1989, §2.5), R's glm.fit: start at R's
// mustart, iterate β ← (XᵀWX)⁻¹XᵀWz with z = η − offset + (y − μ)/μ′ and
// W = w·μ′²/V(μ), halving a step that leaves the valid region or makes the
// deviance non-finite. It returns a *SingularError for a rank-deficient X;
// non-convergence and fitted probabilities of 0 or 1 (separation) are
// warnings. Bad lengths, an unknown family or link, or y outside the
// family's support panic (callers validate data).
func GLM(X *mat.Dense, y []float64, opt GLMOptions) (*GLMResult, error) {
	n, p := X.Dims()
	if len(y) != n || opt.Weights != nil && len(opt.Weights) != n || opt.Offset != nil && len(opt.Offset) != n || opt.Trials != nil && len(opt.Trials) != n {
		panic("stats: GLM length mismatch")
	}
	if !opt.Family.Valid() {
		panic("stats: GLM unknown family " + string(opt.Family))
	}
	if opt.Link == "" {
		opt.Link = opt.Family.CanonicalLink()
	}
	if !opt.Link.Allowed(opt.Family) {
		panic("stats: GLM link " + string(opt.Link) + " with family " + string(opt.Family))
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 100
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-12
	}
	w := unitWeights(opt.Weights, n)
	off := opt.Offset
	if off == nil {
		off = make([]float64, n)
	}
	for i, v := range y {
		switch {
		case opt.Family == Binomial && !(v >= 0 && v <= 1):
			panic("stats: GLM binomial response outside [0, 1]")
		case opt.Family == Poisson && !(v >= 0):
			panic("stats: GLM Poisson response below 0")
		case math.IsNaN(v) || math.IsInf(v, 0) || math.IsNaN(w[i]) || w[i] < 0:
			panic("stats: GLM response or weight not finite")
		}
	}
	g := &glmFit{fam: opt.Family, link: opt.Link, d: newDesign(X), y: y, w: w, off: off, n: n, p: p, names: opt.Names}
	res := &GLMResult{Family: opt.Family, Link: opt.Link}
	if err := g.irls(opt, res); err != nil {
		return nil, err
	}
	g.summarise(opt, res)
	return res, nil
}

type glmFit struct {
	fam            Family
	link           Link
	d              *design
	y, w, off      []float64
	n, p           int
	names          []string
	eta, mu, wt, z []float64
	g              *mat.SymDense
	rhs            []float64
	beta           []float64
	dev            float64
}

func (g *glmFit) valid(mu float64) bool {
	switch g.fam {
	case Binomial:
		return mu > 0 && mu < 1
	case Poisson:
		return mu > 0
	}
	return !math.IsNaN(mu) && !math.IsInf(mu, 0)
}

// setEta computes μ and the deviance at η = Xβ + offset; false when a μ is
// invalid.
func (g *glmFit) setEta(beta []float64) bool {
	var dev float64
	for i := range g.n {
		g.eta[i] = g.d.dot(i, beta) + g.off[i]
		mu, _ := g.link.inverse(g.eta[i])
		if g.w[i] > 0 && !g.valid(mu) {
			return false
		}
		g.mu[i] = mu
		if g.w[i] > 0 {
			dev += g.w[i] * g.fam.devResid(g.y[i], mu)
		}
	}
	g.dev = dev
	return !math.IsNaN(dev) && !math.IsInf(dev, 0)
}

func (g *glmFit) irls(opt GLMOptions, res *GLMResult) error {
	g.eta, g.mu, g.wt, g.z = make([]float64, g.n), make([]float64, g.n), make([]float64, g.n), make([]float64, g.n)
	g.g, g.rhs = mat.NewSymDense(g.p, nil), make([]float64, g.p)
	// R's mustart: binomial (wy + ½)/(w + 1), Poisson y + 0.1, Gaussian y.
	var dev float64
	for i := range g.n {
		y := g.y[i]
		switch g.fam {
		case Binomial:
			g.mu[i] = (g.w[i]*y + 0.5) / (g.w[i] + 1)
		case Poisson:
			g.mu[i] = y + 0.1
		default:
			g.mu[i] = y
		}
		if g.fam == Gaussian && g.link == LinkLog && g.mu[i] <= 0 {
			panic("stats: GLM gaussian log link needs positive y")
		}
		g.eta[i] = g.link.linkfun(g.mu[i])
		if g.w[i] > 0 {
			dev += g.w[i] * g.fam.devResid(y, g.mu[i])
		}
	}
	g.dev = dev
	first := true
	var beta []float64
	for res.Iter = 1; res.Iter <= opt.MaxIter; res.Iter++ {
		for i := range g.n {
			_, dmu := g.link.inverse(g.eta[i])
			v := g.fam.variance(g.mu[i])
			g.z[i] = g.eta[i] - g.off[i] + (g.y[i]-g.mu[i])/dmu
			g.wt[i] = g.w[i] * dmu * dmu / v
			if g.w[i] == 0 || math.IsNaN(g.wt[i]) || math.IsInf(g.wt[i], 0) {
				g.wt[i], g.z[i] = 0, 0
			}
		}
		g.d.gram(0, g.n, g.wt, g.z, g.g, g.rhs)
		if first {
			if al := aliased(g.g, 1e-10); len(al) > 0 {
				e := &SingularError{Columns: al}
				for _, j := range al {
					e.Names = append(e.Names, colName(g.names, j))
				}
				return e
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(g.g) {
			return errors.New("GLM: singular weighted information matrix")
		}
		var b mat.VecDense
		if err := ch.SolveVecTo(&b, mat.NewVecDense(g.p, append([]float64(nil), g.rhs...))); err != nil {
			return errors.New("GLM: singular weighted information matrix")
		}
		next := append([]float64(nil), b.RawVector().Data...)
		devOld := g.dev
		ok := g.setEta(next)
		// Step halving back towards the previous estimate (R's glm.fit).
		for half := 0; !ok || !first && g.dev > devOld*(1+1e-12)+1e-12; half++ {
			if beta == nil || half > 30 {
				if !ok {
					return errors.New("GLM: no valid set of coefficients: fitted means outside the family's range; try another link")
				}
				break
			}
			for j := range next {
				next[j] = (next[j] + beta[j]) / 2
			}
			ok = g.setEta(next)
		}
		beta = next
		first = false
		if math.Abs(g.dev-devOld)/(math.Abs(g.dev)+0.1) < opt.Tol {
			res.Converged = true
			break
		}
	}
	if res.Iter > opt.MaxIter {
		res.Iter = opt.MaxIter
		res.Warnings = append(res.Warnings, Warning{WarnNotConverged, fmt.Sprintf("GLM: no convergence after %d iterations (deviance %.6g); the estimates may be unreliable", opt.MaxIter, g.dev)})
	}
	g.beta = beta
	return nil
}

// summarise fills the covariance, dispersion, likelihood and criteria.
func (g *glmFit) summarise(opt GLMOptions, res *GLMResult) {
	res.Coef = g.beta
	res.Mu = g.mu
	res.Deviance = g.dev
	var pearson, nobs, sep float64
	for i := range g.n {
		_, dmu := g.link.inverse(g.eta[i])
		v := g.fam.variance(g.mu[i])
		g.wt[i] = g.w[i] * dmu * dmu / v
		if g.w[i] == 0 || math.IsNaN(g.wt[i]) || math.IsInf(g.wt[i], 0) {
			g.wt[i] = 0
		}
		if g.w[i] == 0 {
			continue
		}
		r := g.y[i] - g.mu[i]
		pearson += g.w[i] * r * r / v
		if opt.Trials != nil && opt.Trials[i] > 0 {
			nobs += g.w[i] / opt.Trials[i]
		} else {
			nobs += g.w[i]
		}
		if g.fam == Binomial && (g.mu[i] < 10*eps || g.mu[i] > 1-10*eps) {
			sep++
		}
	}
	if sep > 0 {
		res.Warnings = append(res.Warnings, Warning{WarnSeparation, "GLM: fitted probabilities numerically 0 or 1 occurred (separation); the estimates of the terms involved diverge"})
	}
	res.NObs = nobs
	res.DFResidual = nobs - float64(g.p)
	res.Dispersion = 1
	if !g.fam.FixedScale() {
		res.Dispersion = pearson / res.DFResidual
		if res.DFResidual <= 0 {
			res.Dispersion = math.NaN()
			res.Warnings = append(res.Warnings, Warning{WarnNoResidualDF, fmt.Sprintf("GLM: no residual degrees of freedom (%g observations, %d coefficients): the dispersion and the standard errors are undefined; use fewer terms", nobs, g.p)})
		}
	}
	res.ResidualSD = math.Sqrt(res.Dispersion)
	g.d.gram(0, g.n, g.wt, nil, g.g, nil)
	inv, _, ok := symInverse(g.g)
	res.SE, res.Z, res.P = make([]float64, g.p), make([]float64, g.p), make([]float64, g.p)
	res.Cov = mat.NewSymDense(g.p, nil)
	if ok {
		res.Cov.ScaleSym(res.Dispersion, inv)
	}
	for j := range g.p {
		res.SE[j] = math.NaN()
		if ok {
			res.SE[j] = math.Sqrt(res.Cov.At(j, j))
		}
		res.Z[j] = res.Coef[j] / res.SE[j]
		switch {
		case g.fam.FixedScale():
			res.P[j] = math.Erfc(math.Abs(res.Z[j]) / math.Sqrt2)
		case !(res.DFResidual > 0) || math.IsNaN(res.Z[j]):
			res.P[j] = math.NaN()
		default:
			res.P[j] = 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: res.DFResidual}.CDF(-math.Abs(res.Z[j]))
		}
	}
	res.LogLik = g.logLik(opt, nobs)
	k := float64(g.p)
	if !g.fam.FixedScale() {
		k++
	}
	res.AIC = -2*res.LogLik + 2*k
	res.BIC = -2*res.LogLik + k*math.Log(nobs)
	res.NullDeviance = g.nullDeviance()
	if g.fam == Binomial && opt.Trials == nil {
		// Rows are Bernoulli totals (y the share of events): the deviance
		// is that of the Bernoulli observations, −2ℓ, as R reports it on
		// the rows; the saturated grouped log-likelihood is the shift.
		var sat float64
		for i := range g.n {
			if y := g.y[i]; g.w[i] > 0 && y > 0 && y < 1 {
				sat += g.w[i] * (y*math.Log(y) + (1-y)*math.Log1p(-y))
			}
		}
		res.Deviance -= 2 * sat
		res.NullDeviance -= 2 * sat
	}
}

// logLik is the maximised log-likelihood as R's family aic() computes it.
func (g *glmFit) logLik(opt GLMOptions, nobs float64) float64 {
	var ll float64
	switch g.fam {
	case Binomial:
		for i := range g.n {
			w, y, mu := g.w[i], g.y[i], g.mu[i]
			if w == 0 {
				continue
			}
			if opt.Trials != nil && opt.Trials[i] > 0 {
				// R's binomial aic: (w/m)·dbinom(round(m y), round(m), μ,
				// log = TRUE), by the saddle point: the sum of its three
				// terms cancels at large counts.
				m := opt.Trials[i]
				ll += w / m * BinomialLogPMF(math.Round(y*m), math.Round(m), mu)
				continue
			}
			if y > 0 {
				ll += w * y * math.Log(mu)
			}
			if y < 1 {
				ll += w * (1 - y) * math.Log1p(-mu)
			}
		}
	case Poisson:
		for i := range g.n {
			w, y, mu := g.w[i], g.y[i], g.mu[i]
			if w == 0 {
				continue
			}
			lg, _ := math.Lgamma(y + 1)
			ll += w * (ylogmu(y, mu) - mu - lg)
		}
	default:
		ll = -nobs / 2 * (math.Log(2*math.Pi*g.dev/nobs) + 1)
	}
	return ll
}

func ylogmu(y, mu float64) float64 {
	if y == 0 {
		return 0
	}
	return y * math.Log(mu)
}

// nullDeviance is the deviance of the model with only the intercept (and
// the offset) when X has a constant column, else of η = offset, as R.
func (g *glmFit) nullDeviance() float64 {
	if !g.d.hasConstant(g.w) {
		var dev float64
		for i := range g.n {
			mu, _ := g.link.inverse(g.off[i])
			if g.w[i] > 0 {
				dev += g.w[i] * g.fam.devResid(g.y[i], mu)
			}
		}
		return dev
	}
	ones := mat.NewDense(g.n, 1, nil)
	for i := range g.n {
		ones.Set(i, 0, 1)
	}
	h := &glmFit{fam: g.fam, link: g.link, d: newDesign(ones), y: g.y, w: g.w, off: g.off, n: g.n, p: 1}
	var r GLMResult
	if err := h.irls(GLMOptions{MaxIter: 100, Tol: 1e-12}, &r); err != nil {
		return math.NaN()
	}
	return h.dev
}
