package mixed

import "math"

// bsys is the symmetric positive definite system of the random effects
// (and, when rd includes them, the fixed effects) in the block form of
// layout:
//
//	[ D  C ]   D = diag(D₀, …, D_{q0−1}), b×b blocks
//	[ Cᵀ A ]   A dense rd×rd; C sparse by the layout's pattern
//
// factor computes M = LLᵀ with L = [L_D 0; C̃ᵀ L_S], C̃ = L_D⁻¹C and
// L_S L_Sᵀ = A − C̃ᵀC̃.
type bsys struct {
	L      *layout
	b, q0  int
	stride int // r + p, the stride of a and s
	rd     int // dense size in use: r (u only) or r + p (joint)
	d      []float64
	c      [][]float64 // per level: b rows × len(pat) columns
	a      []float64   // lower triangle used
	ld     []float64   // Cholesky factors of the D blocks
	ct     [][]float64 // C̃ per level
	s      []float64   // Cholesky factor of the Schur complement
	ncol   []int       // per level: pattern columns below rd
}

func newBsys(L *layout) *bsys {
	b := L.b
	st := L.r + L.p
	s := &bsys{L: L, b: b, q0: L.q0, stride: st,
		d: make([]float64, L.q0*b*b), ld: make([]float64, L.q0*b*b),
		c: make([][]float64, L.q0), ct: make([][]float64, L.q0),
		a: make([]float64, st*st), s: make([]float64, st*st), ncol: make([]int, L.q0)}
	for l, pat := range L.pat {
		s.c[l] = make([]float64, b*len(pat))
		s.ct[l] = make([]float64, b*len(pat))
	}
	return s
}

// setRD selects the dense size: r for u only, r + p joint.
func (s *bsys) setRD(rd int) {
	s.rd = rd
	for l, pat := range s.L.pat {
		k := len(pat)
		for k > 0 && int(pat[k-1]) >= rd {
			k--
		}
		s.ncol[l] = k
	}
}

// reset zeroes the system for accumulation.
func (s *bsys) reset() {
	clear(s.d)
	for _, c := range s.c {
		clear(c)
	}
	clear(s.a)
}

// factor factorises the system; false when it is not numerically positive
// definite.
func (s *bsys) factor() bool {
	b, rd, st := s.b, s.rd, s.stride
	for i := 0; i < rd; i++ {
		copy(s.s[i*st:i*st+i+1], s.a[i*st:i*st+i+1])
	}
	for l := 0; l < s.q0; l++ {
		ld := s.ld[l*b*b : (l+1)*b*b]
		copy(ld, s.d[l*b*b:(l+1)*b*b])
		if !cholStride(ld, b, b) {
			return false
		}
		nc := s.ncol[l]
		if nc == 0 {
			continue
		}
		w := len(s.L.pat[l])
		c, ct := s.c[l], s.ct[l]
		// C̃ = L⁻¹C, column by column (rows of c are the b block rows).
		for r := 0; r < b; r++ {
			for k := 0; k < nc; k++ {
				t := c[r*w+k]
				for m := 0; m < r; m++ {
					t -= ld[r*b+m] * ct[m*w+k]
				}
				ct[r*w+k] = t / ld[r*b+r]
			}
		}
		pat := s.L.pat[l]
		for i := 0; i < nc; i++ {
			row := s.s[int(pat[i])*st:]
			for k := 0; k <= i; k++ {
				var t float64
				for r := 0; r < b; r++ {
					t += ct[r*w+i] * ct[r*w+k]
				}
				row[pat[k]] -= t
			}
		}
	}
	return cholStride(s.s, rd, st)
}

// cholStride overwrites the lower triangle of the n×n matrix a (row
// stride st) with its Cholesky factor.
func cholStride(a []float64, n, st int) bool {
	for j := 0; j < n; j++ {
		rj := a[j*st : j*st+j+1]
		s := rj[j]
		for _, v := range rj[:j] {
			s -= v * v
		}
		if !(s > 0) {
			return false
		}
		ljj := math.Sqrt(s)
		rj[j] = ljj
		for i := j + 1; i < n; i++ {
			ri := a[i*st : i*st+j+1]
			t := ri[j]
			for k, v := range rj[:j] {
				t -= ri[k] * v
			}
			ri[j] = t / ljj
		}
	}
	return true
}

// forward overwrites g (length q0·b + rd) with L⁻¹g.
func (s *bsys) forward(g []float64) {
	b, st := s.b, s.stride
	n1 := s.q0 * b
	g2 := g[n1:]
	for l := 0; l < s.q0; l++ {
		ld := s.ld[l*b*b:]
		z := g[l*b : (l+1)*b]
		for r := 0; r < b; r++ {
			t := z[r]
			for m := 0; m < r; m++ {
				t -= ld[r*b+m] * z[m]
			}
			z[r] = t / ld[r*b+r]
		}
		nc := s.ncol[l]
		if nc == 0 {
			continue
		}
		w := len(s.L.pat[l])
		ct, pat := s.ct[l], s.L.pat[l]
		for r := 0; r < b; r++ {
			zr := z[r]
			if zr == 0 {
				continue
			}
			for k := 0; k < nc; k++ {
				g2[pat[k]] -= ct[r*w+k] * zr
			}
		}
	}
	for i := 0; i < s.rd; i++ {
		t := g2[i]
		row := s.s[i*st : i*st+i]
		for k, v := range row {
			t -= v * g2[k]
		}
		g2[i] = t / s.s[i*st+i]
	}
}

// backward overwrites z with L⁻ᵀz, completing a solve after forward.
func (s *bsys) backward(z []float64) {
	b, st := s.b, s.stride
	n1 := s.q0 * b
	z2 := z[n1:]
	for i := s.rd - 1; i >= 0; i-- {
		t := z2[i] / s.s[i*st+i]
		z2[i] = t
		if t == 0 {
			continue
		}
		row := s.s[i*st : i*st+i]
		for k, v := range row {
			z2[k] -= v * t
		}
	}
	for l := 0; l < s.q0; l++ {
		ld := s.ld[l*b*b:]
		x := z[l*b : (l+1)*b]
		nc := s.ncol[l]
		if nc > 0 {
			w := len(s.L.pat[l])
			ct, pat := s.ct[l], s.L.pat[l]
			for r := 0; r < b; r++ {
				t := x[r]
				for k := 0; k < nc; k++ {
					t -= ct[r*w+k] * z2[pat[k]]
				}
				x[r] = t
			}
		}
		for r := b - 1; r >= 0; r-- {
			t := x[r]
			for m := r + 1; m < b; m++ {
				t -= ld[m*b+r] * x[m]
			}
			x[r] = t / ld[r*b+r]
		}
	}
}

// logDetBlocks is log det of the block-diagonal part, Σ log|D_l|.
func (s *bsys) logDetBlocks() float64 {
	var t float64
	b := s.b
	for l := 0; l < s.q0; l++ {
		for r := 0; r < b; r++ {
			t += math.Log(s.ld[l*b*b+r*b+r])
		}
	}
	return 2 * t
}

// logDetDense is log det of the Schur complement's rows from..to−1, given
// the rows before.
func (s *bsys) logDetDense(from, to int) float64 {
	var t float64
	for i := from; i < to; i++ {
		t += math.Log(s.s[i*s.stride+i])
	}
	return 2 * t
}
