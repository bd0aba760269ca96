package stats

import "math"

// TOSTAlpha is the level of each one-sided test in TOSTIndep and
// TOSTPaired; the matching two-sided interval is the 90% one.
const TOSTAlpha = 0.05

// TOSTResult is a two one-sided tests (TOST) equivalence test of a
// difference of two proportions Δ = p₁ − p₂ against the margin ±δ
// (Schuirmann 1987, J Pharmacokinet Biopharm 15:657–680):
//
//	H₀: Δ ≤ −δ or Δ ≥ δ   vs   H₁: −δ < Δ < δ
//	p_L = P(Z ≥ (Δ̂ + δ)/SE_L),  p_U = P(Z ≤ (Δ̂ − δ)/SE_U),  p_TOST = max(p_L, p_U)
type TOSTResult struct {
	Diff       float64 // Δ̂ = p̂₁ − p̂₂ (unadjusted)
	Lo90, Hi90 float64 // 90% two-sided interval of Method
	PLower     float64 // p-value of H₀: Δ ≤ −δ
	PUpper     float64 // p-value of H₀: Δ ≥ δ
	PTOST      float64 // max(PLower, PUpper)
	Equivalent bool    // PTOST < TOSTAlpha
	Method     string
	NewcombeLo float64 // Newcombe 90% interval (independent: hybrid score; paired: square-and-add)
	NewcombeHi float64
}

func (r *TOSTResult) finish(margin float64) {
	r.PTOST = math.Max(r.PLower, r.PUpper)
	if math.IsNaN(r.PLower) || math.IsNaN(r.PUpper) {
		r.PTOST = math.NaN()
	}
	r.Equivalent = r.PTOST < TOSTAlpha
}

func nanTOST(method string) TOSTResult {
	n := math.NaN()
	return TOSTResult{Diff: n, Lo90: n, Hi90: n, PLower: n, PUpper: n, PTOST: n, Method: method, NewcombeLo: n, NewcombeHi: n}
}

// TOSTMethod is the test statistic of TOSTIndep. Its text form is the
// name statsmodels' tost_proportions_2indep gives the method.
type TOSTMethod string

// The methods of TOSTIndep.
const (
	TOSTWald         TOSTMethod = "wald"          // Wald on the observed proportions
	TOSTAgrestiCaffo TOSTMethod = "agresti-caffo" // Wald after one added success and failure per group
	TOSTScore        TOSTMethod = "score"         // Miettinen–Nurminen score
)

// TOSTMethods returns the accepted methods, in the order messages name
// them (the default first).
func TOSTMethods() []TOSTMethod { return []TOSTMethod{TOSTAgrestiCaffo, TOSTWald, TOSTScore} }

// String returns the method's name.
func (m TOSTMethod) String() string { return string(m) }

// Valid reports whether m is one of TOSTMethods.
func (m TOSTMethod) Valid() bool {
	switch m {
	case TOSTWald, TOSTAgrestiCaffo, TOSTScore:
		return true
	}
	return false
}

// MarshalText returns the method's name.
func (m TOSTMethod) MarshalText() ([]byte, error) { return []byte(m), nil }

// UnmarshalText parses a method name; an unknown name is an error that
// lists the accepted ones.
func (m *TOSTMethod) UnmarshalText(b []byte) error {
	return unmarshalName("unknown TOST method", b, TOSTMethods(), m)
}

func checkCounts(x, n int) {
	if x < 0 || n < 0 || x > n {
		panic("stats: count outside [0, n]")
	}
}

func checkMargin(margin float64) {
	if !(margin > 0 && margin < 1) {
		panic("stats: equivalence margin must be in (0, 1)")
	}
}

// TOSTIndep tests equivalence of two independent proportions x₁/n₁ and
// x₂/n₂ within ±margin, as statsmodels tost_proportions_2indep
// (compare="diff") but with p_TOST the larger one-sided p-value (statsmodels
// ≤ 0.13 returned the smaller; issue #8213). Methods:
//
//   - TOSTWald: SE² = Σ p̂ⱼ(1−p̂ⱼ)/nⱼ;
//   - TOSTAgrestiCaffo: Wald after adding one success and one failure to
//     each group (Agresti & Caffo 2000, Am Stat 54:280–288);
//   - TOSTScore: Miettinen & Nurminen (1985, Stat Med 4:213–226) with the
//     variance at the constrained MLE under Δ = ±δ (closed-form cubic) and
//     the N/(N−1) correction; the interval inverts the two-sided test.
//
// Lo90/Hi90 is the 90% interval of the same method; NewcombeLo/Hi the 90%
// Newcombe hybrid score interval (docs/methods.md, TOST). An empty group
// gives NaN fields. An unknown method, counts outside [0, n] or a margin
// outside (0, 1) panic: parse a user's method with UnmarshalText.
func TOSTIndep(x1, n1, x2, n2 int, margin float64, method TOSTMethod) TOSTResult {
	checkCounts(x1, n1)
	checkCounts(x2, n2)
	checkMargin(margin)
	if !method.Valid() {
		panic("stats: unknown TOST method " + string(method))
	}
	if n1 == 0 || n2 == 0 {
		return nanTOST(string(method))
	}
	r := TOSTResult{Method: string(method)}
	r.Diff = float64(x1)/float64(n1) - float64(x2)/float64(n2)
	r.NewcombeLo, r.NewcombeHi = NewcombeIndep(x1, n1, x2, n2, 1-2*TOSTAlpha)
	z := ZLevel(1 - 2*TOSTAlpha)
	switch method {
	case TOSTWald, TOSTAgrestiCaffo:
		add := 0.0
		if method == TOSTAgrestiCaffo {
			add = 1
		}
		p1 := (float64(x1) + add) / (float64(n1) + 2*add)
		p2 := (float64(x2) + add) / (float64(n2) + 2*add)
		d := p1 - p2
		se := math.Sqrt(p1*(1-p1)/(float64(n1)+2*add) + p2*(1-p2)/(float64(n2)+2*add))
		r.PLower, r.PUpper = tostWald(d, se, margin)
		r.Lo90, r.Hi90 = WaldInterval(d, se, z)
	case TOSTScore:
		r.PLower = NormalUpper(scoreStat2Indep(x1, n1, x2, n2, -margin))
		r.PUpper = NormalUpper(-scoreStat2Indep(x1, n1, x2, n2, margin))
		r.Lo90, r.Hi90 = scoreCI2Indep(x1, n1, x2, n2, z)
	}
	r.finish(margin)
	return r
}

// scoreStat2Indep is the Miettinen–Nurminen score statistic for
// H₀: p₁ − p₂ = v, (p̂₁ − p̂₂ − v)/√Var(v), with Var evaluated at the
// constrained MLE (p̃₁, p̃₂) and multiplied by N/(N−1); for v = 0 the
// pooled proportion is the MLE. The cubic is solved in closed form as in
// statsmodels score_test_proportions_2indep (Farrington & Manning 1990,
// Stat Med 9:1447–1454).
func scoreStat2Indep(x1, n1, x2, n2 int, v float64) float64 {
	fx1, fn1, fx2, fn2 := float64(x1), float64(n1), float64(x2), float64(n2)
	n, x := fn1+fn2, fx1+fx2
	var q0, q1 float64
	if v == 0 {
		q0, q1 = x/n, x/n
	} else {
		t3 := n
		t2 := (fn1+2*fn2)*v - n - x
		t1 := (fx2*v-n-2*fx2)*v + x
		t0 := fx2 * v * (1 - v)
		q := math.Pow(t2/(3*t3), 3) - t1*t2/(6*t3*t3) + t0/(2*t3)
		p := math.Copysign(math.Sqrt(math.Pow(t2/(3*t3), 2)-t1/(3*t3)), q)
		a := (math.Pi + math.Acos(q/(p*p*p))) / 3
		q0 = 2*p*math.Cos(a) - t2/(3*t3)
		q1 = q0 + v
	}
	variance := (q1*(1-q1)/fn1 + q0*(1-q0)/fn2) * n / (n - 1)
	return (fx1/fn1 - fx2/fn2 - v) / math.Sqrt(variance)
}

// scoreCI2Indep inverts the two-sided score test: the set of v with
// |score(v)| ≤ z. The statistic decreases in v and is 0 at Δ̂; each bound
// is bracketed by stepping outwards from Δ̂ and refined by bisection. Near
// ±1 the constrained MLE can be undefined (NaN); such points count as
// rejected.
func scoreCI2Indep(x1, n1, x2, n2 int, z float64) (lo, hi float64) {
	d := float64(x1)/float64(n1) - float64(x2)/float64(n2)
	const edge = 1 - 1e-12
	// g(v) > 0 means v is rejected on that side.
	bound := func(sign float64) float64 {
		g := func(v float64) float64 {
			s := -sign * scoreStat2Indep(x1, n1, x2, n2, v)
			if math.IsNaN(s) {
				return math.Inf(1)
			}
			return s - z
		}
		in := d
		var out float64
		found := false
		for step := 0.01; ; step *= 2 {
			v := d + sign*step
			if sign*v >= edge {
				v = sign * edge
			}
			if g(v) > 0 {
				out, found = v, true
				break
			}
			in = v
			if sign*v >= edge {
				break
			}
		}
		if !found {
			return sign
		}
		for range 200 {
			m := 0.5 * (in + out)
			if m == in || m == out {
				break
			}
			if g(m) > 0 {
				out = m
			} else {
				in = m
			}
		}
		return 0.5 * (in + out)
	}
	return bound(-1), bound(1)
}

// NewcombeIndep returns Newcombe's (1998b, Stat Med 17:873–890, method 10)
// hybrid score interval for p₁ − p₂ of independent samples,
//
//	L = Δ̂ − √((p̂₁−l₁)² + (u₂−p̂₂)²),  U = Δ̂ + √((p̂₂−l₂)² + (u₁−p̂₁)²),
//
// with (lⱼ, uⱼ) the Wilson intervals at the same level; statsmodels
// confint_proportions_2indep(method="newcomb"). NaN for an empty group.
func NewcombeIndep(x1, n1, x2, n2 int, level float64) (lo, hi float64) {
	checkCounts(x1, n1)
	checkCounts(x2, n2)
	if n1 == 0 || n2 == 0 {
		return math.NaN(), math.NaN()
	}
	z := ZLevel(level)
	p1, p2 := float64(x1)/float64(n1), float64(x2)/float64(n2)
	l1, u1 := Wilson(p1, float64(n1), z)
	l2, u2 := Wilson(p2, float64(n2), z)
	d := p1 - p2
	return d - math.Hypot(p1-l1, u2-p2), d + math.Hypot(p2-l2, u1-p1)
}

// NewcombePaired returns Newcombe's (1998c, Stat Med 17:2635–2650)
// square-and-add interval for a paired difference of proportions. The
// table is a = both succeed, b = only the first succeeds, c = only the
// second, d = neither (rows: first condition), N = a+b+c+d, and
// Δ̂ = p̂₁ − p̂₂ = (b − c)/N with p̂₁ = (a+b)/N, p̂₂ = (a+c)/N:
//
//	A = ad − bc;  ψ = 0 if a margin is 0, (A − N/2)/√(r₁r₂c₁c₂) if A > N/2,
//	    0 if 0 ≤ A ≤ N/2, A/√(r₁r₂c₁c₂) otherwise
//	L = Δ̂ − √((p̂₁−l₁)² + (u₂−p̂₂)² − 2ψ(p̂₁−l₁)(u₂−p̂₂))
//	U = Δ̂ + √((p̂₂−l₂)² + (u₁−p̂₁)² − 2ψ(p̂₂−l₂)(u₁−p̂₁))
//
// with Wilson intervals (lⱼ, uⱼ) (formula as in Fagerland, Lydersen &
// Laake's contingencytables). NaN when N = 0.
func NewcombePaired(a, b, c, d int, level float64) (lo, hi float64) {
	if a < 0 || b < 0 || c < 0 || d < 0 {
		panic("stats: negative cell count")
	}
	n := float64(a + b + c + d)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	z := ZLevel(level)
	fa, fb, fc, fd := float64(a), float64(b), float64(c), float64(d)
	p1, p2 := (fa+fb)/n, (fa+fc)/n
	l1, u1 := Wilson(p1, n, z)
	l2, u2 := Wilson(p2, n, z)
	A := fa*fd - fb*fc
	den := (fa + fb) * (fc + fd) * (fa + fc) * (fb + fd)
	var psi float64
	switch {
	case den == 0:
	case A > n/2:
		psi = (A - n/2) / math.Sqrt(den)
	case A >= 0:
	default:
		psi = A / math.Sqrt(den)
	}
	diff := p1 - p2
	dl1, du2 := p1-l1, u2-p2
	dl2, du1 := p2-l2, u1-p1
	lo = diff - math.Sqrt(math.Max(0, dl1*dl1+du2*du2-2*psi*dl1*du2))
	hi = diff + math.Sqrt(math.Max(0, dl2*dl2+du1*du1-2*psi*dl2*du1))
	return lo, hi
}

// PairedWaldCI returns the Wald interval (b−c)/N ± z·SE with
// SE = √((b+c) − (b−c)²/N)/N for the paired table of NewcombePaired.
func PairedWaldCI(a, b, c, d int, level float64) (lo, hi float64) {
	diff, se := pairedWald(a, b, c, d)
	z := ZLevel(level)
	return diff - z*se, diff + z*se
}

func pairedWald(a, b, c, d int) (diff, se float64) {
	if a < 0 || b < 0 || c < 0 || d < 0 {
		panic("stats: negative cell count")
	}
	n := float64(a + b + c + d)
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	fb, fc := float64(b), float64(c)
	diff = (fb - fc) / n
	return diff, math.Sqrt(math.Max(0, (fb+fc)-(fb-fc)*(fb-fc)/n)) / n
}

// TOSTPaired tests equivalence of paired proportions within ±margin with
// the Wald statistic of the paired difference Δ̂ = p̂₁ − p̂₂ = (b − c)/N,
// SE = √((b+c) − (b−c)²/N)/N (table as NewcombePaired: a both succeed,
// b only the first, c only the second, d neither). Lo90/Hi90 is the Wald
// 90% interval and NewcombeLo/Hi the square-and-add 90% interval
// (Fagerland, Lydersen & Laake 2014, Stat Med 33:2850–2875 recommend the
// latter for reporting). N = 0 gives NaN fields. With no discordant pairs
// the Wald SE is 0 and the test declares equivalence whenever Δ̂ = 0;
// report the Newcombe interval alongside.
func TOSTPaired(a, b, c, d int, margin float64) TOSTResult {
	checkMargin(margin)
	diff, se := pairedWald(a, b, c, d)
	if math.IsNaN(diff) {
		return nanTOST("paired-wald")
	}
	r := TOSTResult{Method: "paired-wald", Diff: diff}
	r.PLower, r.PUpper = tostWald(diff, se, margin)
	z := ZLevel(1 - 2*TOSTAlpha)
	r.Lo90, r.Hi90 = WaldInterval(diff, se, z)
	r.NewcombeLo, r.NewcombeHi = NewcombePaired(a, b, c, d, 1-2*TOSTAlpha)
	r.finish(margin)
	return r
}
