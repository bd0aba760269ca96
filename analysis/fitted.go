package analysis

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/stats"
)

// FittedModel is a fitted GLM, GEE or GLMM as the estimators built on a
// model (contrasts, the bootstrap) read it: the rows it was fitted on,
// their design, the coefficients and their covariance. Model leaves it in
// ModelResult.Fitted.
type FittedModel struct {
	Formula *formula.Formula
	// Frame holds the fitted rows' columns: one row per episode, or per
	// covariate pattern (a GLM of a binary outcome: its Cells count the
	// episodes and events, weighted when Weighted) or per (cluster,
	// pattern) cell (a GEE of a binary outcome).
	Frame    *frame.Frame
	Weighted bool // Frame's cells carry a weight column's sums
	// Design is the fixed-effects design over Frame's rows (formula.Build
	// with Refs); Offset the offsets per row (nil: none).
	Design *formula.Design
	Refs   map[string]string
	Offset []float64
	// Coef are β in the order of Design.Names, as the fitter left them;
	// Cov their covariance, the one the fit's SEs are: a GLM's inverse
	// information, a GEE's sandwich (Spec.Cov), a GLMM's (package mixed).
	Coef   []float64
	Cov    *mat.SymDense
	Fit    ModelFit
	Family stats.Family
	Link   stats.Link
	Group  string // a GEE's cluster column
	// Terms are a GLMM's random terms, in the formula's order.
	Terms []RandomTerm
}

// RandomTerm is one random term of a fitted GLMM: its grouping factor,
// the names of its coefficients ((Intercept), a slope's column) and
// their covariance matrix (σ²ΛΛᵀ for a Gaussian model, ΛΛᵀ otherwise).
type RandomTerm struct {
	Group string
	Coef  []string
	Cov   *mat.SymDense
}

// keep records in res.Fitted the fit of res on the frame fr with design
// d; a GLMM's random terms are read from res.Random, so a GLMM's fit is
// kept once they are set.
func (res *ModelResult) keep(f *formula.Formula, fr *frame.Frame, d *formula.Design, beta []float64, cov *mat.SymDense) {
	m := &FittedModel{Formula: f, Frame: fr, Weighted: fr.HasWeight, Design: d, Refs: res.Spec.Refs, Coef: beta, Cov: cov,
		Fit: res.Fit, Family: res.Family, Link: res.Link, Group: res.Spec.Group}
	if m.Fit == "" { // the logistic models of before families
		m.Family, m.Link = stats.Binomial, stats.LinkLogit
		switch res.Spec.Family {
		case FamilyGEE:
			m.Fit = FitGEE
		case FamilyGLMM:
			m.Fit = FitGLMM
		default:
			m.Fit = FitGLM
		}
	}
	m.Offset, _ = formula.Offset(f, fr) // the fit evaluated them already
	// Each term's coefficients are consecutive in res.Random, the first
	// of each with no correlations.
	for i := 0; i < len(res.Random); {
		j := i + 1
		for j < len(res.Random) && len(res.Random[j].Corr) > 0 {
			j++
		}
		re := res.Random[i:j]
		t := RandomTerm{Group: re[0].Group, Cov: mat.NewSymDense(len(re), nil)}
		for a, x := range re {
			t.Coef = append(t.Coef, cmp.Or(x.Effect, "(Intercept)"))
			t.Cov.SetSym(a, a, x.SD*x.SD)
			for b, rho := range x.Corr {
				if !math.IsNaN(rho) {
					t.Cov.SetSym(a, b, rho*x.SD*re[b].SD)
				}
			}
		}
		m.Terms = append(m.Terms, t)
		i = j
	}
	res.Fitted = m
}

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
