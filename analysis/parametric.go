package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/stats"
)

// simulator draws new responses from a fitted GLMM for a parametric
// bootstrap: new random effects b ~ N(0, Σ̂) for every level of every
// term, then each row's response from the family at
// μ = h(xβ̂ + offset + Σ_k z_kᵀ b_k) (Gaussian: with σ̂), as lme4's
// simulate() and bootMer(type = "parametric") do.
type simulator struct {
	res    *ModelResult
	family stats.Family
	link   stats.Link
	eta    []float64 // the fixed part of each row's linear predictor
	terms  []simTerm
	sigma  float64
}

// simTerm is one random term: each row's level and values of the term's
// columns, and the Cholesky factor of its covariance.
type simTerm struct {
	levels int
	group  []int
	z      [][]float64 // z[j][i]: column j at row i
	chol   *mat.TriDense
}

// newSimulator prepares the parametric bootstrap of res (a GLMM).
func newSimulator(res *ModelResult) (*simulator, error) {
	m := res.Fitted
	if m.Formula.Cbind != nil {
		return nil, specf("the parametric bootstrap draws one response per row; it does not take a cbind(successes, failures) response")
	}
	s := &simulator{res: res, family: m.Family, link: m.Link, sigma: res.ResidualSD}
	n := m.Frame.Len()
	s.eta = make([]float64, n)
	for i := range n {
		row := m.Design.X.RawRowView(i)
		for j, b := range m.Coef {
			s.eta[i] += row[j] * b
		}
		if m.Offset != nil {
			s.eta[i] += m.Offset[i]
		}
	}
	if len(m.Terms) != len(m.Formula.Random) {
		return nil, fmt.Errorf("the fit's random terms do not match the formula's %s", randomTerms(m.Formula))
	}
	for k, t := range m.Terms {
		g, err := formula.Group(m.Formula.Random[k], m.Frame)
		if err != nil {
			return nil, err
		}
		z, err := termColumns(m.Formula.Random[k], t, m.Frame, m.Refs)
		if err != nil {
			return nil, err
		}
		s.terms = append(s.terms, simTerm{levels: len(g.Levels), group: g.Index, z: z, chol: covFactor(t.Cov)})
	}
	return s, nil
}

// covFactor is a lower-triangular L with L Lᵀ = cov: the Cholesky factor,
// or for a singular covariance (a variance at 0, a correlation of ±1) the
// factor of its positive part by eigendecomposition, made triangular by
// a QR step.
func covFactor(cov *mat.SymDense) *mat.TriDense {
	var ch mat.Cholesky
	if ch.Factorize(cov) {
		var l mat.TriDense
		ch.LTo(&l)
		return &l
	}
	c := cov.SymmetricDim()
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		return mat.NewTriDense(c, mat.Lower, nil)
	}
	var vec mat.Dense
	eig.VectorsTo(&vec)
	vals := eig.Values(nil)
	a := mat.NewDense(c, c, nil) // A = V √Λ, so A Aᵀ = cov
	for i := range c {
		for j := range c {
			a.Set(i, j, vec.At(i, j)*math.Sqrt(math.Max(vals[j], 0)))
		}
	}
	// Aᵀ = Q R gives A Aᵀ = Rᵀ R: Rᵀ is a lower-triangular factor.
	var qr mat.QR
	qr.Factorize(a.T())
	var r mat.Dense
	qr.RTo(&r)
	l := mat.NewTriDense(c, mat.Lower, nil)
	for i := range c {
		for j := 0; j <= i; j++ {
			l.SetTri(i, j, r.At(j, i))
		}
	}
	return l
}

// frame returns a copy of the fit's frame with responses drawn by rng.
func (s *simulator) frame(rng *rand.Rand) *frame.Frame {
	m := s.res.Fitted
	fr := m.Frame
	n := fr.Len()
	eta := make([]float64, n)
	copy(eta, s.eta)
	for _, t := range s.terms {
		c := len(t.z)
		b := make([]float64, t.levels*c)
		u := make([]float64, c)
		for l := range t.levels {
			for j := range u {
				u[j] = rng.NormFloat64()
			}
			for j := range c {
				var v float64
				for i := 0; i <= j; i++ {
					v += t.chol.At(j, i) * u[i]
				}
				b[l*c+j] = v
			}
		}
		for i := range n {
			for j, z := range t.z {
				eta[i] += z[i] * b[t.group[i]*c+j]
			}
		}
	}
	y := make([]float64, n)
	for i := range n {
		mu := s.link.Inverse(eta[i])
		switch s.family {
		case stats.Binomial:
			if rng.Float64() < mu {
				y[i] = 1
			}
		case stats.Poisson:
			y[i] = distuv.Poisson{Lambda: mu, Src: rng}.Rand()
		default:
			y[i] = mu + s.sigma*rng.NormFloat64()
		}
	}
	out := &frame.Frame{Rows: fr.Rows, HasOutcome: fr.HasOutcome, HasWeight: fr.HasWeight}
	out.Cells = make([]frame.Cell, n)
	for i, c := range fr.Cells {
		out.Cells[i] = c
		if s.family == stats.Binomial {
			// Rows of a GLMM's frame are single episodes.
			ev := int64(y[i])
			out.Cells[i].Events = ev
			out.Cells[i].SumWY = c.SumW * y[i]
		}
	}
	for _, c := range fr.Cols {
		if s.family == stats.Binomial || c.Name != m.Formula.Response {
			out.Cols = append(out.Cols, c)
			continue
		}
		nc := &frame.Column{Name: c.Name, Kind: c.Kind, Numeric: true, Levels: make([]string, n), LevelNum: y, Codes: make([]int32, n)}
		for i := range n {
			nc.Levels[i] = strconv.FormatFloat(y[i], 'g', -1, 64)
			nc.Codes[i] = int32(i)
		}
		out.Cols = append(out.Cols, nc)
	}
	return out
}
