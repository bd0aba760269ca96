package stats

import (
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestDesignGram checks both Gram paths (sparse rows and dense transposed
// blocks) against XᵀWX computed with gonum's mat.
func TestDesignGram(t *testing.T) {
	d := benchData()
	for _, x := range []*mat.Dense{d.factors.Slice(0, 1500, 0, 21).(*mat.Dense), d.numeric.Slice(0, 1500, 0, 21).(*mat.Dense)} {
		n, p := x.Dims()
		w := make([]float64, n)
		z := make([]float64, n)
		for i := range w {
			w[i] = float64(i%7) / 3 // includes zero weights
			z[i] = float64(i%5) - 2
		}
		des := newDesign(x)
		g := mat.NewSymDense(p, nil)
		rhs := make([]float64, p)
		des.gram(0, n, w, z, g, rhs)
		var wx mat.Dense
		wx.Apply(func(i, j int, v float64) float64 { return w[i] * v }, x)
		var want mat.Dense
		want.Mul(x.T(), &wx)
		var wantR mat.VecDense
		wantR.MulVec(wx.T(), mat.NewVecDense(n, z))
		for j := range p {
			for k := j; k < p; k++ {
				check(t, "gram", g.At(j, k), want.At(j, k), 1e-12)
			}
			check(t, "rhs", rhs[j], wantR.AtVec(j), 1e-12)
		}
	}
	if !newDesign(d.factors).sparse || newDesign(d.numeric).sparse {
		t.Error("sparsity detection: factors should be sparse, numeric dense")
	}
}

func BenchmarkGram(b *testing.B) {
	d := benchData()
	w := make([]float64, benchN)
	for i := range w {
		w[i] = 0.2
	}
	g := mat.NewSymDense(21, nil)
	dn, df := newDesign(d.numeric), newDesign(d.factors)
	b.Run("numeric", func(b *testing.B) {
		for b.Loop() {
			dn.gram(0, benchN, w, nil, g, nil)
		}
	})
	b.Run("factors", func(b *testing.B) {
		for b.Loop() {
			df.gram(0, benchN, w, nil, g, nil)
		}
	})
}
