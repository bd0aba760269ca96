package mixed

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// lmm is a linear mixed model reduced to its weighted cross-products in
// the block layout (raw, i.e. before scaling by Λ_θ).
type lmm struct {
	L    *layout
	sys  *bsys
	n, p int
	reml bool
	ldW  float64 // Σ log wᵢ

	dRaw []float64   // q0 blocks b×b of Z₀ᵀWZ₀
	cRaw [][]float64 // per level: b × len(pat) of Z₀ᵀW[Z_rest X]
	aRaw []float64   // (r+p)² of [Z_rest X]ᵀW[Z_rest X], lower triangle
	g0   []float64   // raw right-hand side [ZᵀWy; XᵀWy], layout order
	yty  float64

	dterm []int32 // dense column → index in L.terms (random part)
	lam   [][]float64
	g     []float64 // scaled right-hand side / solution
	tmp   []float64 // (r+p)² scratch
	theta []float64 // θ of the last evaluation

	pwrss float64
	ldL2  float64
	ldRX2 float64
	nEval int
}

// newLMM forms the cross-products in one pass over the rows.
func newLMM(s *Spec, L *layout, reml bool) *lmm {
	n, p := s.X.Dims()
	m := &lmm{L: L, n: n, p: p, reml: reml}
	b, st := L.b, L.r+L.p
	m.dRaw = make([]float64, L.q0*b*b)
	m.cRaw = make([][]float64, L.q0)
	m.aRaw = make([]float64, st*st)
	m.g0 = make([]float64, L.q0*b+st)
	m.g = make([]float64, L.q0*b+st)
	m.tmp = make([]float64, st*st)
	m.dterm = make([]int32, L.r)
	for k, t := range L.terms[1:] {
		for c := t.off; c < t.off+t.nlev*t.nc; c++ {
			m.dterm[c] = int32(k + 1)
		}
	}
	m.lam = make([][]float64, len(L.terms))
	for k, t := range L.terms {
		m.lam[k] = make([]float64, t.nc*t.nc)
	}
	raw := s.X.RawMatrix()
	pos := make([]int32, st)
	t0 := L.terms[0]
	v0 := make([]float64, b)
	type ent struct {
		col int32
		v   float64
	}
	ents := make([]ent, 0, st)
	g2 := m.g0[L.q0*b:]
	for l, rows := range L.rowsByLev {
		pat := L.pat[l]
		w := len(pat)
		m.cRaw[l] = make([]float64, b*w)
		for k, c := range pat {
			pos[c] = int32(k)
		}
		dl := m.dRaw[l*b*b : (l+1)*b*b]
		cl := m.cRaw[l]
		gl := m.g0[l*b : (l+1)*b]
		for _, i32 := range rows {
			i := int(i32)
			wt := 1.0
			if s.Weights != nil {
				wt = s.Weights[i]
				if wt > 0 {
					m.ldW += math.Log(wt)
				}
			}
			y := s.Y[i]
			if s.Offset != nil {
				y -= s.Offset[i]
			}
			for j := 0; j < b; j++ {
				v0[j] = t0.zAt(j, i)
			}
			ents = ents[:0]
			for _, t := range L.terms[1:] {
				base := t.off + t.lev[i]*t.nc
				for j := 0; j < t.nc; j++ {
					ents = append(ents, ent{int32(base + j), t.zAt(j, i)})
				}
			}
			xi := raw.Data[i*raw.Stride : i*raw.Stride+p]
			for j, v := range xi {
				ents = append(ents, ent{int32(L.r + j), v})
			}
			for r := 0; r < b; r++ {
				wr := wt * v0[r]
				for c := 0; c < b; c++ {
					dl[r*b+c] += wr * v0[c]
				}
				for _, e := range ents {
					cl[r*w+int(pos[e.col])] += wr * e.v
				}
				gl[r] += wr * y
			}
			for a, e := range ents {
				we := wt * e.v
				g2[e.col] += we * y
				for _, f := range ents[:a+1] {
					if f.col <= e.col {
						m.aRaw[int(e.col)*st+int(f.col)] += we * f.v
					} else {
						m.aRaw[int(f.col)*st+int(e.col)] += we * f.v
					}
				}
			}
			m.yty += wt * y * y
		}
	}
	m.sys = newBsys(L)
	m.sys.setRD(st)
	return m
}

// rmul right-multiplies the row vector v, whose entries are the dense
// columns cols (nil: 0, 1, …), by the block-diagonal Λ of the dense random
// effects; fixed-effect columns (≥ r) are left alone.
func (m *lmm) rmul(v []float64, cols []int32) {
	r := m.L.r
	for k := 0; k < len(v); {
		c := k
		if cols != nil {
			c = int(cols[k])
		}
		if c >= r {
			return
		}
		ti := m.dterm[c]
		t := m.L.terms[ti]
		lam := m.lam[ti]
		nc := t.nc
		for j := 0; j < nc; j++ {
			var s float64
			for i := j; i < nc; i++ {
				s += v[k+i] * lam[i*nc+j]
			}
			v[k+j] = s
		}
		k += nc
	}
}

// eval returns the profiled deviance (ML) or REML criterion at θ, leaving
// the factorised system and the solution (u, β) in m.g.
func (m *lmm) eval(theta []float64) float64 {
	m.nEval++
	m.theta = append(m.theta[:0], theta...)
	L, s := m.L, m.sys
	for k, t := range L.terms {
		t.lambda(theta, m.lam[k])
	}
	b, st, r := L.b, s.stride, L.r
	lam0 := m.lam[0]
	// D blocks: Λ₀ᵀ D Λ₀ + I.
	var t1 [16]float64
	var tmpb []float64
	if b*b > len(t1) {
		tmpb = make([]float64, b*b)
	} else {
		tmpb = t1[:b*b]
	}
	for l := 0; l < L.q0; l++ {
		dr := m.dRaw[l*b*b : (l+1)*b*b]
		d := s.d[l*b*b : (l+1)*b*b]
		// tmp = D Λ₀
		for i := 0; i < b; i++ {
			for j := 0; j < b; j++ {
				var t float64
				for k := j; k < b; k++ {
					t += dr[i*b+k] * lam0[k*b+j]
				}
				tmpb[i*b+j] = t
			}
		}
		for i := 0; i < b; i++ {
			for j := 0; j < b; j++ {
				var t float64
				for k := i; k < b; k++ {
					t += lam0[k*b+i] * tmpb[k*b+j]
				}
				d[i*b+j] = t
			}
			d[i*b+i]++
		}
		// C: Λ₀ᵀ C Λ_rest.
		cr, c := m.cRaw[l], s.c[l]
		w := len(L.pat[l])
		for i := 0; i < b; i++ {
			row := c[i*w : (i+1)*w]
			clear(row)
			for k := i; k < b; k++ {
				if lk := lam0[k*b+i]; lk != 0 {
					src := cr[k*w : (k+1)*w]
					for j, v := range src {
						row[j] += lk * v
					}
				}
			}
			m.rmul(row, L.pat[l])
		}
		// Right-hand side of the block.
		g, g0 := m.g[l*b:(l+1)*b], m.g0[l*b:(l+1)*b]
		for i := 0; i < b; i++ {
			var t float64
			for k := i; k < b; k++ {
				t += lam0[k*b+i] * g0[k]
			}
			g[i] = t
		}
	}
	// A: Λ̃ᵀ A Λ̃ (+ I on the random part), via a full symmetric copy.
	tm := m.tmp[:st*st]
	for i := 0; i < st; i++ {
		for j := 0; j <= i; j++ {
			v := m.aRaw[i*st+j]
			tm[i*st+j], tm[j*st+i] = v, v
		}
	}
	for i := 0; i < st; i++ {
		m.rmul(tm[i*st:(i+1)*st], nil)
	}
	for i := 0; i < st; i++ {
		for j := 0; j < i; j++ {
			tm[i*st+j], tm[j*st+i] = tm[j*st+i], tm[i*st+j]
		}
	}
	for i := 0; i < st; i++ {
		m.rmul(tm[i*st:(i+1)*st], nil)
	}
	for i := 0; i < st; i++ {
		copy(s.a[i*st:i*st+i+1], tm[i*st:i*st+i+1])
		if i < r {
			s.a[i*st+i]++
		}
	}
	g2 := m.g[L.q0*b:]
	copy(g2, m.g0[L.q0*b:])
	m.rmul(g2, nil)
	if !s.factor() {
		return math.Inf(1)
	}
	s.forward(m.g)
	var zz float64
	for _, v := range m.g {
		zz += v * v
	}
	m.pwrss = m.yty - zz
	if !(m.pwrss > 0) {
		return math.Inf(1)
	}
	s.backward(m.g)
	m.ldL2 = s.logDetBlocks() + s.logDetDense(0, r)
	m.ldRX2 = s.logDetDense(r, r+m.p)
	return m.crit()
}

// crit is the ML deviance or REML criterion from the last evaluation.
func (m *lmm) crit() float64 {
	n := float64(m.n)
	if !m.reml {
		return m.ldL2 - m.ldW + n*(1+math.Log(2*math.Pi*m.pwrss/n))
	}
	nmp := n - float64(m.p)
	return m.ldL2 + m.ldRX2 - m.ldW + nmp*(1+math.Log(2*math.Pi*m.pwrss/nmp))
}

// fitLMM fits a Gaussian linear mixed model (lmer).
func fitLMM(s *Spec, L *layout, opt Options, res *Fitted) error {
	m := newLMM(s, L, s.REML)
	th := make([]float64, L.nth)
	for _, t := range L.terms {
		k := 0
		for j := 0; j < t.nc; j++ {
			th[t.thOff+k] = 1
			if t.diag {
				k++
			} else {
				k += t.nc - j
			}
		}
	}
	maxIter := opt.MaxIter
	if maxIter <= 0 {
		maxIter = 10000
	}
	x, _, ok := minimizeTheta(m.eval, th, L, maxIter)
	if !ok {
		res.Converged = false
		res.Warnings = append(res.Warnings, Warning{Code: WarnNotConverged,
			Message: fmt.Sprintf("optimiser did not converge in %d evaluations; rescale covariates or simplify the random terms", m.nEval)})
	}
	normaliseTheta(x, L)
	fx := m.eval(x)
	if math.IsInf(fx, 1) {
		return fmt.Errorf("mixed: the penalised least-squares system is singular at the optimum")
	}
	n, p := float64(m.n), m.p
	den := n
	if s.REML {
		den = n - float64(p)
		res.REMLCrit = fx
	} else {
		res.REMLCrit = math.NaN()
	}
	sigma := math.Sqrt(m.pwrss / den)
	res.Sigma = sigma
	res.LogLik = -fx / 2
	res.Deviance = fx
	res.NPar = p + L.nth + 1
	res.AIC = fx + 2*float64(res.NPar)
	res.BIC = fx + math.Log(n)*float64(res.NPar)
	res.N = m.n
	res.Iter = m.nEval
	res.MaxGrad = math.NaN()
	res.SEMethod = "RX"
	// β and its covariance σ²(R_XᵀR_X)⁻¹ from the X rows of the factor.
	q1 := L.q0 * L.b
	res.Coef = append([]float64(nil), m.g[q1+L.r:q1+L.r+p]...)
	res.Cov = rxInverse(m.sys, L.r, p, sigma*sigma)
	fillWald(res)
	fillTerms(res, s, L, x, m.g, sigma)
	return nil
}

// rxInverse returns scale·(R_XᵀR_X)⁻¹ from the rows r..r+p−1 of the dense
// factor.
func rxInverse(s *bsys, r, p int, scale float64) *mat.SymDense {
	st := s.stride
	lx := make([]float64, p*p)
	for i := 0; i < p; i++ {
		for j := 0; j <= i; j++ {
			lx[i*p+j] = s.s[(r+i)*st+r+j]
		}
	}
	v := mat.NewSymDense(p, nil)
	e := make([]float64, p)
	for j := 0; j < p; j++ {
		clear(e)
		e[j] = 1
		cholSolve(lx, p, e)
		for i := 0; i <= j; i++ {
			v.SetSym(i, j, scale*e[i])
		}
	}
	return v
}

// fillWald fills SE, Z and P from Coef and Cov.
func fillWald(res *Fitted) {
	p := len(res.Coef)
	res.SE, res.Z, res.P = make([]float64, p), make([]float64, p), make([]float64, p)
	for j := 0; j < p; j++ {
		se := math.NaN()
		if res.Cov != nil {
			se = math.Sqrt(res.Cov.At(j, j))
		}
		res.SE[j] = se
		res.Z[j] = res.Coef[j] / se
		res.P[j] = math.Erfc(math.Abs(res.Z[j]) / math.Sqrt2)
	}
}

// fillTerms fills the per-term results from θ and the solution vector u
// (layout order: block-diagonal term first, then the dense terms), scaled
// by sigma (1 for non-Gaussian families).
func fillTerms(res *Fitted, s *Spec, L *layout, theta, u []float64, sigma float64) {
	res.Theta = append([]float64(nil), theta...)
	res.Terms = make([]TermFit, len(s.Terms))
	q1 := L.q0 * L.b
	for _, t := range L.terms {
		nc := t.nc
		lam := make([]float64, nc*nc)
		t.lambda(theta, lam)
		tf := TermFit{Name: t.name, Coef: s.Terms[t.idx].Coef, Theta: append([]float64(nil), theta[t.thOff:t.thOff+t.ntheta]...)}
		if tf.Coef == nil {
			tf.Coef = []string{"(Intercept)"}
		}
		cov := mat.NewSymDense(nc, nil)
		for i := 0; i < nc; i++ {
			for j := 0; j <= i; j++ {
				var v float64
				for k := 0; k <= j; k++ {
					v += lam[i*nc+k] * lam[j*nc+k]
				}
				cov.SetSym(i, j, sigma*sigma*v)
			}
		}
		tf.Cov = cov
		tf.SD = make([]float64, nc)
		for i := range tf.SD {
			tf.SD[i] = math.Sqrt(cov.At(i, i))
		}
		tf.Corr = mat.NewSymDense(nc, nil)
		for i := 0; i < nc; i++ {
			for j := 0; j <= i; j++ {
				switch {
				case i == j:
					tf.Corr.SetSym(i, j, 1)
				case t.diag:
				default:
					tf.Corr.SetSym(i, j, cov.At(i, j)/(tf.SD[i]*tf.SD[j]))
				}
			}
		}
		cnt := make([]bool, t.nlev)
		for _, l := range t.lev {
			cnt[l] = true
		}
		for _, c := range cnt {
			if c {
				tf.NLevels++
			}
		}
		base := t.off
		if t != L.terms[0] {
			base += q1
		}
		tf.Modes = make([][]float64, t.nlev)
		for l := range tf.Modes {
			ul := u[base+l*nc : base+(l+1)*nc]
			b := make([]float64, nc)
			if cnt[l] {
				for i := 0; i < nc; i++ {
					for k := 0; k <= i; k++ {
						b[i] += lam[i*nc+k] * ul[k]
					}
				}
			}
			tf.Modes[l] = b
		}
		for k := 0; k < t.ntheta; k++ {
			if t.isDiagTheta(k) && math.Abs(tf.Theta[k]) < singularTol {
				res.Singular = true
				res.Warnings = append(res.Warnings, Warning{Code: WarnSingular, Term: t.name,
					Message: fmt.Sprintf("boundary (singular) fit: term %q has a variance component at 0; the data do not support its random effects, consider simplifying the term (e.g. (1 | %s) or ||)", t.name, t.name)})
				break
			}
		}
		res.Terms[t.idx] = tf
	}
}

// normaliseTheta flips the sign of each column of Λ whose diagonal is
// negative (ΛΛᵀ is unchanged), so diagonal θ are ≥ 0 as in lme4.
func normaliseTheta(th []float64, L *layout) {
	for _, t := range L.terms {
		k := t.thOff
		for j := 0; j < t.nc; j++ {
			cnt := 1
			if !t.diag {
				cnt = t.nc - j
			}
			if th[k] < 0 {
				for i := 0; i < cnt; i++ {
					th[k+i] = -th[k+i]
				}
			}
			k += cnt
		}
	}
}
