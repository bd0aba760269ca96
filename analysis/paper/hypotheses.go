package paper

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// paperPrimary is the paper's preregistration (prereg.Paper) with its
// primary analyses only (H1–H6, the rows of Table 12), parsed once:
// Hypotheses runs on every report and table run.
var paperPrimary = sync.OnceValues(func() (*prereg.File, error) {
	f, err := prereg.Paper()
	if err != nil {
		return nil, err
	}
	p := *f
	p.Hypotheses = slices.DeleteFunc(slices.Clone(f.Hypotheses), func(h *prereg.Hypothesis) bool { return h.Analysis == prereg.Sensitivity })
	return &p, nil
})

// Hypotheses checks that d has the columns of the paper's hypotheses (a
// MissingColumnsError names those it lacks), evaluates the primary
// hypotheses of the paper's preregistration (prereg.Paper: H1–H6) on d
// and lays them out as Table 12 and the `hypotheses` command show them
// (Layout). Sensitivity analyses (H1-adjusted) are left out of Table 12,
// as in the paper: `hypotheses --prereg` with the file of `prereg init
// --paper` shows them.
func Hypotheses(d *table.Data) ([]*Hypothesis, error) {
	if err := require(d, "The hypotheses", hypothesisColumns); err != nil {
		return nil, err
	}
	f, err := paperPrimary()
	if err != nil {
		return nil, fmt.Errorf("the embedded paper preregistration: %w", err)
	}
	r, err := f.Evaluate(d)
	if err != nil {
		return nil, err
	}
	return Layout(r)
}

// paperRules are the paper's decision rules in its own words (Table 12's
// "rule" line); the file states the same rules as data.
var paperRules = map[string]string{
	"H1": "supported iff the eventual/missing duplicate rate ≥ 10% and the GEE odds ratio (exchangeable, clusters = template) against keyed ∪ strong writes is > 1 with p < .05; not supported if the rate < 10% or OR ≤ 1; else inconclusive",
	"H2": "part A: contract share > model share (E1 pooled); part B: harness share ≥ 10% (E3 pooled); both → supported, neither → not supported, one → partly supported",
	"H3": "among verified episodes (read back, or escalated without a re-issue) with a resolvable committed fault, supported iff the eventual duplicate rate exceeds the strong one with GEE p < .05; not supported if it does not exceed it; else inconclusive",
	"H4": "supported iff the 90% interval of the difference (irreversible − reversible; Wald on clustered n_eff) lies inside ±5 pp; not supported iff it lies entirely outside; else inconclusive",
	"H5": "supported iff the 95% interval (Wilson on clustered n_eff) of that share lies at or above 20%; not supported iff below; else inconclusive",
	"H6": "supported iff in every production harness of E3 (native contract; the minimal scaffold is left out when others exist) the guard's duplicate rate under committed faults and redelivery is ≤ 2% and its TS over faulted episodes is at most 3 pp below the vanilla condition's",
}

// Layout lays an evaluation of the paper's preregistration out as Table
// 12's H1–H6: the paper's wording of each result and rule, and its statistics
// under the names the `hypotheses` command has always printed. Only the
// layout lives here; every number and verdict is the evaluation's. It
// fails on a result that is not of the paper's file.
func Layout(r *prereg.Result) ([]*Hypothesis, error) {
	var out []*Hypothesis
	for _, id := range []string{"H1", "H2", "H3", "H4", "H5", "H6"} {
		i := slices.IndexFunc(r.Verdicts, func(v *prereg.HypothesisResult) bool { return v.ID == id })
		if i < 0 {
			return nil, fmt.Errorf("the evaluation has no %s: not the paper's preregistration", id)
		}
		v := r.Verdicts[i]
		h := &Hypothesis{ID: id, Prediction: v.Statement, Rule: paperRules[id], Verdict: v.Verdict}
		l := layout{v: v, h: h}
		l.fill()
		if l.err != nil {
			return nil, fmt.Errorf("%s: %w: not the paper's preregistration", id, l.err)
		}
		out = append(out, h)
	}
	return out, nil
}

// layout fills one hypothesis from its evaluation.
type layout struct {
	v   *prereg.HypothesisResult
	h   *Hypothesis
	err error
}

// part returns the named part (its first level).
func (l *layout) part(name string) *prereg.PartResult {
	for _, p := range l.v.Parts {
		if p.Name == name {
			l.warnings(p)
			return p
		}
	}
	if l.err == nil {
		l.err = fmt.Errorf("no part %q", name)
	}
	return &prereg.PartResult{Estimate: prereg.Stat{Value: nan, Lo: nan, Hi: nan, P: nan}, Bound: nan}
}

// warnings passes on what the paper's Table 12 has always shown: the
// fits' warnings and why a part could not be computed.
func (l *layout) warnings(p *prereg.PartResult) {
	if p.Kind == prereg.KindOddsRatio {
		for _, w := range p.Warnings {
			l.h.Warnings = append(l.h.Warnings, w.String())
		}
	}
	if p.Reason != "" && p.Level == "" {
		l.h.Warnings = append(l.h.Warnings, p.Label()+": "+p.Reason)
	}
}

// extra returns a further statistic of p (NaN if absent).
func extra(p *prereg.PartResult, name string) prereg.Stat {
	for _, s := range p.Extra {
		if s.Name == name {
			return s
		}
	}
	return prereg.Stat{Name: name, Value: nan, Lo: nan, Hi: nan, P: nan}
}

// stat is a statistic of Table 12: a value with its interval, no p-value
// of its own (a p-value is a statistic by its name, gee_p).
func stat(name string, value, lo, hi float64, n int64) prereg.Stat {
	return prereg.Stat{Name: name, Value: value, Lo: lo, Hi: hi, P: nan, N: n}
}

func (l *layout) fill() {
	h := l.h
	switch h.ID {
	case "H1":
		// The GEE's warnings come before the GLMM's, as they always have.
		rate, gee, mix := l.part("rate").Estimate, l.part("gee").Estimate, l.part("mixed").Estimate
		h.Stats = []prereg.Stat{
			stat("dup_rate_eventual_missing", rate.Value, nan, nan, rate.N),
			stat("mixed_or", mix.Value, mix.Lo, mix.Hi, mix.N),
			stat("gee_or", gee.Value, gee.Lo, gee.Hi, gee.N),
			stat("gee_p", gee.P, nan, nan, gee.N),
		}
		h.Result = fmt.Sprintf("eventual/missing %s (n=%d); mixed-effects OR %s; GEE OR %s, p=%s",
			pct1(rate.Value), rate.N, fmtOR(mix), fmtOR(gee), fmtP(gee.P))
	case "H2":
		cm := l.part("contract-vs-model")
		c, m := cm.Estimate.Value, cm.Bound
		hs := l.part("harness").Estimate.Value
		mr, cc := l.part("model-resolvable").Estimate.Value, l.part("contract-unresolvable").Estimate.Value
		h.Stats = []prereg.Stat{
			stat("contract_share_pooled", c, nan, nan, 0),
			stat("model_share_pooled", m, nan, nan, 0),
			stat("harness_share_e3", hs, nan, nan, 0),
			stat("model_share_resolves", mr, nan, nan, 0),
			stat("contract_share_cannot", cc, nan, nan, 0),
		}
		h.Result = fmt.Sprintf("pooled shares: contract %s, model %s, harness %s (E3); stratified: model %s on resolvable faults, contract %s on unresolvable ones",
			pct0(c), pct0(m), pct0(hs), pct0(mr), pct0(cc))
		if math.IsNaN(hs) {
			h.Warnings = append(h.Warnings, "no E3 decomposition: the harness part is not computable")
		}
	case "H3":
		d := l.part("difference")
		gee := l.part("gee").Estimate
		e, s := extra(d, "rate_pct_eventual"), extra(d, "rate_pct_strong")
		h.Stats = []prereg.Stat{
			stat("dup_rate_eventual", e.Value, nan, nan, e.N),
			stat("dup_rate_strong", s.Value, nan, nan, s.N),
			stat("gee_or", gee.Value, gee.Lo, gee.Hi, gee.N),
			stat("gee_p", gee.P, nan, nan, gee.N),
		}
		h.Result = fmt.Sprintf("%s vs %s (n=%d), GEE p=%s", pct1(e.Value), pct1(s.Value), e.N+s.N, fmtP(gee.P))
	case "H4":
		t := l.part("")
		d := t.Estimate
		irr, rev, icc := extra(t, "rate_pct_false"), extra(t, "rate_pct_true"), extra(t, "icc")
		n := irr.N + rev.N
		h.Stats = []prereg.Stat{
			stat("diff_pp", d.Value, d.Lo, d.Hi, n),
			stat("p_tost", d.P, nan, nan, n),
			stat("blind_irreversible", irr.Value, nan, nan, irr.N),
			stat("blind_reversible", rev.Value, nan, nan, rev.N),
			stat("icc", icc.Value, nan, nan, n),
		}
		h.Result = fmt.Sprintf("difference %s pp, 90%% interval %s to %s pp (n=%d vs %d)", signed(d.Value), signed(d.Lo), signed(d.Hi), irr.N, rev.N)
	case "H5":
		s, o := l.part("silent").Estimate, l.part("overclaim").Estimate
		h.Stats = []prereg.Stat{
			stat("completed_no_uncertainty", s.Value, s.Lo, s.Hi, s.N),
			stat("overclaim", o.Value, o.Lo, o.Hi, o.N),
		}
		h.Result = fmt.Sprintf("%s (n=%d); overclaim %s (%s–%s)", pct0(s.Value), s.N, pct0(o.Value), bare0(o.Lo), pct0(o.Hi))
	case "H6":
		l.h6()
	}
}

// h6 lists each production harness: the guard's duplicate rate and its TS
// loss against the vanilla condition, in the paper's harness order.
func (l *layout) h6() {
	h := l.h
	dups, losses := map[string]*prereg.PartResult{}, map[string]*prereg.PartResult{}
	var harnesses []string
	for _, p := range l.v.Parts {
		m := map[string]map[string]*prereg.PartResult{"guard-duplicates": dups, "ts-loss": losses}[p.Name]
		if m == nil || p.Level == "" {
			continue
		}
		m[p.Level] = p
		if !slices.Contains(harnesses, p.Level) {
			harnesses = append(harnesses, p.Level)
		}
	}
	rank := func(s string) int {
		if i := slices.Index(ledger.PaperHarnesses, s); i >= 0 {
			return i
		}
		return len(ledger.PaperHarnesses)
	}
	slices.SortStableFunc(harnesses, func(a, b string) int {
		if c := rank(a) - rank(b); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	var parts []string
	for _, hn := range harnesses {
		dr, ts := prereg.Stat{Value: nan}, prereg.Stat{Value: nan}
		if p, ok := dups[hn]; ok {
			dr = p.Estimate
		}
		if p, ok := losses[hn]; ok {
			ts = p.Estimate
			ts.N = extra(p, "rate_pct_guard").N
		}
		h.Stats = append(h.Stats, stat("guard_dup_"+hn, dr.Value, nan, nan, dr.N), stat("ts_loss_pp_"+hn, ts.Value, nan, nan, ts.N))
		parts = append(parts, fmt.Sprintf("%s (%s, TS loss %s pp)", pct0(dr.Value), hn, signed(ts.Value)))
	}
	if len(harnesses) == 0 {
		h.Warnings = append(h.Warnings, "no E3 episodes")
		h.Result = "no E3 episodes"
		return
	}
	h.Result = "native contract, guard: " + strings.Join(parts, ", ")
}

// The paper's number formats; "–" is undefined.
func pct1(v float64) string { return orDash(v, "%.1f%%") }
func pct0(v float64) string { return orDash(v, "%.0f%%") }
func bare0(v float64) string {
	return orDash(v, "%.0f")
}
func signed(v float64) string { return orDash(v, "%+.1f") }

func orDash(v float64, format string) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf(format, v)
}

func fmtOR(s prereg.Stat) string {
	if math.IsNaN(s.Value) {
		return "–"
	}
	return fmt.Sprintf("%.1f (%.1f–%.1f)", s.Value, s.Lo, s.Hi)
}

// fmtP is a p-value as Table 12 prints it.
func fmtP(p float64) string {
	if math.IsNaN(p) {
		return "–"
	}
	if p < 1e-3 {
		return strconv.FormatFloat(p, 'e', 1, 64)
	}
	return strconv.FormatFloat(p, 'g', 2, 64)
}
