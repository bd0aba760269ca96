package mixed

import (
	"math"

	"github.com/limbo-toolkit/limbo/stats"
)

// glmFamily evaluates a family and link at one row: from η the mean μ, the
// log-likelihood ℓ (without the constant in y), the score dℓ/dη and the
// IRLS (expected-information) weight, each per unit prior weight. y is the
// response (successes for binomial) and m the binomial trials.
type glmFamily interface {
	eval(eta, y, m float64) (mu, ll, score, w float64)
	// constant returns the part of the log-likelihood that depends on y
	// only (log C(m, y) or −log y!).
	constant(y, m float64) float64
	valid(eta float64) bool
}

func newFamily(f stats.Family, l stats.Link) glmFamily {
	switch f {
	case stats.Binomial:
		switch l {
		case stats.LinkProbit:
			return binProbit{}
		case stats.LinkCloglog:
			return binCloglog{}
		}
		return binLogit{}
	case stats.Poisson:
		return poisLog{}
	}
	panic("mixed: no GLM family for " + string(f))
}

type binLogit struct{}

func (binLogit) eval(eta, y, m float64) (mu, ll, score, w float64) {
	e := math.Exp(-math.Abs(eta))
	mu = 1 / (1 + e)
	if eta <= 0 {
		mu = e * mu
	}
	ll = y*eta - m*(math.Log1p(e)+math.Max(eta, 0))
	return mu, ll, y - m*mu, m * e / ((1 + e) * (1 + e))
}

func (binLogit) constant(y, m float64) float64 { return logChoose(m, y) }
func (binLogit) valid(float64) bool            { return true }

type binProbit struct{}

// logPhi is log Φ(x), accurate in both tails.
func logPhi(x float64) float64 {
	if x > -5 {
		return math.Log(0.5 * math.Erfc(-x/math.Sqrt2))
	}
	// Mills-ratio asymptotics are not needed: erfc stays normal down to
	// x ≈ −37, and below that the likelihood is −∞ in double anyway.
	v := 0.5 * math.Erfc(-x/math.Sqrt2)
	if v == 0 {
		return -0.5*x*x - math.Log(-x) - 0.5*math.Log(2*math.Pi)
	}
	return math.Log(v)
}

func (binProbit) eval(eta, y, m float64) (mu, ll, score, w float64) {
	mu = 0.5 * math.Erfc(-eta/math.Sqrt2)
	q := 0.5 * math.Erfc(eta/math.Sqrt2) // 1 − μ
	d := math.Exp(-eta*eta/2) / math.Sqrt(2*math.Pi)
	ll = y*logPhi(eta) + (m-y)*logPhi(-eta)
	mu = math.Max(mu, 1e-300)
	q = math.Max(q, 1e-300)
	score = (y/mu - (m-y)/q) * d
	w = m * d * d / (mu * q)
	return mu, ll, score, w
}

func (binProbit) constant(y, m float64) float64 { return logChoose(m, y) }
func (binProbit) valid(float64) bool            { return true }

type binCloglog struct{}

func (binCloglog) eval(eta, y, m float64) (mu, ll, score, w float64) {
	ee := math.Exp(eta)
	q := math.Exp(-ee)    // 1 − μ
	mu = -math.Expm1(-ee) // μ
	d := ee * q           // dμ/dη
	lmu := math.Log(mu)
	ll = y*lmu - (m-y)*ee
	mu = math.Max(mu, 1e-300)
	q = math.Max(q, 1e-300)
	score = y*d/mu - (m-y)*ee
	w = m * d * d / (mu * q)
	return mu, ll, score, w
}

func (binCloglog) constant(y, m float64) float64 { return logChoose(m, y) }
func (binCloglog) valid(float64) bool            { return true }

type poisLog struct{}

func (poisLog) eval(eta, y, _ float64) (mu, ll, score, w float64) {
	mu = math.Exp(eta)
	return mu, y*eta - mu, y - mu, mu
}

func (poisLog) constant(y, _ float64) float64 {
	lg, _ := math.Lgamma(y + 1)
	return -lg
}
func (poisLog) valid(float64) bool { return true }

// logChoose is log C(m, y), as R's lchoose (stats.LogChoose): a
// difference of log-gamma values cancels for large m.
func logChoose(m, y float64) float64 {
	if y == 0 || y == m {
		return 0
	}
	return stats.LogChoose(m, y)
}
