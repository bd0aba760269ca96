package analysis

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/stats"
)

// fitted is what the estimators built on a model (contrasts, the
// bootstrap) read of a fit: the frame and design it was fitted on, the
// coefficients and their covariance. Model keeps it in
// ModelResult.fit (fitted.keep), one line per fitting path.
type fitted struct {
	formula *formula.Formula
	frame   *frame.Frame
	design  *formula.Design
	beta    []float64
	cov     *mat.SymDense
}

// keep records the fit of res on the frame fr with design d.
func (res *ModelResult) keep(f *formula.Formula, fr *frame.Frame, d *formula.Design, beta []float64, cov *mat.SymDense) {
	res.fit = &fitted{formula: f, frame: fr, design: d, beta: beta, cov: cov}
}

// family returns the fit's family and link (the logistic models of before
// families are binomial logit).
func (res *ModelResult) familyLink() (stats.Family, stats.Link) {
	if res.Fit == "" {
		return stats.Binomial, stats.LinkLogit
	}
	return res.Family, res.Link
}

// fitKind is the fit of res: glm, gee or glmm, for the legacy models too.
func (res *ModelResult) fitKind() ModelFit {
	if res.Fit != "" {
		return res.Fit
	}
	switch res.Spec.Family {
	case FamilyGEE:
		return FitGEE
	case FamilyGLMM:
		return FitGLMM
	}
	return FitGLM
}

// rowWeights are the frame rows' weights in an average over episodes:
// each row's episodes (N), or with a weight column their summed weight.
func (m *fitted) rowWeights() []float64 {
	w := make([]float64, m.frame.Len())
	for i, c := range m.frame.Cells {
		if m.frame.HasWeight {
			w[i] = c.SumW
		} else {
			w[i] = float64(c.N)
		}
	}
	return w
}

// randomTerm is one random term of a fitted GLMM: the formula's term and
// the covariance of its coefficients (in the order of its RandomDesign).
type randomTerm struct {
	term formula.RandomTerm
	cov  *mat.SymDense
}

// randomTerms pairs the formula's random terms with their fitted
// covariances, read from res.Random: each term's coefficients are
// consecutive there, the first of each with no correlations.
func (res *ModelResult) randomTerms() ([]randomTerm, error) {
	f := res.fit.formula
	var out []randomTerm
	i := 0
	for _, r := range f.Random {
		start := i
		i++
		for i < len(res.Random) && len(res.Random[i].Corr) > 0 {
			i++
		}
		if start >= len(res.Random) {
			return nil, fmt.Errorf("the fit has no variance for the random term %s", r)
		}
		re := res.Random[start:i]
		c := len(re)
		cov := mat.NewSymDense(c, nil)
		for j := range c {
			cov.SetSym(j, j, re[j].SD*re[j].SD)
			for k, rho := range re[j].Corr {
				if !math.IsNaN(rho) {
					cov.SetSym(j, k, rho*re[j].SD*re[k].SD)
				}
			}
		}
		out = append(out, randomTerm{term: r, cov: cov})
	}
	if i != len(res.Random) {
		return nil, fmt.Errorf("the fit's random effects do not match the formula's terms %s", randomTerms(f))
	}
	return out, nil
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
