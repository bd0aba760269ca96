package analysis

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mixed"
	"github.com/limbo-toolkit/limbo/stats"
)

// geeCollapseLimit is the share of distinct (cluster, covariate pattern)
// cells among the first frame.CollapseProbe rows above which GEE stops
// merging rows: collapsing pays when cells ≪ rows (factor-only designs,
// low-cardinality numbers), and stats.GEECollapsed is exact either way.
const geeCollapseLimit = 0.5

// fitModel fits a resolved spec (see Model): the one fitting path of
// every model, whatever named it.
func fitModel(q Query, spec ModelSpec, f *formula.Formula) (*ModelResult, error) {
	var warn warnings
	res := newModelResult(spec, f)
	var err error
	switch spec.Fit {
	case FitGLM:
		err = q.fitGLM(spec, f, res, &warn)
	case FitGEE:
		err = q.fitGEE(spec, f, res, &warn)
	case FitGLMM:
		err = q.fitGLMM(spec, f, res, &warn)
	}
	if err != nil {
		return nil, err
	}
	res.Warnings = warn.items()
	return res, nil
}

// fitGLM fits a GLM: a binomial logit model of a binary outcome by
// stats.Logistic on covariate patterns (weighted by q.Weight), any other
// by stats.GLM.
func (q *Query) fitGLM(spec ModelSpec, f *formula.Formula, res *ModelResult, warn *warnings) error {
	fam := spec.Family
	if fam == stats.Binomial && f.Cbind == nil && spec.Link == stats.LinkLogit && len(f.Offsets) == 0 {
		fr, d, err := q.modelDesign(f, nil, q.Weight, true, 0, spec.Refs, warn)
		if err != nil {
			return err
		}
		r, err := stats.Logistic(d.X, fr.Y(), fr.W(), stats.LogisticOptions{Firth: spec.Firth, Names: d.Names})
		if err != nil {
			return fitError(err)
		}
		warn.addStats(r.Warnings)
		res.Converged = r.Converged
		res.Coefficients = logitCoefs(r, d, fr, spec.Firth, warn)
		res.LogLik, res.Deviance, res.NObs = r.LogLik, r.Deviance, r.SumW
		res.NullDeviance = -2 * r.NullLogLik
		k := float64(len(d.Names))
		res.AIC, res.BIC, res.DFResidual, res.Dispersion = -2*r.LogLik+2*k, -2*r.LogLik+k*math.Log(r.SumW), r.SumW-k, 1
		res.N = fr.Rows
		res.Fitted = newFitted(spec, f, fr, d, nil, r.Coef, r.Cov)
		res.Fitted.Weighted = fr.HasWeight
		return nil
	}
	fr, d, y, w, trials, off, err := q.familyData(f, spec, fam, nil, true, warn)
	if err != nil {
		return err
	}
	r, err := stats.GLM(d.X, y, stats.GLMOptions{Family: fam, Link: spec.Link, Weights: w, Trials: trials, Offset: off, Names: d.Names})
	if err != nil {
		return fitError(err)
	}
	warn.addStats(r.Warnings)
	res.Converged = r.Converged
	res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
	if !fam.FixedScale() {
		res.Stat = "t"
		res.ResidualSD = r.ResidualSD
	}
	res.Dispersion, res.Deviance, res.NullDeviance, res.LogLik, res.AIC, res.BIC = r.Dispersion, r.Deviance, r.NullDeviance, r.LogLik, r.AIC, r.BIC
	res.NObs, res.DFResidual = r.NObs, r.DFResidual
	res.N = fr.Rows
	res.Fitted = newFitted(spec, f, fr, d, off, r.Coef, r.Cov)
	return nil
}

// fitGEE fits a GEE: a binomial logit model of a binary outcome with an
// exchangeable or independence working correlation on (cluster, pattern)
// cells (stats.GEECollapsed), any other by stats.GEEGLM.
func (q *Query) fitGEE(spec ModelSpec, f *formula.Formula, res *ModelResult, warn *warnings) error {
	fam := spec.Family
	if fam == stats.Binomial && f.Cbind == nil && spec.Link == stats.LinkLogit && len(f.Offsets) == 0 && spec.Corr != stats.AR1 {
		r, d, fr, err := q.geeCollapsed(f, spec, warn)
		if err != nil {
			return err
		}
		res.Converged = r.Converged
		res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
		res.Alpha, res.Clusters, res.Dispersion, res.N = r.Alpha, r.NClusters, r.Scale, fr.Rows
		res.Fitted = newFitted(spec, f, fr, d, nil, r.Coef, r.Cov)
		return nil
	}
	extra := []string{spec.Group}
	if spec.Order != "" {
		extra = append(extra, spec.Order)
	}
	fr, d, y, w, _, off, err := q.familyData(f, spec, fam, extra, false, warn)
	if err != nil {
		return err
	}
	cluster, wave, err := clustersOf(fr, spec)
	if err != nil {
		return err
	}
	r, err := stats.GEEGLM(d.X, y, cluster, wave, stats.GEEOptions{Family: fam, Link: spec.Link, Weights: w, Offset: off,
		Corr: spec.Corr, Cov: spec.Cov, Convention: spec.Convention, Names: d.Names})
	if err != nil {
		return fitError(err)
	}
	warn.addStats(r.Warnings)
	if r.NClusters < 40 && spec.Cov == stats.Robust {
		warn.addField(WarnFewClusters, "Cov", "only %d clusters: the robust sandwich is biased downwards; consider {Cov} bias-reduced or kc", r.NClusters)
	}
	res.Converged = r.Converged
	res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
	res.Alpha, res.Clusters, res.Dispersion, res.N = r.Alpha, r.NClusters, r.Scale, fr.Rows
	if fam == stats.Gaussian {
		res.ResidualSD = math.Sqrt(r.Scale)
	}
	res.Fitted = newFitted(spec, f, fr, d, off, r.Coef, r.Cov)
	return nil
}

// newFitted is the FittedModel of a fit over the frame fr and design d.
func newFitted(spec ModelSpec, f *formula.Formula, fr *frame.Frame, d *formula.Design, off, coef []float64, cov *mat.SymDense) *FittedModel {
	return &FittedModel{Formula: f, Frame: fr, Design: d, Refs: spec.Refs, Offset: off, Coef: coef, Cov: cov,
		Fit: spec.Fit, Family: spec.Family, Link: spec.Link, Group: spec.Group}
}

// logitCoefs are the coefficients of a logistic fit, the separated terms'
// as NaN with a warning (unless Firth).
func logitCoefs(r *stats.LogisticResult, d *formula.Design, fr *frame.Frame, firth bool, warn *warnings) []Coef {
	out := coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
	if r.Separation && !firth {
		var terms []string
		for _, j := range r.SeparatedTerms {
			terms = append(terms, d.Names[j])
			out[j] = Coef{Term: d.Names[j], Estimate: nan, SE: nan, Z: nan, P: nan, OR: nan, ORLo: nan, ORHi: nan}
		}
		msg := "estimates of the separated terms " + strings.Join(terms, ", ") + " are reported as null"
		if sep := formula.Separated(d, fr); len(sep) > 0 {
			msg += "; levels with a constant outcome: " + strings.Join(sep, ", ")
		}
		warn.addField(WarnSeparation, "Firth", "%s; use {Firth} for finite estimates", msg)
	}
	return out
}

// geeCollapsed fits the binomial logit GEE on (cluster, pattern) cells.
func (q *Query) geeCollapsed(f *formula.Formula, spec ModelSpec, warn *warnings) (*stats.GEEResult, *formula.Design, *frame.Frame, error) {
	fr, d, err := q.modelDesign(f, []string{spec.Group}, "", true, geeCollapseLimit, spec.Refs, warn)
	if err != nil {
		return nil, nil, nil, err
	}
	g := fr.Col(spec.Group)
	cluster := make([]int, fr.Len())
	for i, c := range g.Codes {
		cluster[i] = int(c)
	}
	n, s := make([]float64, fr.Len()), make([]float64, fr.Len())
	for i, c := range fr.Cells {
		n[i], s[i] = float64(c.N), float64(c.Events)
	}
	r, err := stats.GEECollapsed(d.X, n, s, cluster, stats.GEEOptions{Corr: spec.Corr, Cov: spec.Cov, Convention: spec.Convention, Names: d.Names})
	if err != nil {
		return nil, nil, nil, fitError(err)
	}
	warn.addStats(r.Warnings)
	if r.NClusters < 40 && spec.Cov == "robust" {
		warn.addField(WarnFewClusters, "Cov", "only %d clusters: the robust sandwich is biased downwards; consider {Cov} bias-reduced or kc", r.NClusters)
	}
	return r, d, fr, nil
}

// clustersOf codes the cluster column of a GEE and, for ar1, each row's
// wave: the rank of its Order value among all values. Two rows of a
// cluster with the same Order value are an error naming the cluster.
func clustersOf(fr *frame.Frame, spec ModelSpec) (cluster, wave []int, err error) {
	g := fr.Col(spec.Group)
	cluster = make([]int, fr.Len())
	for i, c := range g.Codes {
		cluster[i] = int(c)
	}
	if spec.Order == "" {
		return cluster, nil, nil
	}
	o := fr.Col(spec.Order)
	wave = make([]int, fr.Len())
	seen := map[[2]int32]bool{}
	for i, c := range o.Codes {
		key := [2]int32{g.Codes[i], c}
		if seen[key] {
			return nil, nil, fmt.Errorf("order column %s: cluster %s = %s has two rows with %s = %s; the ar1 working correlation needs one row per value within a cluster", spec.Order, spec.Group, g.Level(i), spec.Order, o.Level(i))
		}
		seen[key] = true
		wave[i] = int(c)
	}
	return cluster, wave, nil
}

// familyData reads the frame of a model with families and builds its
// design, response, prior weights, binomial trials (cbind) and offsets.
// collapse merges identical rows (exact for GLMs: they become frequency
// weights); GEE keeps rows.
func (q *Query) familyData(f *formula.Formula, spec ModelSpec, fam stats.Family, extra []string, collapse bool, warn *warnings) (fr *frame.Frame, d *formula.Design, y, w, trials, off []float64, err error) {
	binary := fam == stats.Binomial && f.Cbind == nil
	cols := f.CovariateColumns()
	for _, c := range slices.Concat(extra, q.extra) {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	fs := frame.Spec{Collapse: collapse}
	if binary {
		fs.Outcome = f.Response
	} else {
		for _, c := range f.ResponseColumns() {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
		fs.Check = responseCheck(f, fam)
	}
	if len(f.Offsets) > 0 {
		prev := fs.Check
		fs.Check = func(r frame.Row) error {
			if prev != nil {
				if err := prev(r); err != nil {
					return err
				}
			}
			return offsetCheck(f, r)
		}
	}
	fs.Columns = cols
	fr, err = q.readFrame(fs, warn)
	if err != nil {
		return
	}
	if binary {
		if err = checkOutcome(fr, f.Response); err != nil {
			return
		}
	}
	if d, err = formula.Build(f, fr, formula.Options{Ref: spec.Refs}); err != nil {
		return
	}
	warn.add(WarnDroppedTerm, d.Warnings...)
	if off, err = formula.Offset(f, fr); err != nil {
		return
	}
	w = fr.W()
	switch {
	case binary:
		y = fr.Y()
	case f.Cbind != nil:
		var k []float64
		if k, trials, err = formula.Trials(f, fr); err != nil {
			return
		}
		y = make([]float64, len(k))
		for i := range k {
			if trials[i] > 0 {
				y[i] = k[i] / trials[i]
			}
			w[i] *= trials[i]
		}
	default:
		c := fr.Col(f.Response)
		y = make([]float64, fr.Len())
		for i := range y {
			y[i] = c.Value(i)
		}
	}
	return
}

// responseCheck validates a row's response for the family: a number
// (Gaussian), a count ≥ 0 (Poisson), or cbind counts ≥ 0 (binomial); the
// error is a ledger.Problem naming the column, which the reader places.
func responseCheck(f *formula.Formula, fam stats.Family) func(frame.Row) error {
	return func(r frame.Row) error {
		vals := map[string]float64{}
		for _, c := range f.ResponseColumns() {
			v, _ := r.Get(c)
			x, ok := frame.Number(v)
			if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
				return ledger.Problem{Field: c, Msg: fmt.Sprintf("%s response: value %q is not a number", fam, v.String())}
			}
			vals[c] = x
		}
		if f.Cbind != nil {
			get := func(c string) float64 { return vals[c] }
			for _, side := range []struct {
				name string
				e    *formula.Expr
			}{{"successes", f.Cbind.Successes}, {"failures", f.Cbind.Failures}} {
				if v := side.e.Eval(get); !(v >= 0) {
					return ledger.Problem{Field: side.e.Columns()[0], Msg: fmt.Sprintf("cbind %s %s = %v is negative (want counts ≥ 0)", side.name, side.e, v)}
				}
			}
			return nil
		}
		if v := vals[f.Response]; fam == stats.Poisson && v < 0 {
			return ledger.Problem{Field: f.Response, Msg: fmt.Sprintf("poisson response: value %v is a negative count", v)}
		}
		return nil
	}
}

// offsetCheck checks that a row's offsets are finite numbers.
func offsetCheck(f *formula.Formula, r frame.Row) error {
	for _, e := range f.Offsets {
		var bad string
		get := func(c string) float64 {
			v, _ := r.Get(c)
			x, ok := frame.Number(v)
			if !ok {
				bad = c
				return math.NaN()
			}
			return x
		}
		v := e.Eval(get)
		if bad != "" {
			return ledger.Problem{Field: bad, Msg: fmt.Sprintf("offset(%s): the column is not a number", e)}
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return ledger.Problem{Field: e.Columns()[0], Msg: fmt.Sprintf("offset(%s) = %v is not a finite number", e, v)}
		}
	}
	return nil
}

// fitGLMM fits a GLMM by package mixed: one block of Z per random term,
// the term's left side coded as fixed terms are (formula.RandomDesign)
// over the levels of its grouping factor; a Gaussian model by REML unless
// ML.
func (q *Query) fitGLMM(spec ModelSpec, f *formula.Formula, res *ModelResult, warn *warnings) error {
	fam := spec.Family
	fr, d, y, w, trials, off, err := q.familyData(f, spec, fam, nil, false, warn)
	if err != nil {
		return err
	}
	ms := mixed.Spec{X: d.X, Family: fam, Link: spec.Link, Offset: off, REML: fam == stats.Gaussian && !spec.ML}
	ms.Y = y
	if trials != nil {
		ms.Y = make([]float64, len(y))
		for i := range y {
			ms.Y[i] = math.Round(y[i] * trials[i])
		}
		ms.Trials = trials
	} else if slices.ContainsFunc(w, func(v float64) bool { return v != 1 }) {
		ms.Weights = w
	}
	groups := make([]formula.GroupIndex, len(f.Random))
	for k, r := range f.Random {
		g, err := formula.Group(r, fr)
		if err != nil {
			return err
		}
		rd, err := formula.RandomDesign(r, fr, formula.Options{Ref: spec.Refs})
		if err != nil {
			return err
		}
		t := mixed.Term{Name: g.Name, Group: g.Index, Levels: len(g.Levels), Coef: rd.Names, Diagonal: r.Uncorrelated}
		n, _ := rd.X.Dims()
		for j, name := range rd.Names {
			if name == "(Intercept)" {
				t.Z = append(t.Z, nil)
				continue
			}
			t.Z = append(t.Z, mat.Col(nil, j, rd.X)[:n])
		}
		ms.Terms = append(ms.Terms, t)
		groups[k] = g
	}
	r, err := mixed.Fit(ms, mixed.Options{NAGQ: spec.NAGQ})
	if err != nil {
		return fitError(err)
	}
	warn.addMixed(r.Warnings)
	res.Converged = r.Converged
	res.Coefficients = coefs(d.Names, r.Coef, r.SE, r.Z, r.P)
	if fam == stats.Gaussian {
		res.Stat = "t"
		res.ResidualSD, res.Dispersion = r.Sigma, r.Sigma*r.Sigma
		res.REML = ms.REML
		res.REMLCrit = r.REMLCrit
	}
	res.Fitted = newFitted(spec, f, fr, d, off, r.Coef, r.Cov)
	for k, tf := range r.Terms {
		for j, c := range tf.Coef {
			re := RandomEffect{Group: tf.Name, Effect: c, SD: tf.SD[j], Levels: len(groups[k].Levels)}
			for i := range j {
				re.Corr = append(re.Corr, tf.Corr.At(j, i))
			}
			res.Random = append(res.Random, re)
		}
		res.Fitted.Terms = append(res.Fitted.Terms, RandomTerm{Group: tf.Name, Coef: tf.Coef, Cov: tf.Cov, Levels: groups[k].Levels, Modes: tf.Modes})
	}
	res.LogLik, res.AIC, res.BIC, res.Deviance = r.LogLik, r.AIC, r.BIC, r.Deviance
	res.Singular = r.Singular
	res.N, res.NObs = fr.Rows, float64(r.N)
	return nil
}

func coefs(names []string, coef, se, z, p []float64) []Coef {
	rows := make([]Coef, len(names))
	for j, n := range names {
		b, s := coef[j], se[j]
		rows[j] = Coef{Term: n, Estimate: b, SE: s, Z: z[j], P: p[j],
			OR: math.Exp(b), ORLo: math.Exp(b - z95*s), ORHi: math.Exp(b + z95*s)}
	}
	return rows
}

// modelFrame reads the formula's columns (and extra); collapse merges
// rows into covariate patterns (limit: frame.Spec.CollapseLimit).
func (q *Query) modelFrame(f *formula.Formula, extra []string, weight string, collapse bool, limit float64, warn *warnings) (*frame.Frame, error) {
	cols := f.CovariateColumns()
	for _, c := range slices.Concat(extra, q.extra) {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	fr, err := q.readFrame(frame.Spec{Columns: cols, Outcome: f.Response, Weight: weight, Collapse: collapse, CollapseLimit: limit}, warn)
	if err != nil {
		return nil, err
	}
	if err := checkWeights(fr, weight); err != nil {
		return nil, err
	}
	if err := checkOutcome(fr, f.Response); err != nil {
		return nil, err
	}
	return fr, nil
}

// modelDesign reads the frame of f (with the extra columns), drops the
// patterns with no weight and builds f's design matrix with the reference
// levels refs; the design's warnings join warn.
func (q *Query) modelDesign(f *formula.Formula, extra []string, weight string, collapse bool, limit float64, refs map[string]string, warn *warnings) (*frame.Frame, *formula.Design, error) {
	fr, err := q.modelFrame(f, extra, weight, collapse, limit, warn)
	if err != nil {
		return nil, nil, err
	}
	fr = positive(fr)
	d, err := formula.Build(f, fr, formula.Options{Ref: refs})
	if err != nil {
		return nil, nil, err
	}
	warn.add(WarnDroppedTerm, d.Warnings...)
	return fr, d, nil
}

// positive drops the patterns with zero total weight (nothing to fit).
func positive(fr *frame.Frame) *frame.Frame {
	keep := make([]int, 0, fr.Len())
	for i, c := range fr.Cells {
		if !fr.HasWeight || c.SumW > 0 {
			keep = append(keep, i)
		}
	}
	if len(keep) == fr.Len() {
		return fr
	}
	out := *fr
	out.Cells = make([]frame.Cell, len(keep))
	out.Cols = make([]*frame.Column, len(fr.Cols))
	for j, c := range fr.Cols {
		nc := *c
		nc.Codes = make([]int32, len(keep))
		for k, i := range keep {
			nc.Codes[k] = c.Codes[i]
		}
		out.Cols[j] = &nc
	}
	for k, i := range keep {
		out.Cells[k] = fr.Cells[i]
	}
	return &out
}

// fitError turns a data-dependent fitting failure into a message naming
// the design.
func fitError(err error) error {
	var se *stats.SingularError
	if errors.As(err, &se) {
		return fmt.Errorf("the design is rank deficient: %s duplicate(s) other columns (a factor nested in another, or a column that is constant within the data); drop one of the terms", strings.Join(se.Names, ", "))
	}
	return err
}
