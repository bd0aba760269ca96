package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/mat"
)

// MeanOptions configures AverageResponse.
type MeanOptions struct {
	Link Link // the model's link (required)
	// Offset is added to each row's linear predictor (nil: 0).
	Offset []float64
	// Weights weight the rows of the average (nil: 1); a row standing for
	// k identical observations has weight k.
	Weights []float64
	// SD, when set, is each row's standard deviation of the random part
	// of the linear predictor, zᵢᵀb with b ~ N(0, Σ): the response is then
	// averaged over it (marginal over the random effects) instead of
	// taken at b = 0. Nil or 0 for a row: the population level.
	SD []float64
	// Nodes is the number of Gauss–Hermite nodes of that average
	// (default 40).
	Nodes int
}

// AveragePrediction is a model's average response over a set of rows and
// its gradient in the coefficients.
type AveragePrediction struct {
	Mean float64   // μ̄
	Grad []float64 // ∂μ̄/∂β
	SumW float64   // Σ wᵢ over the rows averaged
}

// SE is the delta-method standard error of the mean under the
// coefficients' covariance cov: √(gᵀ V g).
func (a AveragePrediction) SE(cov *mat.SymDense) float64 { return DeltaSE(a.Grad, cov) }

// AverageResponse is the G-computation (standardisation) mean of a
// generalised linear model's response over the rows of X (Robins 1986,
// Math Model 7:1393–1512; the average prediction of
// marginaleffects::avg_predictions and of emmeans' counterfactuals
// grids), with its gradient for the delta method:
//
//	μ̄ = Σᵢ wᵢ h(ηᵢ) / Σᵢ wᵢ,   ∂μ̄/∂β = Σᵢ wᵢ h′(ηᵢ) xᵢ / Σᵢ wᵢ,   ηᵢ = xᵢᵀβ + oᵢ,
//
// h the inverse link. With random effects averaged out (MeanOptions.SD
// sᵢ > 0), h is replaced by its expectation over the normal random part
// of the linear predictor, by Gauss–Hermite quadrature (nodes x_k, weights
// ω_k for the weight e^{−x²}):
//
//	h̃(η; s) = ∫ h(η + s t) φ(t) dt ≈ π^{−½} Σ_k ω_k h(η + √2 s x_k),
//
// whose derivative in η is the same sum over h′; the random-effect
// variances are taken as known (Skrondal & Rabe-Hesketh 2009, J R Stat
// Soc A 172:659–687, on marginal effects of GLMMs). Rows of X whose
// weight is 0 are skipped. A length mismatch panics.
func AverageResponse(X *mat.Dense, beta []float64, opt MeanOptions) AveragePrediction {
	n, p := X.Dims()
	if len(beta) != p || opt.Offset != nil && len(opt.Offset) != n || opt.Weights != nil && len(opt.Weights) != n || opt.SD != nil && len(opt.SD) != n {
		panic("stats: AverageResponse length mismatch")
	}
	if !slices.Contains(Links, opt.Link) {
		panic("stats: AverageResponse unknown link " + string(opt.Link))
	}
	var nodes, wts []float64
	if opt.SD != nil {
		k := opt.Nodes
		if k <= 0 {
			k = 40
		}
		nodes, wts = make([]float64, k), make([]float64, k)
		quad.Hermite{}.FixedLocations(nodes, wts, math.Inf(-1), math.Inf(1))
		for i := range wts {
			wts[i] /= math.SqrtPi
			nodes[i] *= math.Sqrt2
		}
	}
	out := AveragePrediction{Grad: make([]float64, p)}
	var sum float64
	for i := range n {
		w := 1.0
		if opt.Weights != nil {
			w = opt.Weights[i]
		}
		if w == 0 {
			continue
		}
		row := X.RawRowView(i)
		eta := 0.0
		for j, b := range beta {
			eta += row[j] * b
		}
		if opt.Offset != nil {
			eta += opt.Offset[i]
		}
		var mu, dmu float64
		if opt.SD != nil && opt.SD[i] > 0 {
			s := opt.SD[i]
			for k, x := range nodes {
				m, d := opt.Link.inverse(eta + s*x)
				mu += wts[k] * m
				dmu += wts[k] * d
			}
		} else {
			mu, dmu = opt.Link.inverse(eta)
		}
		sum += w * mu
		for j, v := range row {
			out.Grad[j] += w * dmu * v
		}
		out.SumW += w
	}
	out.Mean = sum / out.SumW
	for j := range out.Grad {
		out.Grad[j] /= out.SumW
	}
	return out
}

// Inverse is the link's inverse μ = h(η), as the fitters take it.
func (l Link) Inverse(eta float64) float64 {
	mu, _ := l.inverse(eta)
	return mu
}

// DeltaSE is the delta-method standard error √(gᵀ V g) of a smooth
// function of the coefficients with gradient g under their covariance V
// (Agresti 2013, §16.1.6). A length mismatch panics.
func DeltaSE(grad []float64, cov *mat.SymDense) float64 {
	if cov.SymmetricDim() != len(grad) {
		panic("stats: DeltaSE length mismatch")
	}
	g := mat.NewVecDense(len(grad), grad)
	v := mat.Inner(g, cov, g)
	if v < 0 {
		return math.NaN()
	}
	return math.Sqrt(v)
}

// Contrast is a comparison of two average predictions with its
// delta-method standard error and Wald interval.
type Contrast struct {
	Estimate, SE float64
	// Z and P test no difference: Estimate/SE for a difference and
	// log(Estimate)/(SE/Estimate) for a ratio (the test of log ratio 0).
	Z, P float64
	// Lo and Hi are the Wald interval at the level asked for: Estimate ±
	// z·SE for a difference; for a ratio exp(log Estimate ± z·SE/Estimate),
	// the interval of the log ratio carried back (always positive).
	Lo, Hi float64
	Grad   []float64 // ∂Estimate/∂β
}

// MeanDifference is the average contrast b − a of two average
// predictions of the same fit (a risk difference for a binomial model):
//
//	Δ = μ̄_b − μ̄_a,   ∇Δ = ∇μ̄_b − ∇μ̄_a,   SE = √(∇Δᵀ V ∇Δ),
//
// as marginaleffects::avg_comparisons (comparison "difference") and
// emmeans' pairwise contrasts after regrid = "response" on a
// counterfactuals grid. level is the interval's confidence, e.g. 0.95.
func MeanDifference(a, b AveragePrediction, cov *mat.SymDense, level float64) Contrast {
	g := make([]float64, len(a.Grad))
	for j := range g {
		g[j] = b.Grad[j] - a.Grad[j]
	}
	c := Contrast{Estimate: b.Mean - a.Mean, Grad: g}
	c.SE = DeltaSE(g, cov)
	c.Z = c.Estimate / c.SE
	c.P = 2 * NormalUpper(math.Abs(c.Z))
	z := ZLevel(level)
	c.Lo, c.Hi = c.Estimate-z*c.SE, c.Estimate+z*c.SE
	return c
}

// MeanRatio is the average contrast b / a of two average predictions of
// the same fit (a risk ratio for a binomial model, a rate ratio for
// Poisson):
//
//	R = μ̄_b / μ̄_a,   ∇R = (∇μ̄_b − R ∇μ̄_a) / μ̄_a,   SE = √(∇Rᵀ V ∇R),
//
// the SE of marginaleffects::avg_comparisons (comparison "ratioavg");
// SE/R is the SE of log R that emmeans reports after regrid = "log". The
// interval and test are on the log scale (Contrast).
func MeanRatio(a, b AveragePrediction, cov *mat.SymDense, level float64) Contrast {
	r := b.Mean / a.Mean
	g := make([]float64, len(a.Grad))
	for j := range g {
		g[j] = (b.Grad[j] - r*a.Grad[j]) / a.Mean
	}
	c := Contrast{Estimate: r, Grad: g}
	c.SE = DeltaSE(g, cov)
	sl := c.SE / r
	c.Z = math.Log(r) / sl
	c.P = 2 * NormalUpper(math.Abs(c.Z))
	z := ZLevel(level)
	c.Lo, c.Hi = math.Exp(math.Log(r)-z*sl), math.Exp(math.Log(r)+z*sl)
	if !(r > 0) {
		c.Z, c.P, c.Lo, c.Hi = math.NaN(), math.NaN(), math.NaN(), math.NaN()
	}
	return c
}
