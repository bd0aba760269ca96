package stats

import "math"

// Expit is the inverse logit link,
//
//	expit(η) = 1 / (1 + e^{−η}),
//
// computed without overflow for large |η|.
func Expit(eta float64) float64 {
	if eta >= 0 {
		return 1 / (1 + math.Exp(-eta))
	}
	e := math.Exp(eta)
	return e / (1 + e)
}

// Logit is the log-odds log(p/(1−p)).
func Logit(p float64) float64 { return math.Log(p / (1 - p)) }

// LogitWorking returns, for linear predictor η and 0/1 response y, the
// fitted mean μ, the IRLS working weight μ(1−μ) and the working response
// z = η + (y−μ)/(μ(1−μ)) of the canonical logit link (McCullagh & Nelder
// 1989, §2.5). μ is kept inside [ε, 1−ε] with ε = 1e-10 as R's
// binomial()$linkinv does with .Machine$double.eps-based thresholds, so the
// weight never vanishes exactly.
func LogitWorking(eta, y float64) (mu, w, z float64) {
	const eps = 1e-10
	mu = Expit(eta)
	mu = math.Min(math.Max(mu, eps), 1-eps)
	w = mu * (1 - mu)
	z = eta + (y-mu)/w
	return mu, w, z
}

// BernoulliLogLik is the log-likelihood of a 0/1 (or fractional) response y
// with prior weight wt under mean μ,
//
//	ℓ = wt·[y·log μ + (1−y)·log(1−μ)],
//
// with 0·log 0 taken as 0.
func BernoulliLogLik(y, mu, wt float64) float64 {
	var l float64
	if y > 0 {
		l += y * math.Log(mu)
	}
	if y < 1 {
		l += (1 - y) * math.Log1p(-mu)
	}
	return wt * l
}
