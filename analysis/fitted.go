package analysis

import (
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
)

// rowWeights are the frame rows' weights in an average over episodes:
// each row's episodes (N), or with a weight column their summed weight.
func (m *FittedModel) rowWeights() []float64 {
	w := make([]float64, m.Frame.Len())
	for i, c := range m.Frame.Cells {
		if m.Weighted {
			w[i] = c.SumW
		} else {
			w[i] = float64(c.N)
		}
	}
	return w
}

// stack returns a frame of len(blocks)+1 copies of fr's rows: the rows
// themselves, then for each block the rows with column col set to that
// level code. A design built on it has the columns of fr's design (the
// first copy holds every level and combination fr does) and perhaps
// more: combinations that only a counterfactual row reaches.
func stack(fr *frame.Frame, col string, blocks []int32) *frame.Frame {
	n := fr.Len()
	k := len(blocks) + 1
	out := &frame.Frame{Rows: fr.Rows * int64(k), HasOutcome: fr.HasOutcome, HasWeight: fr.HasWeight}
	out.Cells = make([]frame.Cell, 0, n*k)
	for range k {
		out.Cells = append(out.Cells, fr.Cells...)
	}
	for _, c := range fr.Cols {
		nc := *c
		nc.Codes = make([]int32, 0, n*k)
		nc.Codes = append(nc.Codes, c.Codes...)
		for _, b := range blocks {
			if c.Name == col {
				nc.Codes = append(nc.Codes, slices.Repeat([]int32{b}, n)...)
			} else {
				nc.Codes = append(nc.Codes, c.Codes...)
			}
		}
		out.Cols = append(out.Cols, &nc)
	}
	return out
}

// blockDesigns splits a design built on stack(fr, …) into the
// counterfactual blocks' matrices with the columns names (the fitted
// design's, in its order). It returns the names of stacked columns the
// fit does not have that some counterfactual row reaches: their
// coefficients are taken as 0.
func blockDesigns(sd *formula.Design, names []string, n, blocks int) ([]*mat.Dense, []string) {
	idx := make([]int, len(names))
	for j, name := range names {
		idx[j] = slices.Index(sd.Names, name)
	}
	var unseen []string
	for j, name := range sd.Names {
		if slices.Contains(names, name) {
			continue
		}
		for i := n; i < n*(blocks+1); i++ {
			if sd.X.At(i, j) != 0 {
				unseen = append(unseen, name)
				break
			}
		}
	}
	out := make([]*mat.Dense, blocks)
	for b := range blocks {
		x := mat.NewDense(n, len(names), nil)
		for i := range n {
			src := sd.X.RawRowView((b+1)*n + i)
			dst := x.RawRowView(i)
			for j, s := range idx {
				if s >= 0 {
					dst[j] = src[s]
				}
			}
		}
		out[b] = x
	}
	return out, unseen
}
