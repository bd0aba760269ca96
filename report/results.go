package report

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/ledger"
)

// The layouts of the analysis commands' results. Per column, proportions
// (rates' p, lo, hi; tost's diff and intervals) stay proportions and
// paired's gain_pp and shapley's share are percentage points and percent,
// as their names say; Tables 3–13 print percent.

type rateRowJSON struct {
	Group  orderedObject `json:"group"`
	N      int64         `json:"n"`
	Events int64         `json:"events"`
	P      jnum          `json:"p"`
	NEff   jnum          `json:"n_eff"`
	Lo     jnum          `json:"lo"`
	Hi     jnum          `json:"hi"`
	Boot   *bootJSON     `json:"boot,omitempty"`
}

type ratesJSON struct {
	Rows      []rateRowJSON      `json:"rows"`
	ICC       jnum               `json:"icc"`
	Bootstrap *bootstrapJSON     `json:"bootstrap,omitempty"`
	Warnings  []analysis.Warning `json:"warnings"`
}

// typedLevel renders a level of a column of kind k as a JSON value of its
// kind.
func typedLevel(k ledger.Kind, level string) json.RawMessage {
	switch k {
	case ledger.KindBool, ledger.KindInt, ledger.KindFloat:
		if json.Valid([]byte(level)) {
			return json.RawMessage(level)
		}
	}
	b, _ := json.Marshal(level)
	return b
}

// groupHeader is the header of a grouped result (rates, means): the by
// columns, or "group" without any, then cols.
func groupHeader(by []string, cols ...string) []string {
	if len(by) == 0 {
		return append([]string{"group"}, cols...)
	}
	return append(slices.Clone(by), cols...)
}

// groupRow is the start of a grouped result's row: the JSON object of
// its levels (each of its column's kind) and the cells under groupHeader's
// by columns ("all" without any).
func groupRow(by []string, kinds []ledger.Kind, levels []string) (orderedObject, []any) {
	obj := orderedObject{keys: []string{}, vals: []json.RawMessage{}}
	var cells []any
	for j, col := range by {
		obj.keys = append(obj.keys, col)
		obj.vals = append(obj.vals, typedLevel(kinds[j], levels[j]))
		cells = append(cells, levels[j])
	}
	if len(by) == 0 {
		cells = append(cells, "all")
	}
	return obj, cells
}

// Rates lays out a Rates result: one row per group.
func Rates(r *analysis.RatesResult) *Output {
	by := r.Spec.By
	res := ratesJSON{ICC: jnum(r.ICC), Bootstrap: bootstrapOf(r.Bootstrap), Warnings: r.Warnings}
	cols := []string{"n", "events", "p", "n_eff", "lo", "hi"}
	if r.Spec.Cluster != "" {
		cols = append(cols, "icc")
	}
	t := &Grid{Header: groupHeader(by, cols...)}
	csvT := t
	if r.Bootstrap != nil {
		t = &Grid{Header: append(slices.Clone(t.Header), "boot_lo", "boot_hi")}
		csvT = &Grid{Header: append(slices.Clone(csvT.Header), bootCSVHeader...)}
	}
	for _, g := range r.Rows {
		obj, cells := groupRow(by, r.Kinds, g.Levels)
		res.Rows = append(res.Rows, rateRowJSON{Group: obj, N: g.N, Events: g.Events, P: jnum(g.P), NEff: jnum(g.NEff), Lo: jnum(g.Lo), Hi: jnum(g.Hi), Boot: bootOf(g.Boot, 1)})
		cells = append(cells, g.N, g.Events, g.P, g.NEff, g.Lo, g.Hi)
		if r.Spec.Cluster != "" {
			cells = append(cells, r.ICC)
		}
		if r.Bootstrap != nil {
			lo, hi := g.Boot.Bounds(r.Bootstrap.Interval)
			csvT.Add(append(slices.Clone(cells), bootCSV(g.Boot, 1)...)...)
			cells = append(cells, lo, hi)
		}
		t.Add(cells...)
	}
	var title []string
	if r.Spec.Cluster != "" {
		title = append(title, fmt.Sprintf("ICC (%s) = %s", r.Spec.Cluster, TextCell(r.ICC, 4)))
	}
	if r.Bootstrap != nil {
		title = append(title, bootLine(r.Bootstrap))
	}
	return &Output{Value: res, CSV: csvT, Title: title, Tables: []*Grid{t}, Warnings: warningTexts(r.Warnings)}
}

type comparisonJSON struct {
	Base   string `json:"base"`
	Other  string `json:"other"`
	Pairs  int    `json:"pairs"`
	B      int    `json:"b"`
	C      int    `json:"c"`
	GainPP jnum   `json:"gain_pp"`
	P      jnum   `json:"p"`
	PAdj   jnum   `json:"p_adj"`
	// Log10P and Log10PAdj are log₁₀ of p and p_adj, finite where the
	// p-value underflowed and p (p_adj) is the bound 1e-300.
	Log10P    jnum      `json:"log10_p"`
	Log10PAdj jnum      `json:"log10_p_adj"`
	GainBoot  *bootJSON `json:"gain_pp_boot,omitempty"`
}

type pairedJSON struct {
	Test        string             `json:"test"`
	Adjust      string             `json:"adjust"`
	Comparisons []comparisonJSON   `json:"comparisons"`
	Bootstrap   *bootstrapJSON     `json:"bootstrap,omitempty"`
	Warnings    []analysis.Warning `json:"warnings"`
}

// Paired lays out a Paired result: one row per comparison. A p-value that
// underflowed prints as PBound for people; CSV and JSON carry the bound
// 1e-300 (never 0) and log10_p, log10_p_adj beside p and p_adj.
func Paired(r *analysis.PairedResult) *Output {
	if r.Differences != nil {
		return pairedDifferences(r)
	}
	s := r.Spec
	res := pairedJSON{Test: string(s.Test), Adjust: string(s.Adjust), Bootstrap: bootstrapOf(r.Bootstrap), Warnings: r.Warnings}
	head := []string{"base", "other", "pairs", "b", "c", "gain_pp", "p", "p_adj"}
	t, _ := bootGrids(head, r.Bootstrap)
	csvT, _ := bootGrids(append(slices.Clone(head), "log10_p", "log10_p_adj"), nil)
	if r.Bootstrap != nil {
		_, csvT = bootGrids(csvT.Header, r.Bootstrap)
	}
	for _, c := range r.Comparisons {
		res.Comparisons = append(res.Comparisons, comparisonJSON{c.Base, c.Other, c.Pairs, c.B, c.C, jnum(c.GainPP), jnum(c.P), jnum(c.PAdj), jnum(c.Log10P), jnum(c.Log10PAdj), bootOf(c.GainBoot, 1)})
		text := []any{c.Base, c.Other, c.Pairs, c.B, c.C, PP(c.GainPP), pCell(c.P, c.PBelow), pCell(c.PAdj, c.PAdjBelow)}
		csv := []any{c.Base, c.Other, c.Pairs, c.B, c.C, PP(c.GainPP), P(c.P), P(c.PAdj), c.Log10P, c.Log10PAdj}
		if r.Bootstrap == nil {
			csvT.Add(csv...)
		}
		addBootRow(t, csvT, text, csv, c.GainBoot, r.Bootstrap, true)
	}
	title := []string{fmt.Sprintf("%s: %s vs each other %s, McNemar %s, %s adjustment", s.Outcome, s.Base, s.Arm, s.Test, s.Adjust)}
	if r.Bootstrap != nil {
		title = append(title, bootLine(r.Bootstrap))
	}
	return &Output{Value: res, CSV: csvT, Title: title, Tables: []*Grid{t}, Warnings: warningTexts(r.Warnings)}
}

// pCell is a p-value grid cell: P, or PBelow when it is a bound.
func pCell(p float64, below bool) any {
	if below {
		return PBelow(p)
	}
	return P(p)
}

type tostJSON struct {
	A          string             `json:"a"`
	B          string             `json:"b"`
	NA         int                `json:"n_a"`
	NB         int                `json:"n_b"`
	Pairs      *int               `json:"pairs,omitempty"`
	Margin     float64            `json:"margin"`
	Diff       jnum               `json:"diff"`
	CI90       [2]jnum            `json:"ci90"`
	Method     string             `json:"method"`
	PLower     jnum               `json:"p_lower"`
	PUpper     jnum               `json:"p_upper"`
	PTOST      jnum               `json:"p_tost"`
	Equivalent bool               `json:"equivalent"`
	Newcombe90 [2]jnum            `json:"newcombe90"`
	Warnings   []analysis.Warning `json:"warnings"`
}

// TOST lays out a TOST result: one row, shown as field/value for people.
func TOST(r *analysis.TOSTResult) *Output {
	s := r.Spec
	res := tostJSON{A: s.A, B: s.B, NA: r.NA, NB: r.NB, Margin: s.Margin, Diff: jnum(r.Diff),
		CI90: [2]jnum{jnum(r.Lo90), jnum(r.Hi90)}, Method: r.Method, PLower: jnum(r.PLower), PUpper: jnum(r.PUpper),
		PTOST: jnum(r.PTOST), Equivalent: r.Equivalent, Newcombe90: [2]jnum{jnum(r.NewcombeLo), jnum(r.NewcombeHi)}, Warnings: r.Warnings}
	if len(s.PairedBy) > 0 {
		n := r.Pairs
		res.Pairs = &n
	}
	t := &Grid{Header: []string{"a", "b", "n_a", "n_b", "diff", "ci90_lo", "ci90_hi", "method", "p_lower", "p_upper", "p_tost", "equivalent", "newcombe90_lo", "newcombe90_hi"}}
	t.Add(s.A, s.B, r.NA, r.NB, r.Diff, r.Lo90, r.Hi90, r.Method, P(r.PLower), P(r.PUpper), P(r.PTOST), r.Equivalent, r.NewcombeLo, r.NewcombeHi)
	tr := &Grid{Header: []string{"field", "value"}}
	for j, h := range t.Header {
		tr.Add(h, t.Rows[0][j])
	}
	title := []string{fmt.Sprintf("%s: %s = %s vs %s, margin ±%v", s.Outcome, s.Arm, s.A, s.B, s.Margin)}
	return &Output{Value: res, CSV: t, Title: title, Tables: []*Grid{tr}, Warnings: warningTexts(r.Warnings)}
}

type coefJSON struct {
	Term     string `json:"term"`
	Estimate jnum   `json:"estimate"`
	SE       jnum   `json:"se"`
	Z        jnum   `json:"z"`
	P        jnum   `json:"p"`
	OR       jnum   `json:"or"`
	ORLo     jnum   `json:"or_lo"`
	ORHi     jnum   `json:"or_hi"`
}

type randomJSON struct {
	Group  string `json:"group"`
	SD     jnum   `json:"sd"`
	Levels int    `json:"levels"`
}

type modelJSON struct {
	Family       string             `json:"family"`
	Formula      string             `json:"formula"`
	N            int64              `json:"n"`
	Converged    bool               `json:"converged"`
	Coefficients []coefJSON         `json:"coefficients"`
	Alpha        jnum               `json:"alpha"`
	Random       []randomJSON       `json:"random,omitempty"`
	LogLik       *jnum              `json:"loglik,omitempty"`
	Singular     *bool              `json:"singular,omitempty"`
	Clusters     int                `json:"clusters,omitempty"`
	Warnings     []analysis.Warning `json:"warnings"`
}

// Model lays out a Model result: the coefficients (CSV: then alpha for
// GEE, the random-effect SDs as sd(1|g) rows for a GLMM).
func Model(r *analysis.ModelResult) *Output {
	if r.Fit != "" {
		return modelFamily(r)
	}
	s := r.Spec
	res := modelJSON{Family: string(s.Family), Formula: r.Formula, N: r.N, Converged: r.Converged, Alpha: jnum(r.Alpha), Clusters: r.Clusters, Warnings: r.Warnings}
	t := &Grid{Header: []string{"term", "estimate", "se", "z", "p", "or", "or_lo", "or_hi"}}
	for _, c := range r.Coefficients {
		res.Coefficients = append(res.Coefficients, coefJSON{c.Term, jnum(c.Estimate), jnum(c.SE), jnum(c.Z), jnum(c.P), jnum(c.OR), jnum(c.ORLo), jnum(c.ORHi)})
		t.Add(c.Term, c.Estimate, c.SE, c.Z, P(c.P), c.OR, c.ORLo, c.ORHi)
	}
	title := []string{fmt.Sprintf("%s: %s", s.Family, r.Formula), fmt.Sprintf("n = %d, converged = %v", r.N, r.Converged)}
	if s.Family != "gee" {
		ll := jnum(r.LogLik)
		res.LogLik = &ll
		title[1] += ", loglik = " + TextCell(r.LogLik, 8)
	}
	tables := []*Grid{t}
	csvT := t
	switch s.Family {
	case "gee":
		title[1] += fmt.Sprintf(", clusters = %d, alpha = %s (%s, %s SE)", r.Clusters, TextCell(r.Alpha, 4), string(s.Corr), string(s.Cov))
		// CSV has one table: the working correlation follows as a row.
		csvT = &Grid{Header: t.Header, Rows: slices.Clone(t.Rows)}
		csvT.Add("alpha", r.Alpha, nil, nil, nil, nil, nil, nil)
	case "glmm":
		sing := r.Singular
		res.Singular = &sing
		csvT = &Grid{Header: t.Header, Rows: slices.Clone(t.Rows)}
		rt := &Grid{Header: []string{"group", "sd", "levels"}}
		for _, g := range r.Random {
			res.Random = append(res.Random, randomJSON{g.Group, jnum(g.SD), g.Levels})
			csvT.Add("sd(1|"+g.Group+")", g.SD, nil, nil, nil, nil, nil, nil)
			rt.Add(g.Group, g.SD, g.Levels)
		}
		title[1] += fmt.Sprintf(", singular = %v", r.Singular)
		tables = append(tables, rt)
	}
	return &Output{Value: res, CSV: csvT, Title: title, Tables: tables, Warnings: warningTexts(r.Warnings)}
}

type familyCoefJSON struct {
	Term     string `json:"term"`
	Estimate jnum   `json:"estimate"`
	SE       jnum   `json:"se"`
	Stat     jnum   `json:"statistic"`
	P        jnum   `json:"p"`
	Exp      *jnum  `json:"exp,omitempty"`
	ExpLo    *jnum  `json:"exp_lo,omitempty"`
	ExpHi    *jnum  `json:"exp_hi,omitempty"`
}

type familyJSON struct {
	Fit           string             `json:"fit"`
	Family        string             `json:"family"`
	Link          string             `json:"link"`
	Formula       string             `json:"formula"`
	N             int64              `json:"n"`
	NObs          jnum               `json:"nobs"`
	Converged     bool               `json:"converged"`
	Statistic     string             `json:"statistic"`
	Exp           string             `json:"exp,omitempty"`
	Coefficients  []familyCoefJSON   `json:"coefficients"`
	Dispersion    jnum               `json:"dispersion"`
	ResidualSD    jnum               `json:"residual_sd"`
	Deviance      jnum               `json:"deviance"`
	NullDeviance  jnum               `json:"null_deviance"`
	DFResidual    jnum               `json:"df_residual"`
	LogLik        jnum               `json:"loglik"`
	AIC           jnum               `json:"aic"`
	BIC           jnum               `json:"bic"`
	Group         string             `json:"group,omitempty"`
	Corr          string             `json:"corr,omitempty"`
	Cov           string             `json:"cov,omitempty"`
	Convention    string             `json:"convention,omitempty"`
	Order         string             `json:"order,omitempty"`
	Alpha         jnum               `json:"alpha"`
	Clusters      int                `json:"clusters,omitempty"`
	RandomEffects []randomEffectJSON `json:"random,omitempty"`
	REML          bool               `json:"reml,omitempty"`
	REMLCrit      jnum               `json:"remlcrit"`
	Singular      *bool              `json:"singular,omitempty"`
	Warnings      []analysis.Warning `json:"warnings"`
}

type randomEffectJSON struct {
	Group  string `json:"group"`
	Effect string `json:"effect"`
	SD     jnum   `json:"sd"`
	Corr   []jnum `json:"corr,omitempty"`
	Levels int    `json:"levels"`
}

// expName names exp(estimate) of a family and link: the odds ratio of a
// logit model, the rate ratio of a log-link Poisson model ("" otherwise).
func expName(r *analysis.ModelResult) string {
	switch {
	case r.Link == "logit":
		return "or"
	case r.Link == "log" && r.Family == "poisson":
		return "rr"
	case r.Link == "log":
		return "ratio"
	}
	return ""
}

// modelFamily lays out a model with families: the coefficients (with
// exp(estimate) and its interval for logit and log links), then the fit's
// dispersion, residual SD, log-likelihood, AIC and BIC (text: title
// lines; CSV: rows after the coefficients; JSON: every number).
func modelFamily(r *analysis.ModelResult) *Output {
	s := r.Spec
	ex := expName(r)
	res := familyJSON{Fit: string(r.Fit), Family: string(r.Family), Link: string(r.Link), Formula: r.Formula, N: r.N, NObs: jnum(r.NObs),
		Converged: r.Converged, Statistic: r.Stat, Exp: ex, Dispersion: jnum(r.Dispersion), ResidualSD: jnum(r.ResidualSD),
		Deviance: jnum(r.Deviance), NullDeviance: jnum(r.NullDeviance), DFResidual: jnum(r.DFResidual), LogLik: jnum(r.LogLik),
		AIC: jnum(r.AIC), BIC: jnum(r.BIC), Alpha: jnum(r.Alpha), Clusters: r.Clusters, Warnings: r.Warnings}
	header := []string{"term", "estimate", "se", r.Stat, "p"}
	if ex != "" {
		header = append(header, ex, ex+"_lo", ex+"_hi")
	}
	t := &Grid{Header: header}
	for _, c := range r.Coefficients {
		cj := familyCoefJSON{Term: c.Term, Estimate: jnum(c.Estimate), SE: jnum(c.SE), Stat: jnum(c.Z), P: jnum(c.P)}
		row := []any{c.Term, c.Estimate, c.SE, c.Z, P(c.P)}
		if ex != "" {
			e, lo, hi := jnum(c.OR), jnum(c.ORLo), jnum(c.ORHi)
			cj.Exp, cj.ExpLo, cj.ExpHi = &e, &lo, &hi
			row = append(row, c.OR, c.ORLo, c.ORHi)
		}
		res.Coefficients = append(res.Coefficients, cj)
		t.Add(row...)
	}
	tables := []*Grid{t}
	title := []string{fmt.Sprintf("%s %s (%s link): %s", r.Fit, r.Family, r.Link, r.Formula),
		fmt.Sprintf("n = %d, converged = %v", r.N, r.Converged)}
	extra := [][2]any{}
	add := func(name string, v float64) {
		if !math.IsNaN(v) {
			extra = append(extra, [2]any{name, v})
		}
	}
	switch r.Fit {
	case analysis.FitGLM:
		fit := fmt.Sprintf("dispersion = %s", TextCell(r.Dispersion, 6))
		if !math.IsNaN(r.ResidualSD) {
			fit += fmt.Sprintf(", residual SD = %s on %s df", TextCell(r.ResidualSD, 6), TextCell(r.DFResidual, 6))
		}
		title = append(title, fit, fmt.Sprintf("deviance = %s, null deviance = %s, loglik = %s, AIC = %s, BIC = %s",
			TextCell(r.Deviance, 8), TextCell(r.NullDeviance, 8), TextCell(r.LogLik, 8), TextCell(r.AIC, 8), TextCell(r.BIC, 8)))
		add("dispersion", r.Dispersion)
		add("residual_sd", r.ResidualSD)
		add("deviance", r.Deviance)
		add("null_deviance", r.NullDeviance)
		add("df_residual", r.DFResidual)
		add("loglik", r.LogLik)
		add("aic", r.AIC)
		add("bic", r.BIC)
	case analysis.FitGEE:
		res.Group, res.Corr, res.Cov, res.Convention, res.Order = s.Group, string(s.Corr), string(s.Cov), string(s.Convention), s.Order
		line := fmt.Sprintf("clusters = %d (%s), %s working correlation", r.Clusters, s.Group, s.Corr)
		if !math.IsNaN(r.Alpha) {
			line += " alpha = " + TextCell(r.Alpha, 6)
		}
		line += fmt.Sprintf(", scale = %s, %s SE (%s convention)", TextCell(r.Dispersion, 6), s.Cov, s.Convention)
		if !math.IsNaN(r.ResidualSD) {
			line += ", residual SD = " + TextCell(r.ResidualSD, 6)
		}
		title = append(title, line)
		add("alpha", r.Alpha)
		add("scale", r.Dispersion)
		add("residual_sd", r.ResidualSD)
	case analysis.FitGLMM:
		sing := r.Singular
		res.Singular = &sing
		crit := ""
		if r.REML {
			crit = "REML criterion = " + TextCell(r.REMLCrit, 8) + ", "
		}
		title = append(title, fmt.Sprintf("%sloglik = %s, AIC = %s, BIC = %s, singular = %v", crit, TextCell(r.LogLik, 8), TextCell(r.AIC, 8), TextCell(r.BIC, 8), r.Singular))
		// The random part as lme4's summary lays it out.
		rt := &Grid{Header: []string{"group", "effect", "variance", "sd", "corr", "levels"}}
		for _, g := range r.Random {
			corr := make([]jnum, len(g.Corr))
			cs := make([]string, len(g.Corr))
			for i, c := range g.Corr {
				corr[i], cs[i] = jnum(c), TextCell(c, 3)
			}
			res.RandomEffects = append(res.RandomEffects, randomEffectJSON{g.Group, g.Effect, jnum(g.SD), corr, g.Levels})
			rt.Add(g.Group, g.Effect, g.SD*g.SD, g.SD, strings.Join(cs, " "), g.Levels)
			add("sd("+g.Effect+"|"+g.Group+")", g.SD)
		}
		if !math.IsNaN(r.ResidualSD) {
			rt.Add("Residual", "", r.ResidualSD*r.ResidualSD, r.ResidualSD, "", "")
			add("residual_sd", r.ResidualSD)
		}
		res.REML, res.REMLCrit = r.REML, jnum(r.REMLCrit)
		add("remlcrit", r.REMLCrit)
		add("loglik", r.LogLik)
		add("aic", r.AIC)
		add("bic", r.BIC)
		tables = append(tables, rt)
	}
	csvT := &Grid{Header: t.Header, Rows: slices.Clone(t.Rows)}
	for _, e := range extra {
		row := make([]any, len(header))
		row[0], row[1] = e[0], e[1]
		csvT.Add(row...)
	}
	return &Output{Value: res, CSV: csvT, Title: title, Tables: tables, Warnings: warningTexts(r.Warnings)}
}

type shapleyFactorJSON struct {
	Name        string    `json:"name"`
	Value       jnum      `json:"value"`
	Share       jnum      `json:"share"`
	Conditional []jnum    `json:"conditional"`
	ShareBoot   *bootJSON `json:"share_boot,omitempty"`
}

type shapleyJSON struct {
	R2        string              `json:"r2"`
	N         int64               `json:"n"`
	Total     jnum                `json:"total"`
	Factors   []shapleyFactorJSON `json:"factors"`
	TotalBoot *bootJSON           `json:"total_boot,omitempty"`
	Bootstrap *bootstrapJSON      `json:"bootstrap,omitempty"`
	Warnings  []analysis.Warning  `json:"warnings"`
}

// Shapley lays out a Shapley decomposition: terms in formula order (CSV,
// JSON), largest share first and then the total for people.
func Shapley(r *analysis.ShapleyDecomposition) *Output {
	res := shapleyJSON{R2: string(r.Spec.R2), N: r.N, Total: jnum(r.Total), TotalBoot: bootOf(r.TotalBoot, 1), Bootstrap: bootstrapOf(r.Bootstrap), Warnings: r.Warnings}
	t := &Grid{Header: []string{"name", "value", "share"}}
	text, csvT := bootGrids(t.Header, r.Bootstrap)
	if r.Bootstrap == nil {
		csvT = t
	}
	for _, f := range r.Terms {
		fac := shapleyFactorJSON{Name: f.Name, Value: jnum(f.Value), Share: jnum(f.Share), ShareBoot: bootOf(f.ShareBoot, 1)}
		for _, c := range f.Conditional {
			fac.Conditional = append(fac.Conditional, jnum(c))
		}
		res.Factors = append(res.Factors, fac)
		t.Add(f.Name, f.Value, f.Share)
		if r.Bootstrap != nil {
			addBootRow(text, csvT, []any{f.Name, f.Value, f.Share}, []any{f.Name, f.Value, f.Share}, f.ShareBoot, r.Bootstrap, false)
		}
	}
	if r.Bootstrap == nil {
		text = &Grid{Header: t.Header, Rows: slices.Clone(t.Rows)}
	}
	slices.SortStableFunc(text.Rows, func(a, b []any) int {
		return cmp.Compare(b[1].(float64), a[1].(float64))
	})
	title := []string{fmt.Sprintf("%s pseudo-R² of %s (n = %d)", r.Spec.R2, r.Formula, r.N)}
	if r.Bootstrap != nil {
		// The total's interval is of the pseudo-R², not of a share.
		lo, hi := r.TotalBoot.Bounds(r.Bootstrap.Interval)
		text.Add("total", r.Total, 100.0, nil, nil)
		csvT.Add(append([]any{"total", r.Total, 100.0}, bootCSV(r.TotalBoot, 1)...)...)
		title = append(title, bootLine(r.Bootstrap)+fmt.Sprintf("; boot_lo and boot_hi are the shares'; the total's is [%s, %s]", TextCell(lo, 4), TextCell(hi, 4)))
	} else {
		text.Add("total", r.Total, 100.0)
	}
	return &Output{Value: res, CSV: csvT, Title: title, Tables: []*Grid{text}, Warnings: warningTexts(r.Warnings)}
}
