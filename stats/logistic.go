package stats

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/gonum/mat"
)

// LogisticOptions configures Logistic.
type LogisticOptions struct {
	// Firth fits Firth's (1993) penalised likelihood instead of the MLE.
	Firth bool
	// MaxIter bounds the iterations (default 100).
	MaxIter int
	// Tol is the convergence tolerance (default 1e-10): IRLS stops when
	// |D − D_old|/(|D| + 0.1) < Tol (R glm.control's criterion, tighter
	// than R's 1e-8); Firth stops when max|Δβ| and max|U*| are below it.
	Tol float64
	// Names are the column names used in messages (optional).
	Names []string
	// DropAliased fits without columns that are linear combinations of
	// earlier ones (as R's lm/glm do) instead of returning a
	// *SingularError; their coefficients, SEs, z and p are NaN and a
	// warning names them.
	DropAliased bool
}

// LogisticResult is a fitted logistic regression.
type LogisticResult struct {
	Coef, SE, Z, P []float64
	Cov            *mat.SymDense // (XᵀWX)⁻¹ at the estimate
	LogLik         float64       // ℓ₁ (unpenalised, also for Firth)
	NullLogLik     float64       // ℓ₀ of the intercept-only model (η = 0 if X has no constant column)
	Deviance       float64       // −2ℓ₁
	N              int           // number of Bernoulli observations: Σw rounded (len(y) when unweighted); use SumW for pseudo-R²
	SumW           float64       // Σw, the exact n of CoxSnell and Nagelkerke under frequency weights
	Iter           int
	Converged      bool
	// Separation reports (quasi-)complete separation: the MLE does not
	// exist and the coefficients in SeparatedTerms diverge; LogLik is then
	// (close to) its finite supremum, which is what pseudo-R² need.
	Separation     bool
	SeparatedTerms []int
	Warnings       []Warning
	Mu             []float64 // fitted probabilities, one per row of X
}

// SingularError reports a rank-deficient design: the listed columns are
// linear combinations of earlier ones (or constant zero).
type SingularError struct {
	Columns []int
	Names   []string
}

func (e *SingularError) Error() string {
	return "design matrix is rank deficient; aliased columns: " + strings.Join(e.Names, ", ")
}

// ErrNoData is returned when no row has positive weight.
var ErrNoData = errors.New("no observations with positive weight")

// Logistic fits the logistic regression logit P(y=1) = Xβ by iteratively
// reweighted least squares (Fisher scoring, equal to Newton for the
// canonical link; McCullagh & Nelder 1989 §2.5):
//
//	W = ω μ(1−μ),  z = η + (y−μ)/(μ(1−μ)),  β ← (XᵀWX)⁻¹ XᵀWz,
//
// started at μ⁰ = (y + ½)/2 as statsmodels, with Cov(β̂) = (XᵀWX)⁻¹, Wald z
// and two-sided normal p-values. X must include the intercept column if
// one is wanted. y holds 0/1 outcomes or, with frequency weights w,
// proportions of covariate patterns (see CollapsePatterns): the fit and
// log-likelihood are then those of the expanded Bernoulli data. w nil
// means unit weights.
//
// The log-likelihood is computed as Σω[yη − softplus(η)], never via
// log μ. Separation (Albert & Anderson 1984, Biometrika 71:1–10) is
// detected from the fit itself: the deviance converges while some
// coefficients keep moving by about one unit per step; it is flagged in
// the result with the affected terms and a warning, never returned as a
// silent huge coefficient. Use opt.Firth for finite estimates (Heinze &
// Schemper 2002, Stat Med 21:2409–2419).
//
// A rank-deficient X returns a *SingularError naming the aliased columns
// (or, with opt.DropAliased, is fitted without them); no positive weight
// returns ErrNoData. Mismatched lengths, y outside [0, 1] or invalid weights panic.
func Logistic(X *mat.Dense, y, w []float64, opt LogisticOptions) (*LogisticResult, error) {
	if !opt.DropAliased {
		return logistic(newDesign(X), y, w, opt, false)
	}
	n, p := X.Dims()
	if w != nil {
		checkWeights(n, w)
	}
	if opt.Names != nil && len(opt.Names) != p {
		panic("stats: number of names does not match columns of X")
	}
	ones := w
	if ones == nil {
		ones = make([]float64, n)
		for i := range ones {
			ones[i] = 1
		}
	}
	d := newDesign(X)
	g := mat.NewSymDense(p, nil)
	d.gram(0, n, ones, nil, g, nil)
	al := aliased(g, 1e-10)
	if len(al) == 0 || len(al) == p {
		return logistic(d, y, w, opt, false)
	}
	var keep []int
	dropped := make([]bool, p)
	for _, j := range al {
		dropped[j] = true
	}
	for j := range p {
		if !dropped[j] {
			keep = append(keep, j)
		}
	}
	xr := mat.NewDense(n, len(keep), nil)
	for i := range n {
		for a, j := range keep {
			xr.Set(i, a, X.At(i, j))
		}
	}
	sub := opt
	sub.DropAliased = false
	if opt.Names != nil {
		sub.Names = make([]string, len(keep))
		for a, j := range keep {
			sub.Names[a] = opt.Names[j]
		}
	}
	r, err := logistic(newDesign(xr), y, w, sub, false)
	if err != nil {
		return nil, err
	}
	expand := func(v []float64) []float64 {
		out := make([]float64, p)
		for j := range out {
			out[j] = math.NaN()
		}
		for a, j := range keep {
			out[j] = v[a]
		}
		return out
	}
	r.Coef, r.SE, r.Z, r.P = expand(r.Coef), expand(r.SE), expand(r.Z), expand(r.P)
	cov := mat.NewSymDense(p, nil)
	for j := range p {
		for k := j; k < p; k++ {
			cov.SetSym(j, k, math.NaN())
		}
	}
	for a, j := range keep {
		for b, k := range keep {
			if k >= j {
				cov.SetSym(j, k, r.Cov.At(a, b))
			}
		}
	}
	r.Cov = cov
	for i, a := range r.SeparatedTerms {
		r.SeparatedTerms[i] = keep[a]
	}
	names := make([]string, len(al))
	for i, j := range al {
		names[i] = colName(opt.Names, j)
	}
	r.Warnings = append(r.Warnings, Warning{WarnAliased, "aliased columns dropped (linear combinations of earlier columns): " + strings.Join(names, ", ")})
	return r, nil
}

// logistic fits on a prepared design; startOnly skips the covariance and
// ℓ₀ when only β̂ is wanted (the GEE starting values).
func logistic(d *design, y, w []float64, opt LogisticOptions, startOnly bool) (*LogisticResult, error) {
	n, p := d.n, d.p
	if len(y) != n {
		panic("stats: length of y does not match rows of X")
	}
	for _, v := range y {
		if !(v >= 0 && v <= 1) {
			panic("stats: logistic response outside [0, 1]")
		}
	}
	if w != nil {
		checkWeights(n, w)
	}
	w = unitWeights(w, n)
	if opt.Names != nil && len(opt.Names) != p {
		panic("stats: number of names does not match columns of X")
	}
	if opt.MaxIter <= 0 {
		opt.MaxIter = 100
	}
	if opt.Tol <= 0 {
		opt.Tol = 1e-10
	}
	var sumW float64
	for _, v := range w {
		sumW += v
	}
	if sumW == 0 {
		return nil, ErrNoData
	}

	f := &logitFit{d: d, y: y, w: w, n: n, p: p, g: mat.NewSymDense(p, nil), names: opt.Names, noCov: startOnly}
	res := &LogisticResult{SumW: sumW, N: int(math.Round(sumW))}
	var err error
	if opt.Firth {
		err = f.firth(opt, res)
	} else {
		err = f.irls(opt, res)
	}
	if err != nil {
		return nil, err
	}
	if startOnly {
		return res, nil
	}
	res.NullLogLik = nullLogLik(d, y, w)
	res.Deviance = -2 * res.LogLik
	res.Mu = f.mu
	res.Z = make([]float64, p)
	res.P = make([]float64, p)
	for j := range p {
		res.Z[j] = res.Coef[j] / res.SE[j]
		res.P[j] = math.Erfc(math.Abs(res.Z[j]) / math.Sqrt2)
	}
	var extreme int
	for i, m := range f.mu {
		if w[i] > 0 && (m < 10*epsMach || m > 1-10*epsMach) {
			extreme++
		}
	}
	if extreme > 0 && !res.Separation {
		res.Warnings = append(res.Warnings, Warning{WarnSeparation, "fitted probabilities numerically 0 or 1 occurred"})
	}
	if res.Separation {
		names := make([]string, len(res.SeparatedTerms))
		for i, j := range res.SeparatedTerms {
			names[i] = colName(opt.Names, j)
		}
		res.Warnings = append(res.Warnings, Warning{WarnSeparation, fmt.Sprintf("separation: no finite maximum-likelihood estimate; coefficients diverge for %s (use Firth's penalised fit for finite odds ratios)", strings.Join(names, ", "))})
	}
	if !res.Converged {
		res.Warnings = append(res.Warnings, Warning{WarnNotConverged, fmt.Sprintf("no convergence after %d iterations", res.Iter)})
	}
	return res, nil
}

const epsMach = 2.220446049250313e-16

func colName(names []string, j int) string {
	if names != nil {
		return names[j]
	}
	return fmt.Sprintf("column %d", j)
}

type logitFit struct {
	d       *design
	y, w    []float64
	n, p    int
	names   []string
	noCov   bool
	g       *mat.SymDense
	eta, mu []float64
	wt, z   []float64
	rhs     []float64
}

// update sets η = Xβ, μ and returns ℓ(β).
func (f *logitFit) update(beta []float64) float64 {
	var ll float64
	for i := range f.n {
		e := f.d.dot(i, beta)
		f.eta[i] = e
		// One exponential serves both μ and softplus(η) = max(η,0) + log1p(e^{−|η|}).
		ex := math.Exp(-math.Abs(e))
		if e >= 0 {
			f.mu[i] = 1 / (1 + ex)
		} else {
			f.mu[i] = ex / (1 + ex)
		}
		if f.w[i] > 0 {
			ll += f.w[i] * (f.y[i]*e - math.Max(e, 0) - math.Log1p(ex))
		}
	}
	return ll
}

func softplus(x float64) float64 { return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }

func (f *logitFit) alloc() {
	f.eta = make([]float64, f.n)
	f.mu = make([]float64, f.n)
	f.wt = make([]float64, f.n)
	f.z = make([]float64, f.n)
	f.rhs = make([]float64, f.p)
}

// weights sets the IRLS weights and working response from η, μ.
func (f *logitFit) weights() {
	for i := range f.n {
		m := math.Min(math.Max(f.mu[i], 1e-300), 1-epsMach/2)
		v := m * (1 - m)
		f.wt[i] = f.w[i] * v
		f.z[i] = f.eta[i] + (f.y[i]-f.mu[i])/v
	}
}

// aliasErr checks the current Gram matrix (positive weights wherever
// ω > 0, so the same null space as XᵀΩX) for aliased columns.
func (f *logitFit) aliasErr() error {
	al := aliased(f.g, 1e-10)
	if len(al) == 0 {
		return nil
	}
	e := &SingularError{Columns: al}
	for _, j := range al {
		e.Names = append(e.Names, colName(f.names, j))
	}
	return e
}

// solve computes (XᵀWX)⁻¹XᵀWz with the current weights; on the first
// iteration it also checks the design for aliased columns.
func (f *logitFit) solve(first bool) ([]float64, bool, error) {
	f.d.gram(0, f.n, f.wt, f.z, f.g, f.rhs)
	if first {
		if err := f.aliasErr(); err != nil {
			return nil, false, err
		}
	}
	var ch mat.Cholesky
	if !ch.Factorize(f.g) {
		return nil, false, nil
	}
	var b mat.VecDense
	if err := ch.SolveVecTo(&b, mat.NewVecDense(f.p, append([]float64(nil), f.rhs...))); err != nil {
		return nil, false, nil
	}
	return b.RawVector().Data, true, nil
}

func (f *logitFit) irls(opt LogisticOptions, res *LogisticResult) error {
	f.alloc()
	// Start at μ⁰ = (y + ½)/2 (statsmodels Binomial.starting_mu).
	for i := range f.n {
		f.mu[i] = (f.y[i] + 0.5) / 2
		f.eta[i] = Logit(f.mu[i])
	}
	var ll float64
	for i := range f.n {
		if f.w[i] > 0 {
			ll += f.w[i] * (f.y[i]*f.eta[i] - softplus(f.eta[i]))
		}
	}
	dev := -2 * ll
	beta := make([]float64, f.p)
	step := make([]float64, f.p)
	scale := f.d.colMaxAbs(f.w)
	for res.Iter = 1; res.Iter <= opt.MaxIter; res.Iter++ {
		f.weights()
		nb, ok, err := f.solve(res.Iter == 1)
		if err != nil {
			return err
		}
		if !ok {
			if res.Iter > 1 {
				// XᵀWX lost rank because weights of separated rows
				// underflowed: the previous β is the last usable one.
				res.Separation = true
				break
			}
			return errors.New("information matrix is not positive definite")
		}
		newBeta := nb
		newLL := f.update(newBeta)
		// Step halving on a non-finite deviance, as R glm.fit.
		for h := 0; h < 30 && (math.IsNaN(newLL) || math.IsInf(newLL, 0)); h++ {
			for j := range newBeta {
				newBeta[j] = 0.5 * (newBeta[j] + beta[j])
			}
			newLL = f.update(newBeta)
		}
		for j := range step {
			step[j] = newBeta[j] - beta[j]
		}
		copy(beta, newBeta)
		newDev := -2 * newLL
		conv := math.Abs(newDev-dev)/(math.Abs(newDev)+0.1) < opt.Tol
		dev, ll = newDev, newLL
		if conv {
			res.Converged = true
			break
		}
	}
	if res.Iter > opt.MaxIter {
		res.Iter = opt.MaxIter
	}
	// Near a true maximum Newton steps shrink quadratically; a coefficient
	// that still moves by a sizeable amount on the linear-predictor scale
	// while the deviance has settled is running off to infinity. A loose
	// deviance tolerance can stop a finite fit early too (a rare outcome,
	// such as 1 event in 548, has little information, so the last step is
	// still large), so a suspected divergence is confirmed by further
	// Newton steps: they vanish at a finite maximum and stay near one unit
	// per step under separation.
	if !res.Separation && moving(step, scale) && f.finite(beta, scale) {
		for j := range step {
			step[j] = 0
		}
		ll = f.update(beta)
	}
	res.Coef = beta
	res.LogLik = ll
	for j := range f.p {
		if math.Abs(step[j])*scale[j] > 1e-3 {
			res.SeparatedTerms = append(res.SeparatedTerms, j)
		}
	}
	if len(res.SeparatedTerms) > 0 {
		res.Separation = true
	}
	if res.Separation && len(res.SeparatedTerms) == 0 {
		for j := range f.p {
			res.SeparatedTerms = append(res.SeparatedTerms, j)
		}
	}
	if f.noCov {
		return nil
	}
	return f.covariance(res)
}

// moving reports whether some coefficient's last step, on the scale of the
// linear predictor, exceeds the separation threshold 1e-3.
func moving(step, scale []float64) bool {
	for j := range step {
		if math.Abs(step[j])*scale[j] > 1e-3 {
			return true
		}
	}
	return false
}

// finite continues Newton's method from beta for at most 25 steps and
// reports whether it converges (every scaled step below 1e-9), updating
// beta in place to the polished estimate if so; beta is left unchanged
// otherwise. Converging steps that end more than 0.5 (scaled) from beta
// are saturation, not convergence. Under separation the diverging coefficients keep moving by
// about one unit per step (μ ∝ e^{−β} makes gradient and information decay
// together), so the steps never fall below the bound; at a finite maximum
// they shrink quadratically and reach it in a few steps.
func (f *logitFit) finite(beta, scale []float64) bool {
	b := append([]float64(nil), beta...)
	f.update(b)
	for range 25 {
		f.weights()
		nb, ok, err := f.solve(false)
		if err != nil || !ok {
			break
		}
		small := true
		for j := range b {
			if math.Abs(nb[j]-b[j])*scale[j] > 1e-9 {
				small = false
			}
		}
		copy(b, nb)
		if ll := f.update(b); math.IsNaN(ll) || math.IsInf(ll, 0) {
			break
		}
		if small {
			// Fitted probabilities that saturate in floating point also
			// stop the steps; a finite maximum is this close to where the
			// deviance settled, a diverging fit has run many units away.
			far := false
			for j := range b {
				far = far || math.Abs(b[j]-beta[j])*scale[j] > 0.5
			}
			if !far {
				copy(beta, b)
				return true
			}
			break
		}
	}
	f.update(beta)
	return false
}

// covariance sets Cov and SE from the information XᵀWX at the final μ.
func (f *logitFit) covariance(res *LogisticResult) error {
	for i := range f.n {
		f.wt[i] = f.w[i] * f.mu[i] * (1 - f.mu[i])
	}
	f.d.gram(0, f.n, f.wt, nil, f.g, nil)
	inv, _, ok := symInverse(f.g)
	res.SE = make([]float64, f.p)
	if !ok {
		if !res.Separation {
			return errors.New("information matrix is singular at the estimate")
		}
		res.Cov = mat.NewSymDense(f.p, nil)
		for j := range f.p {
			res.SE[j] = math.Inf(1)
			for k := range f.p {
				res.Cov.SetSym(j, k, math.NaN())
			}
		}
		return nil
	}
	res.Cov = inv
	for j := range f.p {
		res.SE[j] = math.Sqrt(inv.At(j, j))
	}
	return nil
}

// colMaxAbs returns max |x_ij| over rows with positive weight, per column.
func (d *design) colMaxAbs(w []float64) []float64 {
	out := make([]float64, d.p)
	for i := range d.n {
		if w[i] == 0 {
			continue
		}
		idx, val := d.row(i)
		for a, v := range val {
			if m := math.Abs(v); m > out[idx[a]] {
				out[idx[a]] = m
			}
		}
	}
	return out
}

// hasConstant reports whether some column takes one non-zero value on
// every row with positive weight (an intercept, possibly rescaled).
func (d *design) hasConstant(w []float64) bool {
	value := make([]float64, d.p)
	count := make([]int, d.p)
	ok := make([]bool, d.p)
	for j := range ok {
		ok[j] = true
	}
	rows := 0
	for i := range d.n {
		if w[i] == 0 {
			continue
		}
		rows++
		idx, val := d.row(i)
		for a, v := range val {
			j := idx[a]
			if count[j] == 0 {
				value[j] = v
			} else if v != value[j] {
				ok[j] = false
			}
			count[j]++
		}
	}
	for j := range ok {
		if ok[j] && rows > 0 && count[j] == rows {
			return true
		}
	}
	return false
}

// nullLogLik is ℓ₀ of the intercept-only model, Σω[y log ȳ + (1−y) log(1−ȳ)]
// with ȳ = Σωy/Σω, when X has a constant column, and of η = 0 otherwise (as
// R's null deviance).
func nullLogLik(d *design, y, w []float64) float64 {
	eta := 0.0
	if d.hasConstant(w) {
		pbar := WeightedProportion(y, w)
		if pbar == 0 || pbar == 1 {
			return 0
		}
		eta = Logit(pbar)
	}
	// η is the same for every row: ℓ₀ = η·Σωy − softplus(η)·Σω.
	var swy, sw float64
	for i := range d.n {
		swy += w[i] * y[i]
		sw += w[i]
	}
	return eta*swy - softplus(eta)*sw
}
