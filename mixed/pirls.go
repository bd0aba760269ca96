package mixed

import (
	"errors"
	"math"
)

// model is a logistic GLMM on collapsed rows: row i stands for m[i]
// Bernoulli rows with identical covariates and levels, s[i] of them ones.
// Factor 0 (the one with most levels) forms the diagonal block of the PIRLS
// system; the others, and β in the joint step, form the dense block.
type model struct {
	n, p        int
	x           []float64 // n×p, row-major
	m, s        []float64
	k           int     // number of grouping factors
	lev         [][]int // lev[f][i]: level of row i in factor f
	q           []int   // levels per factor
	uoff        []int   // offset of factor f in u
	qt          int     // Σq
	r           int     // dense size of the u-only system: Σ_{f≥1} q[f]
	theta, beta []float64
	u           []float64 // current conditional modes (warm start)
	xb, eta     []float64
	mu, w1      []float64 // μ and μ(1−μ) at η, cached by penDev for build
	maxit       int
	stepTol     float64 // PIRLS stops after a full step below stepTol (1e-6)
	extrap      bool    // u holds an O(Δ²)-accurate start: try oneStep
	tol         float64

	sys blockSys
	g   []float64 // gradient, length q0 + r + p
	du  []float64 // step
	u0  []float64
	b0  []float64
	ent []entry

	// Work space of lapGrad.
	sinv, yinv, hjj, adj, hv []float64
}

type entry struct {
	idx int
	v   float64
}

// blockSys holds the symmetric positive definite system
//
//	[ diag(d)  C ]
//	[ Cᵀ       A ]
//
// and the Cholesky factor of the Schur complement S = A − Cᵀ diag(d)⁻¹ C.
type blockSys struct {
	q0, rd int
	d      []float64 // q0
	c      []float64 // q0×rd
	a      []float64 // rd×rd, lower triangle used
	l      []float64 // rd×rd, Cholesky factor of S (lower)
	nz     []int
}

func newBlockSys(q0, rdMax int) blockSys {
	return blockSys{
		q0: q0,
		d:  make([]float64, q0),
		c:  make([]float64, q0*rdMax),
		a:  make([]float64, rdMax*rdMax),
		l:  make([]float64, rdMax*rdMax),
		nz: make([]int, 0, rdMax),
	}
}

func (b *blockSys) reset(rd int) {
	b.rd = rd
	clear(b.d)
	clear(b.c[:b.q0*rd])
	clear(b.a[:rd*rd])
}

// factor forms the Schur complement and its Cholesky factor; it reports
// false when the system is not numerically positive definite.
func (b *blockSys) factor() bool {
	rd := b.rd
	l := b.l[:rd*rd]
	copy(l, b.a[:rd*rd])
	for j := 0; j < b.q0; j++ {
		if b.d[j] <= 0 {
			return false
		}
		row := b.c[j*rd : (j+1)*rd]
		nz := b.nz[:0]
		for i, v := range row {
			if v != 0 {
				nz = append(nz, i)
			}
		}
		inv := 1 / b.d[j]
		for _, i := range nz {
			ci := row[i] * inv
			for _, k := range nz {
				if k > i {
					break
				}
				l[i*rd+k] -= ci * row[k]
			}
		}
	}
	return cholesky(l, rd)
}

// cholesky overwrites the lower triangle of the n×n row-major a with L,
// a = LLᵀ.
func cholesky(a []float64, n int) bool {
	for j := 0; j < n; j++ {
		s := a[j*n+j]
		for k := 0; k < j; k++ {
			s -= a[j*n+k] * a[j*n+k]
		}
		if !(s > 0) {
			return false
		}
		ljj := math.Sqrt(s)
		a[j*n+j] = ljj
		for i := j + 1; i < n; i++ {
			t := a[i*n+j]
			for k := 0; k < j; k++ {
				t -= a[i*n+k] * a[j*n+k]
			}
			a[i*n+j] = t / ljj
		}
	}
	return true
}

// cholSolve solves LLᵀx = b in place.
func cholSolve(l []float64, n int, b []float64) {
	for i := 0; i < n; i++ {
		t := b[i]
		for k := 0; k < i; k++ {
			t -= l[i*n+k] * b[k]
		}
		b[i] = t / l[i*n+i]
	}
	for i := n - 1; i >= 0; i-- {
		t := b[i]
		for k := i + 1; k < n; k++ {
			t -= l[k*n+i] * b[k]
		}
		b[i] = t / l[i*n+i]
	}
}

// solve overwrites g = (g1, g2) with the solution of the block system.
func (b *blockSys) solve(g []float64) {
	rd := b.rd
	g1, g2 := g[:b.q0], g[b.q0:b.q0+rd]
	for j := 0; j < b.q0; j++ {
		if g1[j] == 0 {
			continue
		}
		t := g1[j] / b.d[j]
		row := b.c[j*rd : (j+1)*rd]
		for i, v := range row {
			g2[i] -= v * t
		}
	}
	cholSolve(b.l[:rd*rd], rd, g2)
	for j := 0; j < b.q0; j++ {
		row := b.c[j*rd : (j+1)*rd]
		t := g1[j]
		for i, v := range row {
			t -= v * g2[i]
		}
		g1[j] = t / b.d[j]
	}
}

// logDet returns log det of the leading q0+k rows and columns of the system.
func (b *blockSys) logDet(k int) float64 {
	var s float64
	for _, v := range b.d {
		s += math.Log(v)
	}
	for i := 0; i < k; i++ {
		s += 2 * math.Log(b.l[i*b.rd+i])
	}
	return s
}

// softplus is log(1+e^η) without overflow.
func softplus(eta float64) float64 {
	if eta > 0 {
		return eta + math.Log1p(math.Exp(-eta))
	}
	return math.Log1p(math.Exp(eta))
}

// logLik is the Bernoulli log-likelihood of s ones in m rows at linear
// predictor η, s·η − m·log(1+e^η). It is written in η rather than through
// stats.BernoulliLogLik(μ) because log(1−μ) loses digits when μ → 1, and the
// finite-difference Hessian needs the deviance to near machine precision.
func logLik(eta, s, m float64) float64 { return s*eta - m*softplus(eta) }

func (md *model) computeXB() {
	for i := 0; i < md.n; i++ {
		var t float64
		xi := md.x[i*md.p : (i+1)*md.p]
		for j, v := range xi {
			t += v * md.beta[j]
		}
		md.xb[i] = t
	}
}

// penDev computes η, μ and μ(1−μ) from (β, u) and returns −2 Σ ℓ + ‖u‖².
func (md *model) penDev() float64 { return md.linear(true) }

// linear computes η, μ and μ(1−μ) from (β, u) and, when dev is set, the
// penalised deviance −2 Σ ℓ + ‖u‖² (else 0). One exponential per row serves
// all: with e = exp(−|η|), log(1+e^η) = max(η,0) + log1p(e) and
// μ(1−μ) = e/(1+e)².
func (md *model) linear(dev bool) float64 {
	var d float64
	for i := 0; i < md.n; i++ {
		eta := md.xb[i]
		for f := 0; f < md.k; f++ {
			eta += md.theta[f] * md.u[md.uoff[f]+md.lev[f][i]]
		}
		md.eta[i] = eta
		e := math.Exp(-math.Abs(eta))
		mu := 1 / (1 + e)
		if eta <= 0 {
			mu = e * mu
		}
		md.mu[i] = mu
		md.w1[i] = e / ((1 + e) * (1 + e))
		if dev {
			sp := math.Log1p(e) + math.Max(eta, 0)
			d -= 2 * (md.s[i]*eta - md.m[i]*sp)
		}
	}
	if !dev {
		return 0
	}
	for _, v := range md.u {
		d += v * v
	}
	return d
}

// build assembles the PIRLS system at the η of the last penDev: the negative Hessian
// ΛᵀZᵀWZΛ + I (and, when joint, the XᵀWX and ΛᵀZᵀWX blocks) and the
// gradient of the log of the penalised likelihood.
func (md *model) build(joint bool) {
	q0 := md.q[0]
	rd := md.r
	if joint {
		rd += md.p
	}
	b := &md.sys
	b.reset(rd)
	g := md.g[:q0+rd]
	clear(g)
	g2 := g[q0:]
	th0 := md.theta[0]
	for i := 0; i < md.n; i++ {
		// μ and μ(1−μ) as stats.Expit(η)·stats.Expit(−η), cached by penDev.
		mu := md.mu[i]
		w := md.m[i] * md.w1[i]
		res := md.s[i] - md.m[i]*mu
		j0 := md.lev[0][i]
		b.d[j0] += th0 * th0 * w
		g[j0] += th0 * res
		ent := md.ent[:0]
		for f := 1; f < md.k; f++ {
			ent = append(ent, entry{md.uoff[f] - q0 + md.lev[f][i], md.theta[f]})
		}
		if joint {
			xi := md.x[i*md.p : (i+1)*md.p]
			for j, v := range xi {
				if v != 0 {
					ent = append(ent, entry{md.r + j, v})
				}
			}
		}
		crow := b.c[j0*rd : (j0+1)*rd]
		for a, e := range ent {
			crow[e.idx] += th0 * w * e.v
			g2[e.idx] += e.v * res
			we := w * e.v
			for _, f := range ent[:a+1] {
				// Entries are not sorted across factors, so write the lower
				// triangle explicitly.
				if f.idx <= e.idx {
					b.a[e.idx*rd+f.idx] += we * f.v
				} else {
					b.a[f.idx*rd+e.idx] += we * f.v
				}
			}
		}
	}
	for j := 0; j < q0; j++ {
		b.d[j]++
		g[j] -= md.u[j]
	}
	for j := 0; j < md.r; j++ {
		b.a[j*rd+j]++
		g2[j] -= md.u[q0+j]
	}
}

var errPIRLS = errors.New("mixed: penalised IRLS failed")

// pirlsModel is what halveStep needs of a model: η from β, and the
// penalised deviance (which also caches μ and the weights) at (β, u).
type pirlsModel interface {
	computeXB()
	penDev() float64
}

// stepScale returns the largest |step| and the scale max(1, max|u|) that
// the PIRLS stopping rules compare it with.
func stepScale(step, u []float64) (smax, scale float64) {
	scale = 1
	for _, v := range step {
		smax = math.Max(smax, math.Abs(v))
	}
	for _, v := range u {
		scale = math.Max(scale, math.Abs(v))
	}
	return smax, scale
}

// halveStep is PIRLS's step halving (lme4 pwrssUpdate): from (u, β),
// saved in (u0, b0), it takes u + t·step (and β + t·step[len(u):] when
// joint) for the largest t = 2⁻ʰ, h < 30, whose penalised deviance pnew
// is not above pdev beyond rounding. When none is, it restores (u, β) and
// returns ok false with pnew the deviance there.
func halveStep(md pirlsModel, u, u0, beta, b0, step []float64, joint bool, pdev float64) (t, pnew float64, ok bool) {
	copy(u0, u)
	copy(b0, beta)
	nu := len(u)
	t = 1
	for h := 0; h < 30; h++ {
		for j := range u {
			u[j] = u0[j] + t*step[j]
		}
		if joint {
			for j := range beta {
				beta[j] = b0[j] + t*step[nu+j]
			}
			md.computeXB()
		}
		if pnew = md.penDev(); pnew <= pdev+1e-12*math.Abs(pdev) {
			return t, pnew, true
		}
		t /= 2
	}
	copy(u, u0)
	copy(beta, b0)
	if joint {
		md.computeXB()
	}
	return t, md.penDev(), false
}

// pirls finds the conditional modes û (and β when joint, lme4's nAGQ = 0
// step) for the current θ by Newton steps on the penalised deviance with
// step halving (lme4 src/external.cpp pwrssUpdate). It stops after a full
// step below stepTol (1e-6: quadratic convergence then leaves the modes
// accurate to about 1e-12, so the Laplace deviance is accurate to rounding,
// as the finite-difference Hessian needs) or, as lme4, when the relative
// change of the penalised deviance is below tol, here with a step below
// 1e-7 as well. On return the system is factorised at the final modes. It
// returns the penalised deviance −2Σℓ + ‖û‖².
func (md *model) pirls(joint bool) (float64, error) {
	if !joint {
		md.computeXB()
		if md.extrap {
			if pdev, ok := md.oneStep(); ok {
				return pdev, nil
			}
		}
	}
	pdev := md.penDev()
	if math.IsNaN(pdev) || math.IsInf(pdev, 0) {
		return pdev, errPIRLS
	}
	return pirlsSteps(md, md.u, md.u0, md.beta, md.b0, joint, pdev, md.maxit, md.tol, md.stepTol, 0)
}

// factorSys factorises the PIRLS system built at the current modes.
func (md *model) factorSys() bool { return md.sys.factor() }

// newtonStep solves the factorised system for the step in u (and β when
// the system was built joint) from the gradient g.
func (md *model) newtonStep(bool) []float64 {
	n := md.q[0] + md.sys.rd
	step := md.du[:n]
	copy(step, md.g[:n])
	md.sys.solve(step)
	return step
}

// newtonModel is what pirlsSteps needs of a model besides pirlsModel: the
// PIRLS system built at the current modes (build), factorised
// (factorSys) and solved for the Newton step (newtonStep).
type newtonModel interface {
	pirlsModel
	build(joint bool)
	factorSys() bool
	newtonStep(joint bool) []float64
}

// pirlsSteps is the loop of PIRLS (lme4 pwrssUpdate) from the modes (u,
// and β when joint) with penalised deviance pdev: at most maxit Newton
// steps with step halving, stopping after a full step below stepTol
// relative to max(1, max|u|) or, as lme4, when the relative change of the
// penalised deviance is below tol with a step below 1e-7 as well. A step
// below trust (relative) is taken whole without the halving test: Fisher
// scoring for a non-canonical link converges linearly, and its last
// steps, far below what the penalised deviance resolves (its changes are
// their square), must still be taken for the log-determinant, linear in
// the modes, to be accurate. It builds and factorises the system again at
// the final modes and returns their penalised deviance, with errNoPIRLS
// when it did not converge.
func pirlsSteps(md newtonModel, u, u0, beta, b0 []float64, joint bool, pdev float64, maxit int, tol, stepTol, trust float64) (float64, error) {
	converged := false
	for it := 0; it < maxit; it++ {
		md.build(joint)
		if !md.factorSys() {
			return pdev, errPIRLS
		}
		step := md.newtonStep(joint)
		smax, scale := stepScale(step, u)
		if smax < trust*scale {
			for j := range u {
				u[j] += step[j]
			}
			if joint {
				for j := range beta {
					beta[j] += step[len(u)+j]
				}
				md.computeXB()
			}
			pdev = md.penDev()
			if smax < stepTol*scale {
				converged = true
				break
			}
			continue
		}
		t, pnew, ok := halveStep(md, u, u0, beta, b0, step, joint, pdev)
		if !ok {
			pdev = pnew
			// Rounding can stop a tiny final step from lowering pdev.
			converged = smax < 1e-6*scale
			break
		}
		change := pdev - pnew
		pdev = pnew
		if (t == 1 && smax < stepTol*scale) || (change < tol*math.Abs(pdev) && t*smax < 1e-7*scale) {
			converged = true
			break
		}
	}
	md.build(joint)
	if !md.factorSys() {
		return pdev, errPIRLS
	}
	if !converged {
		return pdev, errNoPIRLS
	}
	return pdev, nil
}

// oneStep is the PIRLS shortcut from a start accurate to O(Δ²) (the
// finite-difference stencils' linear warm start): one Newton step, taken
// without the step-halving test when it is below stepTol, so the deviance
// at the start is never needed. It reports false, with u unchanged, when
// the step is larger; pirls then runs its full loop.
func (md *model) oneStep() (float64, bool) {
	md.linear(false)
	md.build(false)
	if !md.sys.factor() {
		return 0, false
	}
	step := md.newtonStep(false)
	var smax, scale float64 = 0, 1
	for j, v := range step {
		smax = math.Max(smax, math.Abs(v))
		scale = math.Max(scale, math.Abs(md.u[j]))
	}
	if !(smax < md.stepTol*scale) {
		return 0, false
	}
	copy(md.u0, md.u)
	for j, v := range step {
		md.u[j] += v
	}
	pdev := md.penDev()
	md.build(false)
	if math.IsNaN(pdev) || math.IsInf(pdev, 0) || !md.sys.factor() {
		copy(md.u, md.u0)
		return 0, false
	}
	return pdev, true
}

var errNoPIRLS = errors.New("mixed: penalised IRLS did not converge")

// laplace is the Laplace deviance (lme4 glmResp::Laplace)
//
//	d_L(θ, β) = −2 Σ log p(y | η(û)) + ‖û‖² + log det(LLᵀ),
//
// or with joint true the nAGQ = 0 deviance, where β is the joint mode.
func (md *model) laplace(joint bool) (float64, error) {
	pdev, err := md.pirls(joint)
	return pdev + md.sys.logDet(md.r), err
}

// agq is the adaptive Gauss–Hermite deviance for a single grouping factor
// (Pinheiro & Bates 1995; lme4 glmerAGQ): per level j with mode ûⱼ and
// conditional SD sⱼ = 1/Lⱼⱼ,
//
//	Lⱼ = (sⱼ/√π) Σₖ wₖ exp(hⱼ(ûⱼ + √2 sⱼ xₖ) + xₖ²),
//	hⱼ(u) = Σ_{i∈j} log p(yᵢ | xᵢβ + θu) − u²/2,
//
// with (xₖ, wₖ) the physicists' Hermite rule, and d = −2 Σⱼ log Lⱼ.
func (md *model) agq(gh *ghRule, rows [][]int) (float64, error) {
	_, err := md.pirls(false)
	if err != nil && !errors.Is(err, errNoPIRLS) {
		return math.NaN(), err
	}
	th := md.theta[0]
	var dev float64
	for j, rs := range rows {
		if len(rs) == 0 {
			continue
		}
		uh := md.u[j]
		sj := 1 / math.Sqrt(md.sys.d[j])
		h := func(u float64) float64 {
			v := -u * u / 2
			for _, i := range rs {
				v += logLik(md.xb[i]+th*u, md.s[i], md.m[i])
			}
			return v
		}
		dev -= 2 * gh.logLik(uh, sj, h)
	}
	return dev, err
}

// sensitivity returns du/dpar for par = (θ, β) at the converged modes of
// the last u-only pirls, by the implicit function theorem on the PIRLS
// stationarity condition G(u, par) = ΛᵀZᵀ(y−μ) − u = 0:
//
//	du/dpar = H⁻¹ ∂G/∂par,   H = ΛᵀZᵀWZΛ + I,
//	∂G_j/∂θ_k = [f(j)=k] Σ_{i∈j}(yᵢ−μᵢ) − θ_{f(j)} Σ_{i∈j} wᵢ u_{k,lev_k(i)},
//	∂G_j/∂β_c = −θ_{f(j)} Σ_{i∈j} wᵢ x_{ic}.
//
// Finite-difference stencils start PIRLS from û + (du/dpar)Δ, which is
// accurate to O(Δ²), so one Newton step converges.
func (md *model) sensitivity(dst [][]float64) {
	np := md.k + md.p
	for c := 0; c < np; c++ {
		clear(dst[c])
	}
	for i := 0; i < md.n; i++ {
		w := md.m[i] * md.w1[i]
		res := md.s[i] - md.m[i]*md.mu[i]
		for f := 0; f < md.k; f++ {
			j := md.uoff[f] + md.lev[f][i]
			tw := md.theta[f] * w
			dst[f][j] += res
			for k := 0; k < md.k; k++ {
				dst[k][j] -= tw * md.u[md.uoff[k]+md.lev[k][i]]
			}
			xi := md.x[i*md.p : (i+1)*md.p]
			for c, v := range xi {
				dst[md.k+c][j] -= tw * v
			}
		}
	}
	for c := 0; c < np; c++ {
		md.sys.solve(dst[c])
	}
}

// lapGrad is the analytic gradient of the Laplace deviance over
// par = (θ, β) at the converged modes of the last u-only pirls (whose
// system is factorised there); dst has length k+p. With rᵢ = sᵢ − mᵢμᵢ,
// wᵢ = mᵢμᵢ(1−μᵢ), w′ᵢ = wᵢ(1−2μᵢ), vᵢ = ΛᵀZᵀeᵢ and the leverage
// hᵢ = vᵢᵀH⁻¹vᵢ, the penalised deviance contributes −2Σrᵢ∂ηᵢ/∂par
// (û is its minimiser, so û's dependence on par drops out) and
// log det H contributes tr(H⁻¹ ∂H/∂par), through W and, for θ, through Λ:
//
//	Σᵢ w′ᵢhᵢ dηᵢ/dpar + 2Σᵢ wᵢ(H⁻¹vᵢ)_{f(i)},   dηᵢ/dpar = ∂ηᵢ/∂par + vᵢᵀ dû/dpar.
//
// The term in dû/dpar = H⁻¹∂G/∂par (see sensitivity) is zᵀ∂G/∂par with
// the adjoint z = H⁻¹Σᵢ w′ᵢhᵢvᵢ: one solve instead of k+p. The entries
// of H⁻¹ that hᵢ needs (the pattern of ZᵀZ) come from the block form:
// with S the Schur complement and yⱼ = S⁻¹cⱼ/dⱼ for row cⱼ of C,
// (H⁻¹)ⱼⱼ = 1/dⱼ + cⱼᵀyⱼ/dⱼ, (H⁻¹)ⱼₗ = −yⱼₗ and the dense block is S⁻¹.
// The Hessian from central differences of this gradient needs 2(k+p)
// deviance evaluations where deriv12 needs 2(k+p)².
func (md *model) lapGrad(dst []float64) {
	k, p := md.k, md.p
	q0, r := md.q[0], md.r
	b := &md.sys
	if md.hjj == nil {
		md.sinv = make([]float64, r*r)
		md.yinv = make([]float64, q0*r)
		md.hjj = make([]float64, q0)
		md.adj = make([]float64, md.qt)
		md.hv = make([]float64, k)
	}
	sinv, yinv, hjj := md.sinv[:r*r], md.yinv[:q0*r], md.hjj
	l := b.l[:r*r]
	for c := 0; c < r; c++ {
		col := sinv[c*r : (c+1)*r] // S⁻¹ is symmetric: rows are columns
		clear(col)
		col[c] = 1
		cholSolve(l, r, col)
	}
	for j := 0; j < q0; j++ {
		inv := 1 / b.d[j]
		cj := b.c[j*r : (j+1)*r]
		yj := yinv[j*r : (j+1)*r]
		clear(yj)
		for m, v := range cj {
			if v == 0 {
				continue
			}
			v *= inv
			srow := sinv[m*r : (m+1)*r]
			for l2, s := range srow {
				yj[l2] += s * v
			}
		}
		var t float64
		for m, v := range cj {
			t += v * yj[m]
		}
		hjj[j] = inv + t*inv
	}
	clear(dst)
	gth, gb := dst[:k], dst[k:]
	adj := md.adj
	clear(adj)
	hv := md.hv
	th := md.theta
	for i := 0; i < md.n; i++ {
		mu := md.mu[i]
		w := md.m[i] * md.w1[i]
		res := md.s[i] - md.m[i]*mu
		j0 := md.lev[0][i]
		yj := yinv[j0*r : (j0+1)*r]
		// hv[f] = (H⁻¹vᵢ) at factor f's level of row i.
		h0 := th[0] * hjj[j0]
		for f := 1; f < k; f++ {
			lf := md.uoff[f] - q0 + md.lev[f][i]
			h0 -= th[f] * yj[lf]
			t := -th[0] * yj[lf]
			srow := sinv[lf*r : (lf+1)*r]
			for g := 1; g < k; g++ {
				t += th[g] * srow[md.uoff[g]-q0+md.lev[g][i]]
			}
			hv[f] = t
		}
		hv[0] = h0
		var lev float64
		for f := 0; f < k; f++ {
			lev += th[f] * hv[f]
		}
		a := w*(1-2*mu)*lev - 2*res
		for f := 0; f < k; f++ {
			af := md.uoff[f] + md.lev[f][i]
			gth[f] += a*md.u[af] + 2*w*hv[f]
			adj[af] += (a + 2*res) * th[f]
		}
		xi := md.x[i*p : (i+1)*p]
		for c, v := range xi {
			gb[c] += a * v
		}
	}
	b.solve(adj)
	for i := 0; i < md.n; i++ {
		w := md.m[i] * md.w1[i]
		res := md.s[i] - md.m[i]*md.mu[i]
		var zeta float64
		for f := 0; f < k; f++ {
			zeta += th[f] * adj[md.uoff[f]+md.lev[f][i]]
		}
		wz := w * zeta
		for f := 0; f < k; f++ {
			af := md.uoff[f] + md.lev[f][i]
			gth[f] += res*adj[af] - wz*md.u[af]
		}
		xi := md.x[i*p : (i+1)*p]
		for c, v := range xi {
			gb[c] -= wz * v
		}
	}
}
