package mixed

import (
	"errors"
	"math"

	"github.com/limbo-toolkit/limbo/stats"
)

// gmodel is a generalised linear mixed model in the block layout, for
// PIRLS and the Laplace deviance at (θ, β).
type gmodel struct {
	L    *layout
	sys  *bsys
	fam  glmFamily
	n, p int
	x    []float64 // n×p row-major
	y, m []float64 // response and trials (1 when not binomial)
	pw   []float64 // prior weights
	off  []float64 // offset
	llc  float64   // Σ pw·constant(y, m)

	theta, beta []float64
	lam         [][]float64 // Λ per layout term
	v           []float64   // per row, the scaled Z row: Λ_tᵀ z_ti for each term, concatenated
	vOff        []int       // offset of term k in a row of v
	vw          int         // row width of v
	posT        []int32     // per row and dense term k ≥ 1: position of its block in pat
	u           []float64   // q0·b + r, layout order
	xb, eta     []float64
	score, w    []float64
	g, du       []float64
	u0, b0      []float64
	maxit       int
	tol         float64
	// stepTol ends PIRLS after a full step below it (relative); steps
	// below trust are taken without the halving test (see pirlsSteps).
	stepTol, trust float64
}

// newGModel lays out s for PIRLS with the family's link. A non-canonical
// link's PIRLS is Fisher scoring, which converges linearly: it runs to a
// step of 1e-13, taking the steps below 1e-6 whole (see pirlsSteps), so
// that the Laplace deviance is smooth to rounding for the
// finite-difference Hessian (a step of 1e-8 left it noisy by 1e-9, 1% of
// the SEs at lme4's step of 1e-4).
func newGModel(s *Spec, L *layout, link stats.Link) *gmodel {
	fam := newFamily(s.Family, link)
	n, p := s.X.Dims()
	md := &gmodel{L: L, fam: fam, n: n, p: p}
	raw := s.X.RawMatrix()
	md.x = make([]float64, n*p)
	for i := 0; i < n; i++ {
		copy(md.x[i*p:(i+1)*p], raw.Data[i*raw.Stride:i*raw.Stride+p])
	}
	md.y = s.Y
	md.m = s.Trials
	if md.m == nil {
		md.m = make([]float64, n)
		for i := range md.m {
			md.m[i] = 1
		}
	}
	md.pw = s.Weights
	if md.pw == nil {
		md.pw = make([]float64, n)
		for i := range md.pw {
			md.pw[i] = 1
		}
	}
	md.off = s.Offset
	if md.off == nil {
		md.off = make([]float64, n)
	}
	for i := 0; i < n; i++ {
		md.llc += md.pw[i] * fam.constant(md.y[i], md.m[i])
	}
	md.lam = make([][]float64, len(L.terms))
	md.vOff = make([]int, len(L.terms))
	for k, t := range L.terms {
		md.lam[k] = make([]float64, t.nc*t.nc)
		md.vOff[k] = md.vw
		md.vw += t.nc
	}
	md.v = make([]float64, n*md.vw)
	K := len(L.terms) - 1
	md.posT = make([]int32, n*max(K, 1))
	pos := make([]int32, L.r+p)
	for l, rows := range L.rowsByLev {
		for k, c := range L.pat[l] {
			pos[c] = int32(k)
		}
		for _, i := range rows {
			for k, t := range L.terms[1:] {
				md.posT[int(i)*K+k] = pos[t.off+t.lev[i]*t.nc]
			}
		}
	}
	md.theta = make([]float64, L.nth)
	md.beta = make([]float64, p)
	nu := L.q0*L.b + L.r
	md.u = make([]float64, nu)
	md.u0 = make([]float64, nu)
	md.b0 = make([]float64, p)
	md.xb = make([]float64, n)
	md.eta = make([]float64, n)
	md.score = make([]float64, n)
	md.w = make([]float64, n)
	md.g = make([]float64, nu+p)
	md.du = make([]float64, nu+p)
	md.sys = newBsys(L)
	md.maxit = 100
	md.tol = 1e-12
	md.stepTol = 1e-8
	if link != s.Family.CanonicalLink() {
		md.stepTol, md.trust = 1e-13, 1e-6
	}
	return md
}

// setTheta computes Λ and the scaled Z rows for θ.
func (md *gmodel) setTheta(theta []float64) {
	copy(md.theta, theta)
	for k, t := range md.L.terms {
		t.lambda(theta, md.lam[k])
	}
	vw := md.vw
	for k, t := range md.L.terms {
		lam, nc, o := md.lam[k], t.nc, md.vOff[k]
		if nc == 1 {
			th := lam[0]
			for i := 0; i < md.n; i++ {
				md.v[i*vw+o] = th * t.zAt(0, i)
			}
			continue
		}
		for i := 0; i < md.n; i++ {
			row := md.v[i*vw+o : i*vw+o+nc]
			for j := 0; j < nc; j++ {
				var s float64
				for a := j; a < nc; a++ {
					s += lam[a*nc+j] * t.zAt(a, i)
				}
				row[j] = s
			}
		}
	}
}

func (md *gmodel) computeXB() {
	p := md.p
	for i := 0; i < md.n; i++ {
		t := md.off[i]
		for j, v := range md.x[i*p : (i+1)*p] {
			t += v * md.beta[j]
		}
		md.xb[i] = t
	}
}

// uIndex returns the index in u of the first effect of term k at row i.
func (md *gmodel) uIndex(k, i int) int {
	t := md.L.terms[k]
	if k == 0 {
		return t.lev[i] * t.nc
	}
	return md.L.q0*md.L.b + t.off + t.lev[i]*t.nc
}

// penDev computes η, the scores and weights, and returns −2Σℓ + ‖u‖²
// (+Inf when η leaves the link's domain).
func (md *gmodel) penDev() float64 {
	var d float64
	vw := md.vw
	K := len(md.L.terms)
	for i := 0; i < md.n; i++ {
		eta := md.xb[i]
		vi := md.v[i*vw : (i+1)*vw]
		for k := 0; k < K; k++ {
			t := md.L.terms[k]
			ui := md.uIndex(k, i)
			o := md.vOff[k]
			for j := 0; j < t.nc; j++ {
				eta += vi[o+j] * md.u[ui+j]
			}
		}
		if !md.fam.valid(eta) {
			return math.Inf(1)
		}
		md.eta[i] = eta
		_, ll, sc, w := md.fam.eval(eta, md.y[i], md.m[i])
		pw := md.pw[i]
		md.score[i] = pw * sc
		md.w[i] = pw * w
		d -= 2 * pw * ll
	}
	for _, v := range md.u {
		d += v * v
	}
	return d
}

// build assembles the PIRLS system ΛᵀZᵀWZΛ + I (and, when joint, the
// fixed-effect blocks) and the gradient at the η of the last penDev.
func (md *gmodel) build(joint bool) {
	L := md.L
	s := md.sys
	rd := L.r
	if joint {
		rd += md.p
	}
	s.setRD(rd)
	s.reset()
	b := L.b
	q1 := L.q0 * b
	g := md.g[:q1+rd]
	clear(g)
	g2 := g[q1:]
	st := s.stride
	vw := md.vw
	K := len(L.terms) - 1
	type ent struct {
		col int32
		pos int32
		v   float64
	}
	var buf [32]ent
	ents := buf[:0]
	t0 := L.terms[0]
	for i := 0; i < md.n; i++ {
		w, sc := md.w[i], md.score[i]
		l := t0.lev[i]
		vi := md.v[i*vw : (i+1)*vw]
		v0 := vi[:b]
		dl := s.d[l*b*b : (l+1)*b*b]
		for r := 0; r < b; r++ {
			wr := w * v0[r]
			for c := 0; c < b; c++ {
				dl[r*b+c] += wr * v0[c]
			}
			g[l*b+r] += v0[r] * sc
		}
		ents = ents[:0]
		for k, t := range L.terms[1:] {
			base := t.off + t.lev[i]*t.nc
			ps := md.posT[i*K+k]
			o := md.vOff[k+1]
			for j := 0; j < t.nc; j++ {
				ents = append(ents, ent{int32(base + j), ps + int32(j), vi[o+j]})
			}
		}
		if joint {
			pat := L.pat[l]
			px := int32(len(pat) - md.p)
			for j, v := range md.x[i*md.p : (i+1)*md.p] {
				ents = append(ents, ent{int32(L.r + j), px + int32(j), v})
			}
		}
		if len(ents) == 0 {
			continue
		}
		cl := s.c[l]
		wd := len(L.pat[l])
		for r := 0; r < b; r++ {
			wr := w * v0[r]
			row := cl[r*wd : (r+1)*wd]
			for _, e := range ents {
				row[e.pos] += wr * e.v
			}
		}
		for a, e := range ents {
			we := w * e.v
			g2[e.col] += e.v * sc
			arow := s.a[int(e.col)*st:]
			for _, f := range ents[:a+1] {
				if f.col <= e.col {
					arow[f.col] += we * f.v
				} else {
					s.a[int(f.col)*st+int(e.col)] += we * f.v
				}
			}
		}
	}
	for j := 0; j < q1; j++ {
		s.d[(j/b)*b*b+(j%b)*b+j%b]++
		g[j] -= md.u[j]
	}
	for j := 0; j < L.r; j++ {
		s.a[j*st+j]++
		g2[j] -= md.u[q1+j]
	}
}

// pirls finds the conditional modes û (and β when joint) at the current θ
// by Fisher-scoring steps with step halving (lme4's pwrssUpdate), until a
// full step is below 1e-8 relative or the penalised deviance changes by
// less than tol relative. On return the system is factorised at the modes.
func (md *gmodel) pirls(joint bool) (float64, error) {
	md.computeXB()
	pdev := md.penDev()
	if math.IsNaN(pdev) || math.IsInf(pdev, 0) {
		// Start again from u = 0.
		clear(md.u)
		if pdev = md.penDev(); math.IsNaN(pdev) || math.IsInf(pdev, 0) {
			return pdev, errPIRLS
		}
	}
	return pirlsSteps(md, md.u, md.u0, md.beta, md.b0, joint, pdev, md.maxit, md.tol, md.stepTol, md.trust)
}

// factorSys factorises the PIRLS system built at the current modes.
func (md *gmodel) factorSys() bool { return md.sys.factor() }

// newtonStep solves the factorised system for the step in u (and β when
// joint) from the gradient g.
func (md *gmodel) newtonStep(joint bool) []float64 {
	n := len(md.u)
	if joint {
		n += md.p
	}
	step := md.du[:n]
	copy(step, md.g[:n])
	md.sys.forward(step)
	md.sys.backward(step)
	return step
}

// laplace is the Laplace deviance −2Σℓ + ‖û‖² + log|L_θ|² (without the
// constant in y), with β at its joint mode when joint (lme4's nAGQ = 0).
func (md *gmodel) laplace(joint bool) (float64, error) {
	pdev, err := md.pirls(joint)
	return pdev + md.sys.logDetBlocks() + md.sys.logDetDense(0, md.L.r), err
}

// agq is the adaptive Gauss–Hermite deviance (without the constant in y)
// for a single scalar random-effects term, as model.agq: per level j with
// mode ûⱼ and sⱼ = 1/Lⱼⱼ from the PIRLS factor (expected-information
// weights, as lme4's glmerAGQ),
//
//	d = −2 Σⱼ [log(sⱼ/√π) + hⱼ(ûⱼ) + log Σₖ wₖ exp(hⱼ(ûⱼ + √2 sⱼ xₖ) − hⱼ(ûⱼ) + xₖ²)],
//	hⱼ(u) = Σ_{i∈j} pwᵢ ℓ(xᵢβ + oᵢ + λu) − u²/2.
//
// One node is the Laplace deviance.
func (md *gmodel) agq(gh *ghRule, rows [][]int) (float64, error) {
	_, err := md.pirls(false)
	if err != nil && !errors.Is(err, errNoPIRLS) {
		return math.NaN(), err
	}
	vw := md.vw
	var dev float64
	for j, rs := range rows {
		if len(rs) == 0 {
			continue
		}
		uh := md.u[j]
		sj := 1 / md.sys.ld[j]
		h := func(u float64) float64 {
			v := -u * u / 2
			for _, i := range rs {
				_, ll, _, _ := md.fam.eval(md.xb[i]+md.v[i*vw]*u, md.y[i], md.m[i])
				v += md.pw[i] * ll
			}
			return v
		}
		dev -= 2 * gh.logLik(uh, sj, h)
	}
	return dev, err
}
