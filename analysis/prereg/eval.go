package prereg

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// Verdict is the outcome of a decision rule or of a hypothesis, as
// reports print it ("supported"). The zero Verdict is a part that only
// reports its estimate.
type Verdict string

// Verdicts. The first four are a rule's outcomes; partly supported is a
// hypothesis whose parts combine "partial" and hold in part.
const (
	Supported     Verdict = "supported"
	NotSupported  Verdict = "not supported"
	Inconclusive  Verdict = "inconclusive"
	NotComputable Verdict = "not computable"
	PartlySupport Verdict = "partly supported"
)

// Verdicts lists every verdict, in the order outputs list them.
var Verdicts = []Verdict{Supported, PartlySupport, NotSupported, Inconclusive, NotComputable}

// String is the verdict as reports print it.
func (v Verdict) String() string { return string(v) }

// UnmarshalText accepts one of the verdicts as printed; the error names
// the accepted values.
func (v *Verdict) UnmarshalText(b []byte) error {
	for _, x := range Verdicts {
		if string(b) == string(x) {
			*v = x
			return nil
		}
	}
	var names []string
	for _, x := range Verdicts {
		names = append(names, strconv.Quote(string(x)))
	}
	return fmt.Errorf("verdict %q: want one of %s", b, strings.Join(names, ", "))
}

// Stat is one number behind a verdict. Rates and differences of rates are
// in percent or percentage points; NaN where undefined.
type Stat struct {
	Name   string
	Value  float64
	Lo, Hi float64 // the interval the estimand reports, NaN if none
	P      float64 // p-value (adjusted within its family when it has one)
	N      int64   // rows (episodes or pairs) behind the number
}

// PartResult is the evaluation of one part (one level of for_each).
type PartResult struct {
	Name     string
	Level    string // the for_each level, "" without for_each
	Kind     Kind
	Estimate Stat // the number the rule reads
	Bound    float64
	Extra    []Stat             // further numbers the estimand gives
	Rule     string             // the rule in words, "" for a reported-only part
	Verdict  Verdict            // "" for a reported-only part
	Reason   string             // why the verdict is not computable
	Warnings []analysis.Warning // the engine's, the fits' named by their labels
	rawP     float64
	part     *Part
}

// HypothesisResult is a hypothesis's evaluation.
type HypothesisResult struct {
	ID, Statement string
	Analysis      Analysis
	SensitivityOf string
	Verdict       Verdict
	Reason        string // for not computable
	Parts         []*PartResult
}

// Result is the evaluation of a preregistration on a ledger.
type Result struct {
	Title      string
	Verdicts   []*HypothesisResult
	Provenance *Provenance
	// Checks are problems of the preregistration against this ledger that
	// do not stop the evaluation, as file:line: message: a level that a
	// where expression names and no episode has (RunWith).
	Checks []string
}

// derivedRow is an episode with the file's derived columns.
type derivedRow struct {
	ep    *ledger.Episode
	names []string
	vals  []bool
}

func (r *derivedRow) Get(name string) (ledger.Value, bool) {
	for i, n := range r.names {
		if n == name {
			return ledger.Value{Kind: ledger.KindBool, Bool: r.vals[i]}, true
		}
	}
	return r.ep.Get(name)
}

// Rows wraps episodes with the file's derived columns.
func (f *File) Rows(eps []*ledger.Episode) ([]frame.Row, error) {
	names := make([]string, len(f.Derive))
	for i, x := range f.Derive {
		names[i] = x.Name
	}
	rows := make([]frame.Row, len(eps))
	for i, e := range eps {
		r := &derivedRow{ep: e, names: names, vals: make([]bool, len(names))}
		for j, x := range f.Derive {
			// Later derived columns may read earlier ones: r answers them.
			r.names = names[:j]
			ok, err := x.expr.Keep(r)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: derive %s: episode %q: %w", f.Path, x.Line, x.Name, e.EpisodeID, err)
			}
			r.vals[j] = ok
		}
		r.names = names
		rows[i] = r
	}
	return rows, nil
}

// withDerived returns d with the file's derived columns, each a bit per
// episode computed on dictionary codes (table.Data.Keep).
func (f *File) withDerived(d *table.Data) (*table.Data, error) {
	extra := d.ExtraColumns()
	for _, x := range f.Derive {
		if slices.Contains(extra, x.Name) {
			return nil, fmt.Errorf("%s:%d: derive %s: the ledger has its own column %s; a derived name may not shadow a ledger column (rename the derived column)", f.Path, x.Line, x.Name, x.Name)
		}
	}
	for _, x := range f.Derive {
		// Later derived columns may read earlier ones: d has them.
		keep, bad, err := d.Keep(x.expr)
		if err != nil {
			if bad < 0 {
				return nil, fmt.Errorf("%s:%d: derive %s: %w", f.Path, x.Line, x.Name, err)
			}
			ids, _ := d.EpisodeIDs([]int32{int32(bad)})
			id := ""
			if len(ids) == 1 {
				id = ids[0]
			}
			return nil, fmt.Errorf("%s:%d: derive %s: episode %q: %w", f.Path, x.Line, x.Name, id, err)
		}
		d = d.WithBools([]string{x.Name}, [][]uint64{keep})
	}
	return d, nil
}

// EvaluateEpisodes is Evaluate on episodes held one by one.
func (f *File) EvaluateEpisodes(eps []*ledger.Episode) (*Result, error) {
	return f.Evaluate(table.NewData(eps))
}

// Evaluate computes every hypothesis of f on the episodes through the
// analysis engine and applies the decision rules.
func (f *File) Evaluate(d *table.Data) (*Result, error) {
	dv, err := f.withDerived(d)
	if err != nil {
		return nil, err
	}
	res := &Result{Title: f.Title}
	var all []*PartResult
	for _, h := range f.Hypotheses {
		v := &HypothesisResult{ID: h.ID, Statement: h.Statement, Analysis: h.Analysis, SensitivityOf: h.SensitivityOf}
		for _, p := range h.Parts {
			prs := f.evalPart(h, p, dv)
			v.Parts = append(v.Parts, prs...)
			all = append(all, prs...)
		}
		res.Verdicts = append(res.Verdicts, v)
	}
	f.adjustFamilies(all)
	for _, v := range res.Verdicts {
		for _, pr := range v.Parts {
			if pr.part.Rule != nil && pr.Verdict == "" {
				pr.Verdict, pr.Reason = decide(pr.part.Rule, pr)
			}
		}
		h := f.hypothesis(v.ID)
		v.Verdict, v.Reason = combine(h, v.Parts)
	}
	return res, nil
}

func (f *File) hypothesis(id string) *Hypothesis {
	for _, h := range f.Hypotheses {
		if h.ID == id {
			return h
		}
	}
	return nil
}

// adjustFamilies replaces the p-value of every test in a family by its
// adjusted value over the family's computable tests.
func (f *File) adjustFamilies(all []*PartResult) {
	for _, fam := range f.Families {
		var members []*PartResult
		var ps []float64
		for _, pr := range all {
			if pr.part.Estimand.Family == fam.ID && !math.IsNaN(pr.rawP) {
				members = append(members, pr)
				ps = append(ps, pr.rawP)
			}
		}
		adj := stats.Adjust(stats.Adjustment(fam.Adjust), ps)
		for i, pr := range members {
			pr.Estimate.P = adj[i]
			pr.Extra = append(pr.Extra, Stat{Name: "p_unadjusted", Value: ps[i], Lo: nan, Hi: nan, P: nan, N: pr.Estimate.N})
			pr.Warnings = append(pr.Warnings, analysis.Warning{Code: analysis.WarnAdjusted, Msg: fmt.Sprintf("p adjusted (%s) over the %d test(s) of family %s", fam.Adjust, len(ps), fam.ID)})
		}
	}
}

var nan = math.NaN()

// evalPart evaluates a part once, or once per level of its for_each column.
func (f *File) evalPart(h *Hypothesis, p *Part, d *table.Data) []*PartResult {
	where := formula.And(h.Population, p.Population)
	if p.ForEach == "" {
		return []*PartResult{f.estimate(p, analysis.Query{Source: table.Held(d, nil), Where: where}, "")}
	}
	levels, subsets, err := forEachLevels(d, where, p.ForEach)
	if err == nil && len(levels) == 0 {
		err = fmt.Errorf("no level of %s in the population", p.ForEach)
	}
	if err != nil {
		pr := f.newPart(p, "")
		pr.Verdict, pr.Reason = NotComputable, err.Error()
		if p.Rule == nil {
			pr.Verdict = ""
		}
		return []*PartResult{pr}
	}
	var out []*PartResult
	for k, lv := range levels {
		out = append(out, f.estimate(p, analysis.Query{Source: table.Held(d, subsets[k]), Where: where}, lv))
	}
	return out
}

func (f *File) newPart(p *Part, level string) *PartResult {
	pr := &PartResult{Name: p.Name, Level: level, Kind: p.Estimand.Kind, part: p, rawP: nan,
		Estimate: Stat{Name: string(p.Estimand.Kind), Value: nan, Lo: nan, Hi: nan, P: nan}, Bound: nan}
	if p.Rule != nil {
		pr.Rule = p.Rule.String(p.Estimand.Kind)
		pr.Bound = p.Rule.Bound
	}
	return pr
}

// estimate computes the part's estimand with the engine.
func (f *File) estimate(p *Part, q analysis.Query, level string) *PartResult {
	pr := f.newPart(p, level)
	e := p.Estimand
	q.Weight = e.Weight
	fail := func(err error) *PartResult {
		pr.Verdict, pr.Reason = NotComputable, engineReason(err, e.Kind)
		if p.Rule == nil {
			pr.Verdict = ""
		}
		return pr
	}
	st := &pr.Estimate
	switch e.Kind {
	case KindRate:
		r, err := analysis.Rates(q, analysis.RatesSpec{Outcome: p.Outcome, Cluster: e.Cluster, Level: e.Level})
		if err != nil {
			return fail(err)
		}
		pr.Warnings = append(pr.Warnings, r.Warnings...)
		row := r.Rows[0]
		st.Name = "rate_pct"
		st.Value, st.Lo, st.Hi, st.N = 100*row.P, 100*row.Lo, 100*row.Hi, row.N
		pr.Extra = append(pr.Extra, Stat{Name: "n_eff", Value: row.NEff, Lo: nan, Hi: nan, P: nan, N: row.N})
		if e.Cluster != "" {
			pr.Extra = append(pr.Extra, Stat{Name: "icc", Value: r.ICC, Lo: nan, Hi: nan, P: nan, N: row.N})
		}
	case KindRateDiff:
		d, err := rateDiff(q, p.Outcome, e, stats.ZLevel(e.Level))
		if err != nil {
			return fail(err)
		}
		pr.Warnings = append(pr.Warnings, d.warnings...)
		st.Name = "diff_pp"
		st.Value, st.Lo, st.Hi, st.N = d.diff, d.lo, d.hi, d.na+d.nb
		pr.Extra = append(pr.Extra, d.extra(e)...)
	case KindTOST:
		margin := 5.0
		if p.Rule != nil && !math.IsNaN(p.Rule.Margin) {
			margin = p.Rule.Margin
		}
		st.Name = "diff_pp"
		if e.Cluster != "" {
			alpha := defaultAlpha
			if p.Rule != nil {
				alpha = p.Rule.Alpha
			}
			d, err := rateDiff(q, p.Outcome, e, stats.ZLevel(1-2*alpha))
			if err != nil {
				return fail(err)
			}
			pr.Warnings = append(pr.Warnings, d.warnings...)
			st.Value, st.Lo, st.Hi, st.N = d.diff, d.lo, d.hi, d.na+d.nb
			st.P = d.tostP(margin)
			pr.Extra = append(pr.Extra, d.extra(e)...)
			break
		}
		r, err := analysis.TOST(q, analysis.TOSTSpec{Outcome: p.Outcome, Arm: e.Arm, A: e.A, B: e.B, Margin: margin / 100, Method: stats.TOSTMethod(e.Method), PairedBy: e.PairBy})
		if err != nil {
			return fail(err)
		}
		pr.Warnings = append(pr.Warnings, r.Warnings...)
		st.Value, st.Lo, st.Hi, st.P, st.N = 100*r.Diff, 100*r.Lo90, 100*r.Hi90, r.PTOST, int64(r.NA+r.NB)
		if r.Pairs > 0 {
			st.N = int64(r.Pairs)
		}
	case KindMcNemar:
		r, err := analysis.Paired(q, analysis.PairedSpec{Outcome: p.Outcome, Arm: e.Arm, Base: e.A, Levels: []string{e.B}, PairBy: e.PairBy, Test: stats.PairedTest(e.Test), Adjust: "none"})
		if err != nil {
			return fail(err)
		}
		pr.Warnings = append(pr.Warnings, r.Warnings...)
		if len(r.Comparisons) != 1 {
			return fail(fmt.Errorf("no comparison of %s with %s", e.A, e.B))
		}
		c := r.Comparisons[0]
		st.Name = "gain_pp"
		st.Value, st.P, st.N = c.GainPP, c.P, int64(c.Pairs)
		pr.rawP = c.P
		oneSided(p.Rule, pr)
		pr.Extra = append(pr.Extra,
			Stat{Name: "only_" + e.A, Value: float64(c.B), Lo: nan, Hi: nan, P: nan, N: int64(c.Pairs)},
			Stat{Name: "only_" + e.B, Value: float64(c.C), Lo: nan, Hi: nan, P: nan, N: int64(c.Pairs)})
	case KindOddsRatio, KindCoefficient:
		if e.Contrast != "" {
			return e.contrast(q, p, pr, fail)
		}
		spec := e.modelSpec()
		label := e.modelLabel()
		var r *analysis.ModelResult
		err := e.withFallback(pr, label, func(corr stats.Corr) (err error) {
			spec.Corr = corr
			r, err = analysis.Model(q, spec)
			return err
		})
		if err != nil {
			return fail(err)
		}
		e.addWarnings(pr, label, r.Warnings)
		i := slices.IndexFunc(r.Coefficients, func(c analysis.Coef) bool { return c.Term == e.Term })
		if i < 0 {
			var terms []string
			for _, c := range r.Coefficients {
				terms = append(terms, c.Term)
			}
			return fail(fmt.Errorf("the fit has no coefficient %q (it has %s)", e.Term, strings.Join(terms, ", ")))
		}
		c := r.Coefficients[i]
		st.Name = e.statName(r)
		st.Value, st.Lo, st.Hi = e.coefficient(r, c)
		st.P, st.N = c.P, r.N
		pr.rawP = c.P
		oneSided(p.Rule, pr)
	case KindShapley:
		r, err := analysis.Shapley(q, analysis.ShapleySpec{Formula: e.Spec.Formula, R2: stats.PseudoR2(e.R2), Refs: e.Spec.Refs})
		if err != nil {
			return fail(err)
		}
		pr.Warnings = append(pr.Warnings, r.Warnings...)
		share := func(name string) (float64, bool) {
			for _, t := range r.Terms {
				if t.Name == name {
					return t.Share, true
				}
			}
			return nan, false
		}
		st.Name = "share_pct"
		v, ok := share(e.Term)
		if !ok {
			return fail(fmt.Errorf("the decomposition has no factor %q", e.Term))
		}
		st.Value, st.N = v, r.N
		pr.Extra = append(pr.Extra, Stat{Name: "total_r2", Value: r.Total, Lo: nan, Hi: nan, P: nan, N: r.N})
		if p.Rule != nil && p.Rule.CompareTo != "" {
			b, ok := share(p.Rule.CompareTo)
			if !ok {
				return fail(fmt.Errorf("the decomposition has no factor %q (compare_to)", p.Rule.CompareTo))
			}
			pr.Bound = b
			pr.Extra = append(pr.Extra, Stat{Name: "share_pct_" + p.Rule.CompareTo, Value: b, Lo: nan, Hi: nan, P: nan, N: r.N})
		}
	}
	return pr
}

// contrast computes a coefficient that names a contrast: the average
// contrast of its level against the reference level on the response
// scale (analysis.Contrast), a difference (percentage points for a
// binomial distribution) or a ratio, with its delta-method Wald interval
// and test. A GEE whose working correlation fails falls back as a
// coefficient's does.
func (e *Estimand) contrast(q analysis.Query, p *Part, pr *PartResult, fail func(error) *PartResult) *PartResult {
	col, level, _ := contrastLevel(e.Contrast)
	spec := analysis.ContrastSpec{Model: e.modelSpec(), Variable: col, Base: e.Spec.Refs[col], Levels: []string{level}, RandomEffects: e.RandomEffects}
	label := e.modelLabel()
	var r *analysis.ContrastResult
	err := e.withFallback(pr, label, func(corr stats.Corr) (err error) {
		spec.Model.Corr = corr
		r, err = analysis.Contrast(q, spec)
		return err
	})
	if err != nil {
		return fail(err)
	}
	e.addWarnings(pr, label, r.Warnings)
	c := r.Contrasts[0]
	st := &pr.Estimate
	st.N = c.N
	// A logistic model of before families (the model key) is binomial.
	dist := e.modelSpec().Family
	if e.model() != "" {
		dist = stats.Binomial
	}
	binomial := dist == stats.Binomial
	if e.Scale == ScaleRatio {
		st.Name = fmt.Sprintf("%s_%s_contrast_ratio", e.fit(), dist)
		st.Value, st.Lo, st.Hi, st.P = c.Ratio, c.RatioLo, c.RatioHi, c.RatioP
	} else {
		k := 1.0
		st.Name = fmt.Sprintf("%s_%s_contrast_diff", e.fit(), dist)
		if binomial {
			k, st.Name = 100, st.Name+"_pp"
		}
		st.Value, st.Lo, st.Hi, st.P = k*c.Diff, k*c.DiffLo, k*c.DiffHi, c.DiffP
	}
	pr.rawP = st.P
	oneSided(p.Rule, pr)
	for _, m := range r.Means {
		k := 1.0
		if binomial {
			k = 100
		}
		pr.Extra = append(pr.Extra, Stat{Name: "mean_" + m.Level, Value: k * m.Mean, Lo: k * m.Lo, Hi: k * m.Hi, P: nan, N: m.N})
	}
	return pr
}

// withFallback runs fit with the estimand's working correlation and,
// when a GEE fails on it and the estimand names a fallback, again with
// the fallback (an undefined working correlation, e.g. an outcome
// constant within every cluster, leaves the fallback, whose robust SEs
// are still valid), saying so in pr's warnings.
func (e *Estimand) withFallback(pr *PartResult, label string, fit func(stats.Corr) error) error {
	err := fit(e.Spec.Corr)
	if ge := (*stats.GEEError)(nil); errors.As(err, &ge) && e.Fallback != "" {
		pr.Warnings = append(pr.Warnings, analysis.Warning{Code: analysis.WarnFallback, Field: "Corr",
			Msg: fmt.Sprintf("%s %s failed (%v); %s working correlation used", orDefault(e.Spec.Corr, "exchangeable"), label, ge.Reason, e.Fallback)})
		err = fit(e.Fallback)
	}
	return err
}

// addWarnings adds a fit's warnings to pr, named by the fit (a hypothesis
// may hold several: H1's GEE and GLMM), their advice in the file's keys,
// as its errors are.
func (e *Estimand) addWarnings(pr *PartResult, label string, ws []analysis.Warning) {
	for _, w := range ws {
		w = w.Renamed(specKeys(e.Kind))
		w.Msg = label + ": " + w.Msg
		pr.Warnings = append(pr.Warnings, w)
	}
}

// oneSided replaces a two-sided p-value by the one-sided one in the rule's
// predicted direction (p/2 on the predicted side, 1 − p/2 on the other),
// before any family adjustment. For McNemar's exact test this is the
// usual one-sided value whenever the two-sided one was not capped at 1.
func oneSided(r *Rule, pr *PartResult) {
	if r == nil || r.Sides != 1 || math.IsNaN(pr.rawP) {
		return
	}
	p := pr.rawP / 2
	if !holds(r.Direction, pr.Estimate.Value, r.Bound) {
		p = 1 - p
	}
	pr.Extra = append(pr.Extra, Stat{Name: "p_two_sided", Value: pr.rawP, Lo: nan, Hi: nan, P: nan, N: pr.Estimate.N})
	pr.rawP, pr.Estimate.P = p, p
}

// modelSpec is the engine's specification of a model estimand: the
// estimand's Spec, an odds_ratio's fit (not its model, a logistic model
// of before families) with the binomial family and the logit link.
func (e *Estimand) modelSpec() analysis.ModelSpec {
	spec := e.Spec
	if e.Kind == KindOddsRatio && e.model() == "" {
		spec.Family, spec.Link = stats.Binomial, stats.LinkLogit
	}
	return spec
}

// fitLabels name an odds ratio's fits in warnings, as the logistic
// models of before families did.
var fitLabels = map[analysis.ModelFit]string{analysis.FitGLM: "logit", analysis.FitGEE: "GEE", analysis.FitGLMM: "mixed-effects logit"}

// modelLabel names the fit in warnings: "GEE", "mixed-effects logit" for
// an odds ratio; "GEE poisson", "GLM gaussian" for a coefficient.
func (e *Estimand) modelLabel() string {
	if e.Kind == KindOddsRatio {
		return fitLabels[e.fit()]
	}
	return strings.ToUpper(string(e.Spec.Fit)) + " " + string(e.Spec.Family)
}

// statName names the estimate in outputs: gee_or for an odds ratio of
// model gee (glm_or of fit glm); fit_distribution_measure for a
// coefficient, the measure being or (logit link), rr (a Poisson log
// link), ratio (other ratios) or coef (scale difference).
func (e *Estimand) statName(r *analysis.ModelResult) string {
	if e.Kind == KindOddsRatio {
		return orDefault(string(e.model()), string(e.Spec.Fit)) + "_or"
	}
	m := "coef"
	if e.Scale == ScaleRatio {
		switch {
		case r.Link == stats.LinkLogit:
			m = "or"
		case r.Link == stats.LinkLog && r.Family == stats.Poisson:
			m = "rr"
		default:
			m = "ratio"
		}
	}
	return fmt.Sprintf("%s_%s_%s", e.Spec.Fit, e.Spec.Family, m)
}

// coefficient is the estimate of c and its 95% Wald interval on the
// estimand's scale: the engine's exp(β) interval for ratios on the normal
// quantile (an odds ratio's, always), β ± q·SE for differences, with q
// the t quantile on the residual degrees of freedom when the engine's
// p-values are t-based (a Gaussian GLM), so that the interval excludes
// the null exactly when p < 0.05.
func (e *Estimand) coefficient(r *analysis.ModelResult, c analysis.Coef) (est, lo, hi float64) {
	q := stats.ZLevel(0.95)
	t := r.Stat == "t" && r.DFResidual > 0 && !math.IsInf(r.DFResidual, 0)
	if t {
		q = stats.TLevel(0.95, r.DFResidual)
	}
	switch {
	case e.ratio() && !t:
		return c.OR, c.ORLo, c.ORHi
	case e.ratio():
		return math.Exp(c.Estimate), math.Exp(c.Estimate - q*c.SE), math.Exp(c.Estimate + q*c.SE)
	}
	return c.Estimate, c.Estimate - q*c.SE, c.Estimate + q*c.SE
}

func orDefault[T ~string](s, d T) T {
	if s == "" {
		return d
	}
	return s
}

// engineKeys maps the spec fields that engine errors name
// (fieldtext.Rename) to the preregistration's keys that set them.
var engineKeys = map[string]string{
	"Outcome": "outcome", "Where": "where", "Weight": "estimand.weight",
	"Arm": "estimand.arm", "A": "estimand.a", "B": "estimand.b", "Base": "estimand.a", "Levels": "estimand.b",
	"PairBy": "estimand.pair_by", "PairedBy": "estimand.pair_by", "Test": "estimand.test", "Method": "estimand.method",
	"Cluster": "estimand.cluster", "Level": "estimand.level", "Margin": "rule.margin",
	"Family": "estimand.model", "Formula": "estimand.formula", "Group": "estimand.group", "Corr": "estimand.corr",
	"Refs": "estimand.refs", "R2": "estimand.r2",
	"Fit": "estimand.fit", "Link": "estimand.link", "Order": "estimand.order", "ML": "estimand.reml", "Cov": "estimand.cov",
}

// coefficientKeys are engineKeys for a coefficient, whose Family is its
// distribution (an odds ratio's, its model).
var coefficientKeys = func() map[string]string {
	k := maps.Clone(engineKeys)
	k["Family"] = "estimand.distribution"
	return k
}()

// specKeys returns the preregistration keys of the spec fields of an
// estimand of kind.
func specKeys(kind Kind) map[string]string {
	if kind == KindCoefficient {
		return coefficientKeys
	}
	return engineKeys
}

// engineReason is an engine error, in the preregistration's keys, as the
// reason a verdict is not computable.
func engineReason(err error, kind Kind) string {
	err = fieldtext.Rename(err, specKeys(kind))
	var se *analysis.SpecError
	if errors.As(err, &se) {
		return "the specification does not fit this ledger: " + err.Error()
	}
	return err.Error()
}

// diffResult is a difference of two rates on (clustered) effective sizes.
type diffResult struct {
	pa, pb, neffA, neffB float64
	na, nb               int64
	icc                  float64
	diff, lo, hi, se     float64 // percentage points
	warnings             []analysis.Warning
}

// rateDiff is p_A − p_B with its Wald interval (stats.RateDiffWald) on the
// effective sample sizes the engine's Rates reports: Kish's, divided with
// a cluster by the design effect of the pooled one-way ICC
// (docs/methods.md, Clustered effective sample size).
func rateDiff(q analysis.Query, outcome string, e Estimand, z float64) (*diffResult, error) {
	r, err := analysis.Rates(q, analysis.RatesSpec{Outcome: outcome, By: []string{e.Arm}, Cluster: e.Cluster})
	if err != nil {
		return nil, err
	}
	d := &diffResult{icc: r.ICC, warnings: r.Warnings}
	var okA, okB bool
	for _, row := range r.Rows {
		switch row.Levels[0] {
		case e.A:
			d.pa, d.neffA, d.na, okA = row.P, row.NEff, row.N, true
		case e.B:
			d.pb, d.neffB, d.nb, okB = row.P, row.NEff, row.N, true
		}
	}
	if !okA || !okB {
		missing := e.A
		if okA {
			missing = e.B
		}
		var have []string
		for _, row := range r.Rows {
			have = append(have, row.Levels[0])
		}
		return nil, fmt.Errorf("no episode with %s = %s in the population (levels: %s)", e.Arm, missing, strings.Join(have, ", "))
	}
	diff, se := stats.RateDiffWald(d.pa, d.neffA, d.pb, d.neffB)
	d.diff, d.se = 100*diff, 100*se
	d.lo, d.hi = stats.WaldInterval(d.diff, d.se, z)
	return d, nil
}

func (d *diffResult) extra(e Estimand) []Stat {
	s := []Stat{
		{Name: "rate_pct_" + e.A, Value: 100 * d.pa, Lo: nan, Hi: nan, P: nan, N: d.na},
		{Name: "rate_pct_" + e.B, Value: 100 * d.pb, Lo: nan, Hi: nan, P: nan, N: d.nb},
	}
	if e.Cluster != "" {
		s = append(s, Stat{Name: "icc", Value: d.icc, Lo: nan, Hi: nan, P: nan, N: d.na + d.nb})
	}
	return s
}

// tostP is the TOST p-value of the difference with the Wald statistic
// (stats.TOSTWaldP), margin in percentage points.
func (d *diffResult) tostP(margin float64) float64 {
	return stats.TOSTWaldP(d.diff, d.se, margin)
}

// holds reports whether v lies on the direction's side of bound.
func holds(dir Direction, v, bound float64) bool {
	switch dir {
	case Above:
		return v > bound
	case AtLeast:
		return v >= bound
	case Below:
		return v < bound
	case AtMost:
		return v <= bound
	}
	return false
}

// opposite is the direction whose truth rules a prediction out.
func opposite(dir Direction) Direction {
	return map[Direction]Direction{Above: AtMost, AtLeast: Below, Below: AtLeast, AtMost: Above}[dir]
}

// decide applies a rule to a computed part.
func decide(r *Rule, pr *PartResult) (verdict Verdict, reason string) {
	s := pr.Estimate
	need := []float64{s.Value}
	if r.Direction != Equivalent {
		need = append(need, pr.Bound)
	}
	switch r.Use {
	case UseInterval:
		need = append(need, s.Lo, s.Hi)
	case UseTest:
		need = append(need, s.P)
	}
	for _, x := range need {
		if math.IsNaN(x) {
			return NotComputable, "the estimate or its interval or p-value is undefined on these data"
		}
	}
	switch {
	case r.Direction == Equivalent:
		m := r.Margin
		switch {
		case s.Lo > -m && s.Hi < m:
			return Supported, ""
		case s.Lo >= m || s.Hi <= -m:
			return NotSupported, ""
		}
		return Inconclusive, ""
	case r.Use == UsePoint:
		if holds(r.Direction, s.Value, pr.Bound) {
			return Supported, ""
		}
		return NotSupported, ""
	case r.Use == UseInterval:
		lo, hi := s.Lo, s.Hi
		if r.Direction == Below || r.Direction == AtMost {
			lo, hi = hi, lo // the near end of the interval decides
		}
		switch {
		case holds(r.Direction, lo, pr.Bound):
			return Supported, ""
		case holds(opposite(r.Direction), hi, pr.Bound):
			return NotSupported, ""
		}
		return Inconclusive, ""
	}
	// UseTest
	if r.Direction == Different {
		if s.P < r.Alpha {
			return Supported, ""
		}
		return Inconclusive, ""
	}
	switch {
	case holds(r.Direction, s.Value, pr.Bound) && s.P < r.Alpha:
		return Supported, ""
	case !holds(r.Direction, s.Value, pr.Bound):
		return NotSupported, ""
	}
	return Inconclusive, ""
}

// combine gives the hypothesis's verdict from its ruled parts.
func combine(h *Hypothesis, parts []*PartResult) (verdict Verdict, reason string) {
	var s, ns, inc int
	for _, pr := range parts {
		if pr.part.Rule == nil {
			continue
		}
		switch pr.Verdict {
		case NotComputable:
			if pr.part.IfNotComputable != "not_supported" {
				return NotComputable, partLabel(pr) + ": " + pr.Reason
			}
			ns++
		case Supported:
			s++
		case NotSupported:
			ns++
		default:
			inc++
		}
	}
	if h.Combine == "partial" {
		switch {
		case ns == 0 && inc == 0:
			return Supported, ""
		case s == 0 && inc == 0:
			return NotSupported, ""
		case s > 0:
			return PartlySupport, ""
		}
		return Inconclusive, ""
	}
	switch {
	case ns > 0:
		return NotSupported, ""
	case inc > 0:
		return Inconclusive, ""
	}
	return Supported, ""
}

// Label names the part in messages: its name (its kind when unnamed) and,
// for one level of its for_each column, "[column=level]".
func (pr *PartResult) Label() string { return partLabel(pr) }

func partLabel(pr *PartResult) string {
	l := pr.Name
	if l == "" {
		l = string(pr.Kind)
	}
	if pr.Level != "" {
		l += " [" + pr.part.ForEach + "=" + pr.Level + "]"
	}
	return l
}

// String is the rule in words.
func (r *Rule) String(kind Kind) string {
	var b strings.Builder
	unit := map[Kind]string{KindRate: "%", KindShapley: "%", KindRateDiff: " pp", KindTOST: " pp"}[kind]
	bound := fmt.Sprintf("%g%s", r.Bound, unit)
	if r.CompareTo != "" {
		bound = "the share of " + r.CompareTo
	}
	words := map[Direction]string{Above: ">", AtLeast: "≥", Below: "<", AtMost: "≤"}
	switch {
	case r.Direction == Equivalent:
		fmt.Fprintf(&b, "supported iff the %g%% interval lies inside ±%g pp; not supported iff entirely outside; else inconclusive", 100*(1-2*r.Alpha), r.Margin)
	case r.Use == UsePoint:
		fmt.Fprintf(&b, "supported iff the estimate %s %s, else not supported", words[r.Direction], bound)
	case r.Use == UseInterval:
		fmt.Fprintf(&b, "supported iff the interval lies %s %s; not supported iff it lies %s it; else inconclusive", words[r.Direction], bound, words[opposite(r.Direction)])
	case r.Direction == Different:
		fmt.Fprintf(&b, "supported iff p < %g (two-sided against %s); else inconclusive", r.Alpha, bound)
	default:
		sided := ""
		if r.Sides == 1 {
			sided = "one-sided "
		}
		fmt.Fprintf(&b, "supported iff the estimate %s %s with %sp < %g; not supported iff it is not; else inconclusive", words[r.Direction], bound, sided, r.Alpha)
	}
	return b.String()
}

// forEachLevels lists the levels of a part's for_each column among the
// episodes where keeps, with the episodes of each (all of them, for the
// engine to filter by where again).
func forEachLevels(d *table.Data, where, col string) ([]string, [][]int32, error) {
	w, err := formula.ParseWhere(where)
	if err != nil {
		return nil, nil, fmt.Errorf("for_each: %w", err)
	}
	keep, _, err := d.Keep(w)
	if err != nil {
		return nil, nil, fmt.Errorf("for_each: %w", err)
	}
	lv, _, _, err := d.Levels(keep, col)
	if err != nil {
		return nil, nil, fmt.Errorf("for_each: %w", err)
	}
	all, byAll, _, _ := d.Levels(nil, col)
	subsets := make([][]int32, len(lv))
	for k, l := range lv {
		if j, ok := slices.BinarySearch(all, l); ok {
			subsets[k] = byAll[j]
		}
	}
	return lv, subsets, nil
}
