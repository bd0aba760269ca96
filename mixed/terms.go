package mixed

import (
	"fmt"
	"math"
	"slices"

	"github.com/limbo-toolkit/limbo/stats"
)

// reTerm is a Term in internal form.
type reTerm struct {
	idx    int // position in Spec.Terms
	name   string
	nc     int
	diag   bool
	lev    []int
	z      [][]float64 // nc columns; nil column = ones
	nlev   int
	off    int // offset of the term's u in the full u vector
	thOff  int // offset of the term's θ in the full θ vector
	ntheta int
}

// zAt is the value of column j at row i.
func (t *reTerm) zAt(j, i int) float64 {
	if t.z == nil || t.z[j] == nil {
		return 1
	}
	return t.z[j][i]
}

// lambda fills the nc×nc row-major lower-triangular Λ of the term from its
// θ (lower triangle by columns, lme4's order; diagonal only when diag).
func (t *reTerm) lambda(theta []float64, dst []float64) {
	clear(dst[:t.nc*t.nc])
	th := theta[t.thOff : t.thOff+t.ntheta]
	k := 0
	for j := 0; j < t.nc; j++ {
		if t.diag {
			dst[j*t.nc+j] = th[k]
			k++
			continue
		}
		for i := j; i < t.nc; i++ {
			dst[i*t.nc+j] = th[k]
			k++
		}
	}
}

// isDiagTheta reports whether θ element k of the term is a diagonal
// element of Λ (lme4's lower bound 0).
func (t *reTerm) isDiagTheta(k int) bool {
	if t.diag {
		return true
	}
	for j := 0; j < t.nc; j++ {
		if k == 0 {
			return true
		}
		k -= t.nc - j
		if k < 0 {
			return false
		}
	}
	return false
}

// layout is the ordering of the random effects for the block solver: the
// term with the most random effects first (block diagonal), the others in
// the caller's order (dense), then the p fixed effects.
type layout struct {
	terms []*reTerm // terms[0] is the block-diagonal one
	q     int       // Σ nlev·nc
	q0    int       // levels of terms[0]
	b     int       // block size, terms[0].nc
	r     int       // dense random effects: q − q0·b
	p     int
	nth   int // length of θ
	// Per level of terms[0], the sorted dense columns (random effects of
	// other terms at offsets 0..r−1, then fixed effects r..r+p−1) that
	// share a row with it.
	pat [][]int32
	// rowsByLev lists the rows of each level of terms[0].
	rowsByLev [][]int32
}

// newLayout orders the terms and finds the sparsity pattern.
func newLayout(spec *Spec, p int) (*layout, error) {
	n := len(spec.Y)
	ts := make([]*reTerm, len(spec.Terms))
	nth := 0
	for k := range spec.Terms {
		st := &spec.Terms[k]
		t := &reTerm{idx: k, name: st.Name, nc: st.nc(), diag: st.Diagonal, lev: st.Group, z: st.Z, nlev: st.Levels}
		if t.diag || t.nc == 1 {
			t.diag = t.nc == 1 || t.diag
			t.ntheta = t.nc
		} else {
			t.ntheta = t.nc * (t.nc + 1) / 2
		}
		t.thOff = nth
		nth += t.ntheta
		ts[k] = t
	}
	order := slices.Clone(ts)
	slices.SortStableFunc(order, func(a, b *reTerm) int { return b.nlev*b.nc - a.nlev*a.nc })
	L := &layout{terms: order, p: p, nth: nth}
	L.q0, L.b = order[0].nlev, order[0].nc
	off := 0
	for _, t := range order {
		t.off = off
		off += t.nlev * t.nc
	}
	L.q = off
	L.r = L.q - L.q0*L.b
	// Dense offsets of the other terms start at 0.
	for _, t := range order[1:] {
		t.off -= L.q0 * L.b
	}
	L.rowsByLev = make([][]int32, L.q0)
	cnt := make([]int32, L.q0)
	for _, l := range order[0].lev {
		cnt[l]++
	}
	for l := range L.rowsByLev {
		L.rowsByLev[l] = make([]int32, 0, cnt[l])
	}
	for i, l := range order[0].lev {
		L.rowsByLev[l] = append(L.rowsByLev[l], int32(i))
	}
	mark := make([]int, L.r+p)
	for i := range mark {
		mark[i] = -1
	}
	L.pat = make([][]int32, L.q0)
	var cols []int32
	for l, rows := range L.rowsByLev {
		cols = cols[:0]
		for _, i := range rows {
			for _, t := range order[1:] {
				base := t.off + t.lev[i]*t.nc
				if mark[base] != l {
					for j := 0; j < t.nc; j++ {
						mark[base+j] = l
						cols = append(cols, int32(base+j))
					}
				}
			}
		}
		if len(rows) > 0 {
			for j := 0; j < p; j++ {
				cols = append(cols, int32(L.r+j))
			}
		}
		slices.Sort(cols)
		L.pat[l] = slices.Clone(cols)
	}
	_ = n
	return L, nil
}

// levelCounts returns how many of the levels 0..levels-1 the rows' level
// indices group sample (used) and how many of those hold one row only
// (single).
func levelCounts(group []int, levels int) (used, single int) {
	cnt := make([]int, levels)
	for _, l := range group {
		cnt[l]++
	}
	for _, c := range cnt {
		if c > 0 {
			used++
		}
		if c == 1 {
			single++
		}
	}
	return used, single
}

// reCount refuses a term with more random effects (q, its sampled levels
// times its coefficients) than rows, as lme4's check.nobs.vs.nRE does:
// for a Gaussian model q must stay below n, since with q = n the term's
// variance and the residual variance explain the same deviations; for
// the other families, whose scale is fixed, q = n is an observation-level
// random effect (overdispersion), which lme4's glmer fits.
func reCount(name string, q, n int, f stats.Family) error {
	switch {
	case f == stats.Gaussian && q >= n:
		return fmt.Errorf("mixed: term %q has %d random effects for %d rows; its variance is not identifiable from the residual variance", name, q, n)
	case q > n:
		return fmt.Errorf("mixed: term %q has %d random effects for %d rows; they are not identifiable (one per row at most)", name, q, n)
	}
	return nil
}

// obsLevel is the warning about an observation-level random effect (one
// row per level) of a binary response, whose variance is confounded with
// the scale of the fixed effects: P(y = 1) = E[F(η + σu)] depends on
// (β, σ) nearly through β/√(1 + cσ²) alone (exactly so for probit), so
// the Laplace fit's σ says little. Counts and cbind proportions carry the
// overdispersion such a term models, and get no warning.
func obsLevel(name string, binary bool) []Warning {
	if !binary {
		return nil
	}
	return []Warning{{Code: WarnObsLevel, Term: name, Message: fmt.Sprintf("grouping factor %q has one row per level and the response is binary (0/1): an observation-level variance is barely identified from binary data; drop the term, or aggregate the rows into cbind counts", name)}}
}

// bernoulli reports whether every row is a single trial.
func bernoulli(trials []float64) bool {
	for _, m := range trials {
		if m != 1 {
			return false
		}
	}
	return true
}

// levelCheck returns the sampled levels of each term (in Spec order) and
// the data errors and warnings about them.
func levelCheck(spec *Spec, n int) ([]int, []Warning, error) {
	nlev := make([]int, len(spec.Terms))
	var warns []Warning
	for k, t := range spec.Terms {
		used, single := levelCounts(t.Group, t.Levels)
		nlev[k] = used
		if used < 2 {
			return nil, nil, fmt.Errorf("mixed: grouping factor %q has %d sampled level(s); need at least 2", t.Name, used)
		}
		if err := reCount(t.Name, used*t.nc(), n, spec.Family); err != nil {
			return nil, nil, err
		}
		if single == used {
			warns = append(warns, obsLevel(t.Name, spec.Family == stats.Binomial && bernoulli(spec.Trials))...)
		} else if single > 0 {
			warns = append(warns, Warning{Code: WarnSingleObs, Term: t.Name,
				Message: fmt.Sprintf("grouping factor %q: %d of %d levels have a single observation; their random effects are shrunk strongly, check the grouping", t.Name, single, used)})
		}
		// A slope column constant within every level is confounded with
		// the intercept (or, with no intercept, not a slope at all).
		for j, z := range t.Z {
			if z == nil {
				continue
			}
			first := make([]float64, t.Levels)
			seen := make([]bool, t.Levels)
			constant := true
			for i, v := range z {
				l := t.Group[i]
				if !seen[l] {
					seen[l], first[l] = true, v
				} else if v != first[l] {
					constant = false
					break
				}
			}
			hasInt := slices.ContainsFunc(t.Z, func(c []float64) bool { return c == nil })
			if constant && hasInt {
				return nil, nil, fmt.Errorf("mixed: term %q: column %q is constant within every level of %q, so its random slope is confounded with the random intercept; drop it from the term", t.Name, t.coefName(j), t.Name)
			}
		}
	}
	return nlev, warns, nil
}

// rankCheck returns an error when X is rank deficient.
func rankCheck(xcols [][]float64, n, p int) error {
	if p == 0 {
		return nil
	}
	if n < p {
		return fmt.Errorf("mixed: fixed-effects matrix has %d columns for %d rows", p, n)
	}
	// Cholesky of XᵀX with pivot-free tolerance on the scaled diagonal.
	g := make([]float64, p*p)
	for a := 0; a < p; a++ {
		for b := 0; b <= a; b++ {
			var s float64
			xa, xb := xcols[a], xcols[b]
			for i := range xa {
				s += xa[i] * xb[i]
			}
			g[a*p+b] = s
		}
	}
	scale := make([]float64, p)
	for a := 0; a < p; a++ {
		scale[a] = math.Sqrt(g[a*p+a])
		if scale[a] == 0 {
			return fmt.Errorf("mixed: fixed-effects matrix is rank deficient (column %d is zero)", a)
		}
	}
	for a := 0; a < p; a++ {
		for b := 0; b <= a; b++ {
			g[a*p+b] /= scale[a] * scale[b]
		}
	}
	for j := 0; j < p; j++ {
		s := g[j*p+j]
		for k := 0; k < j; k++ {
			s -= g[j*p+k] * g[j*p+k]
		}
		if s <= 1e-10 {
			return fmt.Errorf("mixed: fixed-effects matrix is rank deficient (column %d)", j)
		}
		d := math.Sqrt(s)
		g[j*p+j] = d
		for i := j + 1; i < p; i++ {
			t := g[i*p+j]
			for k := 0; k < j; k++ {
				t -= g[i*p+k] * g[j*p+k]
			}
			g[i*p+j] = t / d
		}
	}
	return nil
}
