package analysis

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// Verdicts of a preregistered rule.
const (
	Supported      = "supported"
	NotSupported   = "not supported"
	Inconclusive   = "inconclusive"
	PartlySupport  = "partly supported"
	NotComputable  = "not computable"
	h4Margin       = 0.05 // TOST margin (proportion)
	h1MinRate      = 10.0 // percent
	h5MinShare     = 20.0 // percent
	h6MaxDup       = 2.0  // percent
	h6MaxTSLossPP  = 3.0
	h2MinHarness   = 10.0 // percent
	significanceLv = 0.05
)

// Stat is one named number behind a verdict.
type Stat struct {
	Name   string
	Value  float64
	Lo, Hi float64 // interval (95% unless the name says otherwise); NaN if none
	N      int
}

// Hypothesis is one preregistered hypothesis with its statistic and the
// verdict its rule gives.
type Hypothesis struct {
	ID         string
	Prediction string
	Rule       string // the preregistered decision rule, in words
	Result     string // the statistic as a person reads it
	Verdict    string
	Stats      []Stat
	Warnings   []string
}

func (h *Hypothesis) warnf(format string, args ...any) {
	h.Warnings = append(h.Warnings, fmt.Sprintf(format, args...))
}

func anyNaN(v ...float64) bool {
	for _, x := range v {
		if math.IsNaN(x) {
			return true
		}
	}
	return false
}

// VerdictH1: supported iff the eventual/missing duplicate rate is ≥ 10% and
// the GEE odds ratio against keyed ∪ strong writes exceeds 1 with p < .05;
// not supported if the rate is below 10% or the OR is ≤ 1.
func VerdictH1(ratePct, or, p float64) string {
	switch {
	case anyNaN(ratePct, or, p):
		return NotComputable
	case ratePct >= h1MinRate && or > 1 && p < significanceLv:
		return Supported
	case ratePct < h1MinRate || or <= 1:
		return NotSupported
	}
	return Inconclusive
}

// VerdictH2: part A (contract share > model share, pooled E1) and part B
// (harness share ≥ 10%, pooled E3): both → supported, neither → not
// supported, one → partly supported; NaN parts are not computable.
func VerdictH2(contract, model, harness float64) string {
	a := contract > model
	b := harness >= h2MinHarness
	switch {
	case anyNaN(contract, model) && math.IsNaN(harness):
		return NotComputable
	case anyNaN(contract, model):
		return NotComputable
	case math.IsNaN(harness):
		if a {
			return PartlySupport
		}
		return NotSupported
	case a && b:
		return Supported
	case !a && !b:
		return NotSupported
	}
	return PartlySupport
}

// VerdictH3: supported iff eventual > strong with GEE p < .05; not
// supported if eventual ≤ strong; inconclusive otherwise.
func VerdictH3(eventual, strong, p float64) string {
	switch {
	case anyNaN(eventual, strong, p):
		return NotComputable
	case eventual > strong && p < significanceLv:
		return Supported
	case eventual <= strong:
		return NotSupported
	}
	return Inconclusive
}

// VerdictH4 (prediction: no difference): supported iff the 90% interval of
// the difference lies inside (−5, +5) pp; not supported iff it lies
// entirely outside [−5, +5]; inconclusive otherwise. Arguments in pp.
func VerdictH4(lo90, hi90 float64) string {
	m := 100 * h4Margin
	switch {
	case anyNaN(lo90, hi90):
		return NotComputable
	case lo90 > -m && hi90 < m:
		return Supported
	case lo90 >= m || hi90 <= -m:
		return NotSupported
	}
	return Inconclusive
}

// VerdictH5: supported iff the 95% interval of the share of duplicate
// episodes reported completed without uncertainty lies at or above 20%;
// not supported iff it lies below; inconclusive otherwise.
func VerdictH5(lo, hi float64) string {
	switch {
	case anyNaN(lo, hi):
		return NotComputable
	case lo >= h5MinShare:
		return Supported
	case hi < h5MinShare:
		return NotSupported
	}
	return Inconclusive
}

// VerdictH6: supported iff in every harness the guard's duplicate rate is
// ≤ 2% and its TS loss against the native condition ≤ 3 pp.
func VerdictH6(dup, tsLoss []float64) string {
	if len(dup) == 0 {
		return NotComputable
	}
	for i := range dup {
		if anyNaN(dup[i], tsLoss[i]) {
			return NotComputable
		}
	}
	for i := range dup {
		if dup[i] > h6MaxDup || tsLoss[i] > h6MaxTSLossPP {
			return NotSupported
		}
	}
	return Supported
}

// binaryFit holds the odds ratio of a 0/1 exposure from GEE and GLMM.
type binaryFit struct {
	geeOR, geeLo, geeHi, geeP float64
	mixOR, mixLo, mixHi       float64
}

// exposureRow is an episode with the hypotheses' derived columns: the 0/1
// exposure and the 0/1 response.
type exposureRow struct {
	ep                 *ledger.Episode
	exposure, response float64
}

func (r exposureRow) Get(name string) (ledger.Value, bool) {
	switch name {
	case "exposure":
		return ledger.Value{Kind: ledger.KindFloat, Num: r.exposure}, true
	case "response":
		return ledger.Value{Kind: ledger.KindBool, Bool: r.response == 1}, true
	}
	return r.ep.Get(name)
}

// fitExposure fits logit P(y) = β₀ + β₁x with the engine's Model: GEE
// (exchangeable, robust, clusters = task template) and, when withMixed is
// set, a random-intercept GLMM (Laplace), returning exp(β₁) with 95% Wald
// intervals.
func fitExposure(eps []*ledger.Episode, x, y []float64, withMixed bool, h *Hypothesis) binaryFit {
	f := binaryFit{nan, nan, nan, nan, nan, nan, nan}
	if len(eps) == 0 {
		return f
	}
	rows := make([]frame.Row, len(eps))
	for i, e := range eps {
		rows[i] = exposureRow{e, x[i], y[i]}
	}
	q := Query{Rows: rows}
	exposure := func(r *ModelResult) (Coef, bool) {
		for _, c := range r.Coefficients {
			if c.Term == "exposure" {
				return c, true
			}
		}
		return Coef{}, false
	}
	gee := ModelSpec{Family: "gee", Formula: "response ~ exposure", Group: "template"}
	g, err := Model(q, gee)
	if err != nil {
		// An undefined exchangeable correlation (e.g. an outcome constant
		// within every cluster) leaves the independence working
		// correlation, whose robust SEs are still valid.
		h.warnf("exchangeable GEE failed (%v); independence working correlation used", strings.TrimPrefix(err.Error(), "GEE: "))
		gee.Corr = "independence"
		g, err = Model(q, gee)
	}
	if err != nil {
		h.warnf("GEE: %s", strings.TrimPrefix(err.Error(), "GEE: "))
	} else {
		for _, w := range g.Warnings {
			h.warnf("GEE: %s", w)
		}
		if c, ok := exposure(g); ok {
			f.geeOR, f.geeLo, f.geeHi, f.geeP = c.OR, c.ORLo, c.ORHi, c.P
		}
	}
	if withMixed {
		m, err := Model(q, ModelSpec{Family: "glmm", Formula: "response ~ exposure + (1|template)"})
		if err != nil {
			h.warnf("mixed-effects logit: %v", err)
		} else {
			for _, w := range m.Warnings {
				h.warnf("mixed-effects logit: %s", w)
			}
			if c, ok := exposure(m); ok {
				f.mixOR, f.mixLo, f.mixHi = c.OR, c.ORLo, c.ORHi
			}
		}
	}
	return f
}

// hypothesisColumns are the columns the hypotheses read.
var hypothesisColumns = tableColumns[12]

// Hypotheses evaluates H1–H6. shares is Table 4's decomposition (nil: it is
// computed here).
func Hypotheses(d *Data) ([]*Hypothesis, error) {
	if err := d.require("The hypotheses", hypothesisColumns); err != nil {
		return nil, err
	}
	_, shares, err := table4(d)
	if err != nil {
		return nil, err
	}
	return hypotheses(d, shares), nil
}

func hypotheses(d *Data, shares map[string]ShapleyResult) []*Hypothesis {
	e1 := d.filter(expIn("E1", "E1s"))
	return []*Hypothesis{h1(e1), h2(shares), h3(e1), h4(e1), h5(e1), h6(d)}
}

func h1(e1 []*ledger.Episode) *Hypothesis {
	h := &Hypothesis{
		ID:         "H1",
		Prediction: "Non-idempotent writes with an eventual or missing read path are duplicated in ≥ 10% of committed-fault episodes, more often than keyable or strongly verifiable writes",
		Rule:       "supported iff the eventual/missing duplicate rate ≥ 10% and the GEE odds ratio (exchangeable, clusters = template) against keyed ∪ strong writes is > 1 with p < .05; not supported if the rate < 10% or OR ≤ 1; else inconclusive",
	}
	var eps []*ledger.Episode
	var x, y []float64
	var k1, n1 float64
	for _, e := range e1 {
		if !e.FaultFired || !in(e.FaultMode, committedModes...) {
			continue
		}
		var xi float64
		switch e.WriteClass {
		case ledger.ClassEventual, ledger.ClassMissing:
			xi = 1
		case ledger.ClassKeyed, ledger.ClassStrong:
		default:
			continue
		}
		eps = append(eps, e)
		x = append(x, xi)
		y = append(y, dupOf(e))
		if xi == 1 {
			n1++
			k1 += dupOf(e)
		}
	}
	rate := nan
	if n1 > 0 {
		rate = 100 * k1 / n1
	}
	f := fitExposure(eps, x, y, true, h)
	h.Stats = []Stat{
		{Name: "dup_rate_eventual_missing", Value: rate, Lo: nan, Hi: nan, N: int(n1)},
		{Name: "mixed_or", Value: f.mixOR, Lo: f.mixLo, Hi: f.mixHi, N: len(eps)},
		{Name: "gee_or", Value: f.geeOR, Lo: f.geeLo, Hi: f.geeHi, N: len(eps)},
		{Name: "gee_p", Value: f.geeP, Lo: nan, Hi: nan, N: len(eps)},
	}
	h.Result = fmt.Sprintf("eventual/missing %s (n=%d); mixed-effects OR %s; GEE OR %s, p=%s",
		fmtPct1(rate), int(n1), fmtOR(f.mixOR, f.mixLo, f.mixHi), fmtOR(f.geeOR, f.geeLo, f.geeHi), fmtP(f.geeP))
	h.Verdict = VerdictH1(rate, f.geeOR, f.geeP)
	return h
}

func h2(shares map[string]ShapleyResult) *Hypothesis {
	h := &Hypothesis{
		ID:         "H2",
		Prediction: "The contract explains more variance than the model; the harness explains ≥ 10%",
		Rule:       "part A: contract share > model share (E1 pooled); part B: harness share ≥ 10% (E3 pooled); both → supported, neither → not supported, one → partly supported",
	}
	get := func(block, col, f string) float64 {
		r, ok := shares[block+"/"+col]
		if !ok {
			return nan
		}
		for i, k := range r.Factors {
			if k == f {
				return r.Shares[i]
			}
		}
		return nan
	}
	c, m, hs := get("E1", "pooled", "contract"), get("E1", "pooled", "model"), get("E3", "pooled", "harness")
	mr, cc := get("E1", "resolves", "model"), get("E1", "cannot", "contract")
	h.Stats = []Stat{
		{Name: "contract_share_pooled", Value: c, Lo: nan, Hi: nan},
		{Name: "model_share_pooled", Value: m, Lo: nan, Hi: nan},
		{Name: "harness_share_e3", Value: hs, Lo: nan, Hi: nan},
		{Name: "model_share_resolves", Value: mr, Lo: nan, Hi: nan},
		{Name: "contract_share_cannot", Value: cc, Lo: nan, Hi: nan},
	}
	h.Result = fmt.Sprintf("pooled shares: contract %s, model %s, harness %s (E3); stratified: model %s on resolvable faults, contract %s on unresolvable ones",
		pct(c), pct(m), pct(hs), pct(mr), pct(cc))
	h.Verdict = VerdictH2(c, m, hs)
	if math.IsNaN(hs) {
		h.warnf("no E3 decomposition: the harness part is not computable")
	}
	return h
}

func h3(e1 []*ledger.Episode) *Hypothesis {
	h := &Hypothesis{
		ID:         "H3",
		Prediction: "Given verification, eventual read paths yield more duplicates than strong ones",
		Rule:       "among verified episodes (read back, or escalated without a re-issue) with a resolvable committed fault, supported iff the eventual duplicate rate exceeds the strong one with GEE p < .05; not supported if it does not exceed it; else inconclusive",
	}
	var eps []*ledger.Episode
	var x, y []float64
	var kE, nE, kS, nS float64
	for _, e := range e1 {
		if !e.FaultFired || !in(e.FaultMode, ledger.FaultTimeoutPost, ledger.FaultHTTP500Post) {
			continue
		}
		// Verified = the agent did not re-issue blindly but checked. The
		// recovery label gives an escalated final report precedence over
		// how the agent got there (an agent that read back, skipped and
		// then escalated is labelled "escalate"), so escalations without
		// a re-issue count as verified: §4.3 conditions on verification,
		// not on the final report (paper-design §3.3: n = 947, a pooled
		// verification rate of 75–85%).
		if !in(e.Recovery, ledger.RecoveryVerifyThenRetry, ledger.RecoveryVerifyThenSkip, ledger.RecoveryWaitThenVerify, ledger.RecoveryEscalate) {
			continue
		}
		var xi float64
		switch e.WriteClass {
		case ledger.ClassEventual:
			xi = 1
			nE++
			kE += dupOf(e)
		case ledger.ClassStrong:
			nS++
			kS += dupOf(e)
		default:
			continue
		}
		eps = append(eps, e)
		x = append(x, xi)
		y = append(y, dupOf(e))
	}
	rE, rS := ratio(kE, nE), ratio(kS, nS)
	f := fitExposure(eps, x, y, false, h)
	h.Stats = []Stat{
		{Name: "dup_rate_eventual", Value: rE, Lo: nan, Hi: nan, N: int(nE)},
		{Name: "dup_rate_strong", Value: rS, Lo: nan, Hi: nan, N: int(nS)},
		{Name: "gee_or", Value: f.geeOR, Lo: f.geeLo, Hi: f.geeHi, N: len(eps)},
		{Name: "gee_p", Value: f.geeP, Lo: nan, Hi: nan, N: len(eps)},
	}
	h.Result = fmt.Sprintf("%s vs %s (n=%d), GEE p=%s", fmtPct1(rE), fmtPct1(rS), len(eps), fmtP(f.geeP))
	h.Verdict = VerdictH3(rE, rS, f.geeP)
	return h
}

func ratio(k, n float64) float64 {
	if n == 0 {
		return nan
	}
	return 100 * k / n
}

func h4(e1 []*ledger.Episode) *Hypothesis {
	h := &Hypothesis{
		ID:         "H4",
		Prediction: "Blind re-issue does not differ between irreversible and reversible writes (TOST, ±5 pp)",
		Rule:       "supported iff the 90% interval of the difference (irreversible − reversible; Wald on clustered n_eff) lies inside ±5 pp; not supported iff it lies entirely outside; else inconclusive",
	}
	// Faults the agent sees as an error (it may re-issue after them).
	var scope []*ledger.Episode
	for _, e := range e1 {
		if e.FaultFired && (strings.HasPrefix(e.FaultMode, "timeout_") || strings.HasPrefix(e.FaultMode, "http500_") || e.FaultMode == ledger.FaultPartialBatch) {
			scope = append(scope, e)
		}
	}
	blindOf := func(e *ledger.Episode) float64 { return b2f(e.Recovery == ledger.RecoveryBlindRetry) }
	// Like every interval of the paper, the difference's variance uses the
	// clustered n_eff (paper-design §2.4: pooled one-way ICC over template
	// clusters, Kish design effect per group). The paper's 90% interval
	// (−1.6 to +8.5 pp) is ≈ 2·5 pp wide, which the raw E1 counts (≈ 2,000
	// per group, half-width ≈ 1.5 pp) cannot give.
	reversible := func(e *ledger.Episode) string { return strconv.FormatBool(e.Reversible) }
	rates, rho, _ := clusteredRates(scope, rateCol{"blind", func(*ledger.Episode) bool { return true }, blindOf}, reversible, false)
	var p, neff [2]float64
	var g [2]struct{ n float64 }
	for j, key := range []string{"false", "true"} {
		p[j], neff[j] = nan, nan
		if r, ok := rates[key]; ok {
			p[j], neff[j], g[j].n = r.P, r.NEff, float64(r.N)
		}
	}
	r := tostWaldEff(p[0], neff[0], p[1], neff[1], h4Margin)
	n1, n2 := int(g[0].n), int(g[1].n)
	h.Stats = []Stat{
		{Name: "diff_pp", Value: 100 * r.diff, Lo: 100 * r.lo90, Hi: 100 * r.hi90, N: n1 + n2},
		{Name: "p_tost", Value: r.p, Lo: nan, Hi: nan, N: n1 + n2},
		{Name: "blind_irreversible", Value: 100 * p[0], Lo: nan, Hi: nan, N: n1},
		{Name: "blind_reversible", Value: 100 * p[1], Lo: nan, Hi: nan, N: n2},
		{Name: "icc", Value: rho, Lo: nan, Hi: nan, N: n1 + n2},
	}
	h.Result = fmt.Sprintf("difference %s pp, 90%% interval %s to %s pp (n=%d vs %d)", signed(100*r.diff), signed(100*r.lo90), signed(100*r.hi90), n1, n2)
	h.Verdict = VerdictH4(100*r.lo90, 100*r.hi90)
	return h
}

// tostResult is a TOST of p₁ − p₂ against ±margin.
type tostResult struct{ diff, lo90, hi90, p float64 }

// tostWaldEff is the Wald TOST of two independent proportions on effective
// sample sizes (methods.md §6.1 "wald" with n replaced by n_eff):
// SE² = Σ p̂ⱼ(1−p̂ⱼ)/n_effⱼ, p = max(1 − Φ((Δ̂+δ)/SE), Φ((Δ̂−δ)/SE)), 90%
// interval Δ̂ ± z₀.₉₅·SE (Schuirmann 1987). NaN inputs give NaN.
func tostWaldEff(p1, n1, p2, n2, margin float64) tostResult {
	r := tostResult{nan, nan, nan, nan}
	if anyNaN(p1, n1, p2, n2) || n1 <= 0 || n2 <= 0 {
		return r
	}
	r.diff = p1 - p2
	se := math.Sqrt(p1*(1-p1)/n1 + p2*(1-p2)/n2)
	z := stats.ZLevel(1 - 2*stats.TOSTAlpha)
	r.lo90, r.hi90 = r.diff-z*se, r.diff+z*se
	phi := func(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
	if se == 0 {
		// Both proportions 0 or 1: the difference is known exactly.
		r.p = 1
		if math.Abs(r.diff) < margin {
			r.p = 0
		}
		return r
	}
	r.p = max(1-phi((r.diff+margin)/se), phi((r.diff-margin)/se))
	return r
}

func h5(e1 []*ledger.Episode) *Hypothesis {
	h := &Hypothesis{
		ID:         "H5",
		Prediction: "≥ 20% of duplicate-producing episodes end \"completed\" with no uncertainty listed",
		Rule:       "supported iff the 95% interval (Wilson on clustered n_eff) of that share lies at or above 20%; not supported iff below; else inconclusive",
	}
	var dup []*ledger.Episode
	for _, e := range e1 {
		if e.Duplicated {
			dup = append(dup, e)
		}
	}
	all := func(*ledger.Episode) bool { return true }
	silent := rateCol{"silent", all, func(e *ledger.Episode) float64 { return b2f(e.ReportedSuccess && !e.UncertaintyListed) }}
	over := rateCol{"overclaim", all, func(e *ledger.Episode) float64 { return b2f(e.Overclaim) }}
	sr, _, _ := clusteredRates(dup, silent, nil, true)
	or, _, _ := clusteredRates(dup, over, nil, true)
	s, o := rateCellOf(sr[""], len(sr) > 0), rateCellOf(or[""], len(or) > 0)
	h.Stats = []Stat{
		{Name: "completed_no_uncertainty", Value: s.Value, Lo: s.Lo, Hi: s.Hi, N: s.N},
		{Name: "overclaim", Value: o.Value, Lo: o.Lo, Hi: o.Hi, N: o.N},
	}
	h.Result = fmt.Sprintf("%s (n=%d); overclaim %s (%s–%s)", pct(s.Value), s.N, pct(o.Value), pctBare(o.Lo), pct(o.Hi))
	h.Verdict = VerdictH5(s.Lo, s.Hi)
	return h
}

func h6(d *Data) *Hypothesis {
	h := &Hypothesis{
		ID:         "H6",
		Prediction: "The guard in the MCP server brings duplicates to ≤ 2% in every harness with ≤ 3 pp TS loss",
		Rule:       "supported iff in every production harness of E3 (native contract; the minimal scaffold is left out when others exist) the guard's duplicate rate under committed faults and redelivery is ≤ 2% and its TS over faulted episodes is at most 3 pp below the vanilla condition's",
	}
	eps := d.filter(func(e *ledger.Episode) bool {
		return e.Experiment == "E3" && e.Contract == ledger.ContractNative && in(e.Condition, "vanilla", "guard")
	})
	harnesses := ordered(eps, harnessOf, ledger.PaperHarnesses)
	// The guard is deployed in the MCP server of the production harnesses;
	// the minimal scaffold is their baseline (the paper reports H6 for
	// Copilot CLI, Hermes and Codex CLI).
	if len(harnesses) > 1 {
		harnesses = slices.DeleteFunc(harnesses, func(h string) bool { return h == "minimal" })
	}
	var dups, losses []float64
	var parts []string
	for _, hn := range harnesses {
		var gk, gn, tsV, nV, tsG, nG float64
		for _, e := range eps {
			if e.Harness != hn {
				continue
			}
			if e.Condition == "guard" && committedOrRedelivery(e) {
				gn++
				gk += dupOf(e)
			}
			if faulted(e) {
				if e.Condition == "guard" {
					nG++
					tsG += tsOf(e)
				} else {
					nV++
					tsV += tsOf(e)
				}
			}
		}
		dr := ratio(gk, gn)
		loss := ratio(tsV, nV) - ratio(tsG, nG)
		dups = append(dups, dr)
		losses = append(losses, loss)
		h.Stats = append(h.Stats,
			Stat{Name: "guard_dup_" + hn, Value: dr, Lo: nan, Hi: nan, N: int(gn)},
			Stat{Name: "ts_loss_pp_" + hn, Value: loss, Lo: nan, Hi: nan, N: int(nG)})
		parts = append(parts, fmt.Sprintf("%s (%s, TS loss %s pp)", pct(dr), hn, signed(loss)))
	}
	if len(harnesses) == 0 {
		h.warnf("no E3 episodes")
		h.Result = "no E3 episodes"
	} else {
		h.Result = "native contract, guard: " + strings.Join(parts, ", ")
	}
	h.Verdict = VerdictH6(dups, losses)
	return h
}

// Table12 lays the hypotheses out as the paper's Table 12.
func Table12(hs []*Hypothesis) *Table {
	t := &Table{
		Number:      12,
		Title:       "Preregistered hypotheses and outcomes",
		Caption:     "Preregistered hypotheses and outcomes; verdicts follow the preregistered rules. Intervals are 95% unless stated otherwise.",
		LabelHeader: []string{""},
		Columns: []Column{
			{Key: "prediction", Label: "Prediction"},
			{Key: "result", Label: "Result"},
			{Key: "verdict", Label: "Verdict"},
		},
	}
	for _, h := range hs {
		p := textCell(h.Prediction)
		p.Design = true
		t.Rows = append(t.Rows, Row{Key: h.ID, Labels: []string{h.ID}, Cells: []Cell{p, textCell(h.Result), textCell(h.Verdict)}})
		for _, w := range h.Warnings {
			t.warnf("%s: %s", h.ID, w)
		}
	}
	return t
}

func fmtPct1(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", v)
}

func pctBare(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

func fmtOR(or, lo, hi float64) string {
	if math.IsNaN(or) {
		return "–"
	}
	return fmt.Sprintf("%.1f (%.1f–%.1f)", or, lo, hi)
}

// fmtP prints a p-value with two significant digits.
func fmtP(p float64) string {
	if math.IsNaN(p) {
		return "–"
	}
	if p < 1e-3 {
		return fmt.Sprintf("%.1e", p)
	}
	return fmt.Sprintf("%.2g", p)
}

func signed(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%+.1f", v)
}
