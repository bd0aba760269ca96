package analysis

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/internal/enum"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// RandomEffects is how a contrast of a GLMM treats the random effects.
type RandomEffects string

// The treatments of the random effects.
const (
	// RandomZero predicts at the population level, the random effects at
	// 0 (the default; lme4's re.form = NA, marginaleffects' re.form = NA).
	RandomZero RandomEffects = "zero"
	// RandomMarginal averages each prediction over the fitted
	// random-effect distribution b ~ N(0, Σ̂) (stats.AverageResponse).
	RandomMarginal RandomEffects = "marginal"
)

// RandomEffectsChoices lists the treatments, the default first.
var RandomEffectsChoices = []RandomEffects{RandomZero, RandomMarginal}

// String returns the treatment's name.
func (r RandomEffects) String() string { return string(r) }

// Valid reports whether r is one of RandomEffectsChoices.
func (r RandomEffects) Valid() bool { return slices.Contains(RandomEffectsChoices, r) }

// MarshalText returns the treatment's name.
func (r RandomEffects) MarshalText() ([]byte, error) { return []byte(r), nil }

// UnmarshalText accepts zero or marginal.
func (r *RandomEffects) UnmarshalText(b []byte) error {
	return enum.Unmarshal("random effects", b, RandomEffectsChoices, r)
}

// ContrastSpec is a Contrast analysis: average contrasts on the response
// scale between the levels of one column of a model.
type ContrastSpec struct {
	Model ModelSpec
	// Variable is the column whose levels are compared; it must enter
	// the formula's fixed part (a factor, or a boolean or numeric column
	// whose observed values are compared).
	Variable string
	// Base is the level every other level is compared with (default: the
	// model's reference level of Variable, Model.Refs or the first).
	Base   string
	Levels []string // compare only these levels with Base (default: all others)
	By     []string // average within the groups of these columns
	// RandomEffects is how a GLMM's predictions treat the random effects:
	// zero (default) or marginal; only GLMMs take marginal.
	RandomEffects RandomEffects
	Level         float64          // confidence level; 0 = 0.95
	Adjust        stats.Adjustment // over the contrasts reported: none (default), holm, bonferroni, bh or by
	Bootstrap     BootstrapSpec
}

// ContrastMean is one level's average prediction in one group: the mean
// response had every row of the group taken that level.
type ContrastMean struct {
	By     []string // the group's level of each By column
	Level  string
	N      int64   // episodes averaged over
	Mean   float64 // on the response scale (a probability for binomial)
	SE     float64 // delta method
	Lo, Hi float64 // Wald interval
	Boot   *BootInterval
}

// ContrastRow is one level against Base in one group.
type ContrastRow struct {
	By          []string
	Level, Base string
	N           int64 // episodes averaged over
	// Diff is the average difference μ̄_Level − μ̄_Base on the response
	// scale (a risk difference for binomial) with its delta-method SE,
	// Wald interval and test; PAdj is P adjusted over the rows reported.
	Diff, DiffSE, DiffLo, DiffHi, DiffZ, DiffP, DiffPAdj float64
	// Ratio is μ̄_Level / μ̄_Base (a risk or rate ratio) with its
	// delta-method SE; its interval and test are on the log scale.
	Ratio, RatioSE, RatioLo, RatioHi, RatioP float64
	DiffBoot, RatioBoot                      *BootInterval
}

// ContrastResult is the result of Contrast.
type ContrastResult struct {
	Spec      ContrastSpec  // with the defaults filled in
	Model     *ModelResult  // the fit the contrasts are computed from
	Kinds     []ledger.Kind // the kind of each By column
	Means     []ContrastMean
	Contrasts []ContrastRow
	Bootstrap *BootstrapInfo // nil without Spec.Bootstrap
	Warnings  []Warning
}

// Contrast fits spec.Model (Model) and reports, for the column
// spec.Variable, the average predictions of each level and the average
// contrasts of each level against Base over the rows fitted: every row is
// predicted with Variable set to each level in turn and the predictions
// are averaged (G-computation; stats.AverageResponse), within each group
// of By. The difference and the ratio of two such averages
// (stats.MeanDifference, stats.MeanRatio) get delta-method standard
// errors from the fit's covariance: the robust sandwich for a GEE (as
// chosen by Model.Cov), the model-based one otherwise. This is what
// marginaleffects' avg_comparisons and emmeans with regrid on a
// counterfactuals grid compute. Rows are weighted by their episodes (and
// by the query's weight column, for a weighted logistic model).
//
// A GLMM predicts at the population level (random effects 0), or with
// RandomEffects marginal averaged over the fitted random-effect
// distribution; the random-effect variances are taken as known. With
// Bootstrap.Replicates, the contrasts also get bootstrap intervals
// (see BootstrapSpec): the model is refitted on each replicate.
func Contrast(q Query, spec ContrastSpec) (*ContrastResult, error) {
	var warn warnings
	if err := spec.check(); err != nil {
		return nil, err
	}
	f, err := parseFormula(spec.Model.Formula)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(f.Terms, func(t formula.Term) bool { return t.Has(spec.Variable) }) {
		return nil, fieldErr("Variable", "{Variable} %s is not a column of the formula's fixed part %s", spec.Variable, f)
	}
	for _, c := range spec.By {
		if c == spec.Variable {
			return nil, fieldErr("By", "{By} lists the contrasted column %s", c)
		}
	}
	q.extra = slices.Concat(spec.By, q.extra)
	if spec.Bootstrap.Replicates > 0 && spec.Bootstrap.Cluster != "" {
		q.extra = append(q.extra, spec.Bootstrap.Cluster)
	}
	res, err := Model(q, spec.Model)
	if err != nil {
		return nil, err
	}
	if spec.RandomEffects == RandomMarginal && res.Fitted.Fit != FitGLMM {
		return nil, fieldErr("RandomEffects", "{RandomEffects} marginal applies to a GLMM; the fit is %s", res.Fitted.Fit)
	}
	plan, err := newContrastPlan(res, spec)
	if err != nil {
		return nil, err
	}
	out := &ContrastResult{Spec: plan.spec, Model: res}
	for _, c := range plan.spec.By {
		out.Kinds = append(out.Kinds, res.Fitted.Frame.Col(c).Kind)
	}
	warn.list = append(warn.list, res.Warnings...)
	if len(plan.unseen) > 0 {
		warn.addf(WarnDroppedTerm, "the combinations %s occur only in counterfactual rows; the fit has no column for them, so their effect is taken as 0", strings.Join(plan.unseen, ", "))
	}
	est := plan.estimate(res)
	out.Means, out.Contrasts = est.means, est.rows
	ps := make([]float64, len(out.Contrasts))
	for i, c := range out.Contrasts {
		ps[i] = c.DiffP
	}
	for i, p := range adjustP(plan.spec.Adjust, ps) {
		out.Contrasts[i].DiffPAdj = p
	}
	for _, r := range out.Contrasts {
		if r.Diff != r.Diff {
			warn.addf(WarnUndefined, "%s vs %s%s: the contrast is undefined (no rows)", r.Level, r.Base, byLabel(plan.spec.By, r.By))
		}
	}
	if spec.Bootstrap.Replicates > 0 {
		info, err := q.bootstrapContrast(res, plan, out, &warn)
		if err != nil {
			return nil, err
		}
		out.Bootstrap = info
	}
	out.Warnings = warn.items()
	return out, nil
}

// check validates the spec's own fields and fills in the defaults.
func (spec *ContrastSpec) check() error {
	if spec.Variable == "" {
		return fieldErr("Variable", "{Variable} is required: the column whose levels are compared")
	}
	if spec.RandomEffects == "" {
		spec.RandomEffects = RandomZero
	}
	if !spec.RandomEffects.Valid() {
		return fieldf("RandomEffects", "%q: want zero or marginal", spec.RandomEffects)
	}
	if spec.Level == 0 {
		spec.Level = 0.95
	}
	if !(spec.Level > 0 && spec.Level < 1) {
		return fieldErr("Level", "{Level} %v: want a confidence level in (0, 1)", spec.Level)
	}
	if spec.Adjust == "" {
		spec.Adjust = stats.AdjustNone
	}
	if !spec.Adjust.Valid() {
		return fieldf("Adjust", "%q: want %s", spec.Adjust, enum.OrList(stats.Adjustments()))
	}
	if slices.Contains(spec.Levels, spec.Base) && spec.Base != "" {
		return fieldErr("Levels", "{Levels} must not contain the {Base} level %s", spec.Base)
	}
	for i, c := range spec.By {
		if slices.Contains(spec.By[:i], c) {
			return fieldErr("By", "{By} lists %s twice", c)
		}
	}
	if spec.Bootstrap.Level == 0 {
		spec.Bootstrap.Level = spec.Level
	}
	return spec.Bootstrap.check()
}

func byLabel(by, levels []string) string {
	if len(by) == 0 {
		return ""
	}
	s := make([]string, len(by))
	for i, c := range by {
		s[i] = c + "=" + levels[i]
	}
	return " (" + strings.Join(s, ", ") + ")"
}

// contrastPlan is what the contrasts of a fit are computed from: the
// counterfactual design of every level compared (Base first), the
// offsets, the groups of By and, for marginal random effects, each
// counterfactual row's SD of the random part.
type contrastPlan struct {
	spec   ContrastSpec
	levels []string     // Base, then the levels compared with it
	x      []*mat.Dense // counterfactual design of each level
	sd     [][]float64  // per level: each row's random-part SD (nil: population level)
	offset []float64
	groups []cellGroup // groups of By over the frame's rows
	unseen []string
}

// newContrastPlan builds the counterfactual designs of the fit res.
func newContrastPlan(res *ModelResult, spec ContrastSpec) (*contrastPlan, error) {
	m := res.Fitted
	fr := m.Frame
	col := fr.Col(spec.Variable)
	present := make([]bool, len(col.Levels))
	for _, c := range col.Codes {
		present[c] = true
	}
	level := func(field, l string) (int32, error) {
		i := slices.Index(col.Levels, l)
		if i < 0 || !present[i] {
			var have []string
			for k, ok := range present {
				if ok {
					have = append(have, col.Levels[k])
				}
			}
			return 0, fieldErr(field, "{"+field+"} %q: %s has no such level in the rows fitted (levels: %s)", l, spec.Variable, strings.Join(have, ", "))
		}
		return int32(i), nil
	}
	if spec.Base == "" {
		spec.Base = m.Refs[spec.Variable]
	}
	if spec.Base == "" {
		for _, dt := range m.Design.Terms {
			if dt.Term.Order() == 1 && dt.Term.Has(spec.Variable) && dt.Ref != "" {
				spec.Base = dt.Ref
			}
		}
	}
	if spec.Base == "" {
		spec.Base = col.Levels[slices.Index(present, true)]
	}
	base, err := level("Base", spec.Base)
	if err != nil {
		return nil, err
	}
	codes := []int32{base}
	if len(spec.Levels) == 0 {
		for k, ok := range present {
			if ok && int32(k) != base {
				spec.Levels = append(spec.Levels, col.Levels[k])
			}
		}
	}
	for _, l := range spec.Levels {
		c, err := level("Levels", l)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(codes, c) {
			codes = append(codes, c)
		}
	}
	if len(codes) < 2 {
		return nil, fieldErr("Variable", "{Variable} %s has only the level %s in the rows fitted; nothing to compare", spec.Variable, spec.Base)
	}
	const maxLevels = 100
	if len(codes) > maxLevels {
		return nil, fieldErr("Levels", "{Variable} %s has %d levels; name at most %d to compare in {Levels}", spec.Variable, len(codes), maxLevels)
	}
	p := &contrastPlan{spec: spec}
	for _, c := range codes {
		p.levels = append(p.levels, col.Levels[c])
	}
	st := stack(fr, spec.Variable, codes)
	sd, err := formula.Build(m.Formula, st, formula.Options{Ref: m.Refs})
	if err != nil {
		return nil, fmt.Errorf("counterfactual design: %w", err)
	}
	p.x, p.unseen = blockDesigns(sd, m.Design.Names, fr.Len(), len(codes))
	p.offset = m.Offset
	if spec.RandomEffects == RandomMarginal {
		if p.sd, err = randomSD(m, st, len(codes)); err != nil {
			return nil, err
		}
	}
	p.groups = groupCells(fr, spec.By)
	return p, nil
}

// randomSD is, for each counterfactual block of the stacked frame st,
// each row's SD of the random part of the linear predictor: with the
// terms independent, Var(Σ_k z_kᵀb_k) = Σ_k z_kᵀ Σ_k z_k, z_k the row's
// values of term k's columns.
func randomSD(m *FittedModel, st *frame.Frame, blocks int) ([][]float64, error) {
	if len(m.Terms) != len(m.Formula.Random) {
		return nil, fmt.Errorf("the fit's random terms do not match the formula's %s", randomTerms(m.Formula))
	}
	n := st.Len() / (blocks + 1)
	v := make([]float64, st.Len())
	for k, t := range m.Terms {
		z, err := termColumns(m.Formula.Random[k], t, st, m.Refs)
		if err != nil {
			return nil, err
		}
		zi := make([]float64, len(z))
		for i := n; i < st.Len(); i++ {
			for j, col := range z {
				zi[j] = col[i]
			}
			zv := mat.NewVecDense(len(zi), zi)
			v[i] += mat.Inner(zv, t.Cov, zv)
		}
	}
	out := make([][]float64, blocks)
	for b := range blocks {
		out[b] = make([]float64, n)
		for i := range n {
			out[b][i] = math.Sqrt(v[(b+1)*n+i])
		}
	}
	return out, nil
}

// termColumns are the values over fr's rows of the columns of the random
// term r, in the order of its fitted coefficients t.Coef.
func termColumns(r formula.RandomTerm, t RandomTerm, fr *frame.Frame, refs map[string]string) ([][]float64, error) {
	rd, err := formula.RandomDesign(r, fr, formula.Options{Ref: refs})
	if err != nil {
		return nil, err
	}
	n := fr.Len()
	var out [][]float64
	for _, name := range t.Coef {
		j := slices.Index(rd.Names, name)
		if j < 0 {
			return nil, fmt.Errorf("random term %s: no column %s", r, name)
		}
		out = append(out, mat.Col(nil, j, rd.X)[:n])
	}
	return out, nil
}

// contrastEstimates are the means and contrasts of one fit.
type contrastEstimates struct {
	means []ContrastMean
	rows  []ContrastRow
}

// estimate computes the plan's means and contrasts from the fit res
// (the plan's own, or a bootstrap replicate's refit on another frame
// whose plan is built the same way).
func (p *contrastPlan) estimate(res *ModelResult) contrastEstimates {
	m := res.Fitted
	w := m.rowWeights()
	var out contrastEstimates
	gw := make([]float64, len(w))
	for _, g := range p.groups {
		clear(gw)
		var n int64
		for _, i := range g.rows {
			gw[i] = w[i]
			n += m.Frame.Cells[i].N
		}
		avg := make([]stats.AveragePrediction, len(p.levels))
		for b := range p.levels {
			opt := stats.MeanOptions{Link: m.Link, Offset: p.offset, Weights: gw}
			if p.sd != nil {
				opt.SD = p.sd[b]
			}
			avg[b] = stats.AverageResponse(p.x[b], m.Coef, opt)
			se := avg[b].SE(m.Cov)
			z := stats.ZLevel(p.spec.Level)
			out.means = append(out.means, ContrastMean{By: g.levels, Level: p.levels[b], N: n, Mean: avg[b].Mean, SE: se, Lo: avg[b].Mean - z*se, Hi: avg[b].Mean + z*se})
		}
		for b := 1; b < len(p.levels); b++ {
			d := stats.MeanDifference(avg[0], avg[b], m.Cov, p.spec.Level)
			r := stats.MeanRatio(avg[0], avg[b], m.Cov, p.spec.Level)
			out.rows = append(out.rows, ContrastRow{By: g.levels, Level: p.levels[b], Base: p.levels[0], N: n,
				Diff: d.Estimate, DiffSE: d.SE, DiffLo: d.Lo, DiffHi: d.Hi, DiffZ: d.Z, DiffP: d.P, DiffPAdj: d.P,
				Ratio: r.Estimate, RatioSE: r.SE, RatioLo: r.Lo, RatioHi: r.Hi, RatioP: r.P})
		}
	}
	return out
}

// contrastStats lists a contrast result's estimates in the order of the
// bootstrap's statistics: each mean, then each row's difference and
// ratio; key names each (group, level, kind) so that a replicate's
// estimates are matched to them.
func contrastStats(means []ContrastMean, rows []ContrastRow) (keys []string, vals []float64) {
	key := func(kind string, by []string, level string) string {
		return kind + "\x00" + strings.Join(by, "\x00") + "\x00" + level
	}
	for _, m := range means {
		keys = append(keys, key("mean", m.By, m.Level))
		vals = append(vals, m.Mean)
	}
	for _, r := range rows {
		keys = append(keys, key("diff", r.By, r.Level), key("ratio", r.By, r.Level))
		vals = append(vals, r.Diff, r.Ratio)
	}
	return keys, vals
}

// bootstrapContrast adds bootstrap intervals to the contrasts of out,
// computed by plan from the fit res: a cluster bootstrap of a GLM or GEE
// (a GEE's clusters copied as distinct clusters), or a parametric one of
// a GLMM (BootstrapSpec).
func (q *Query) bootstrapContrast(res *ModelResult, plan *contrastPlan, out *ContrastResult, warn *warnings) (*BootstrapInfo, error) {
	bs := plan.spec.Bootstrap
	info := &BootstrapInfo{Kind: "cluster", Replicates: bs.Replicates, Cluster: bs.Cluster, Seed: bs.Seed, Level: bs.Level, Interval: bs.Interval}
	keys, theta := contrastStats(out.Means, out.Contrasts)
	k := len(keys)
	spec := plan.spec
	spec.Bootstrap = BootstrapSpec{}
	// estimate refits the model on a replicate's frame and computes its
	// contrasts, in the order of keys.
	estimate := func(fr *frame.Frame, dst []float64) error {
		r, err := Model(Query{Source: &resampled{fr}, Weight: q.Weight}, res.Spec)
		if err != nil {
			return err
		}
		p, err := newContrastPlan(r, spec)
		if err != nil {
			return err
		}
		e := p.estimate(r)
		rk, rv := contrastStats(e.means, e.rows)
		for j, key := range keys {
			i := slices.Index(rk, key)
			if i < 0 {
				return fmt.Errorf("bootstrap: %q missing from a replicate", key)
			}
			dst[j] = rv[i]
		}
		if nanRow(dst) {
			return fmt.Errorf("bootstrap: an undefined estimate")
		}
		return nil
	}
	var reps, jack []float64
	var rs *resampler
	var err error
	if bs.Cluster != "" {
		var relabel []string
		if res.Fitted.Fit == FitGEE {
			relabel = []string{res.Fitted.Group}
		}
		if rs, err = newResampler(res.Fitted.Frame, bs.Cluster, relabel); err != nil {
			return nil, err
		}
		if res.Fitted.Fit == FitGLM && !slices.Contains(res.Fitted.Formula.CovariateColumns(), bs.Cluster) && !slices.Contains(spec.By, bs.Cluster) {
			rs.pool(bs.Cluster) // a GLM's likelihood sums over rows: fit the patterns
		}
		info.Clusters = rs.n
	}
	if res.Fitted.Fit == FitGLMM {
		info.Kind = "parametric"
		sim, err := newSimulator(res)
		if err != nil {
			return nil, err
		}
		reps, info.Failed = stats.Replicates(bs.Replicates, k, bs.Seed, bs.Jobs, func(_ int, rng *rand.Rand, dst []float64) error {
			return estimate(sim.frame(rng), dst)
		})
	} else {
		if rs == nil {
			return nil, fieldErr("Cluster", "a cluster bootstrap of a %s needs the column whose clusters it resamples ({Cluster}), e.g. task", res.Fitted.Fit)
		}
		reps, info.Failed = stats.Replicates(bs.Replicates, k, bs.Seed, bs.Jobs, func(_ int, rng *rand.Rand, dst []float64) error {
			return estimate(rs.frame(clusterCounts(rng, rs.n)), dst)
		})
	}
	if rs != nil {
		jack, _ = stats.Jackknife(rs.n, k, bs.Jobs, func(i int, dst []float64) error {
			return estimate(rs.frame(leaveOut(rs.n, i)), dst)
		})
	}
	for j := range k {
		iv := bootInterval(reps, k, j, theta[j], jack, bs.Level)
		switch {
		case j < len(out.Means):
			out.Means[j].Boot = iv
		case (j-len(out.Means))%2 == 0:
			out.Contrasts[(j-len(out.Means))/2].DiffBoot = iv
		default:
			out.Contrasts[(j-len(out.Means))/2].RatioBoot = iv
		}
	}
	bootWarnings(info, warn)
	return info, nil
}
