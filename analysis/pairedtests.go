package analysis

import (
	"math"
	"slices"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/internal/enum"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/stats"
)

// PairedSpec is a Paired analysis: McNemar tests of a base level of Arm
// against the other levels on episodes matched by PairBy.
type PairedSpec struct {
	Outcome string           // binary outcome column (required)
	Arm     string           // column whose levels are compared, e.g. condition
	Base    string           // the level every other level is compared with
	PairBy  []string         // columns that identify the same world, e.g. pair_key
	Levels  []string         // compare only these levels (default: all present)
	Test    stats.PairedTest // exact (default), midp, chi2 or chi2cc; t (numeric default) or wilcoxon
	Adjust  stats.Adjustment // holm (default), bonferroni, bh, by or none
	// Bootstrap adds cluster-bootstrap intervals of each comparison's
	// gain (or mean difference): pairs are resampled by the clusters of
	// Bootstrap.Cluster, a pair belonging to its base episode's cluster.
	Bootstrap BootstrapSpec
}

// PairedComparison is the base level against one other level.
type PairedComparison struct {
	Base, Other string
	Pairs       int     // matched pairs
	A           int     // pairs where both have the outcome
	B           int     // pairs where only the base has the outcome
	C           int     // pairs where only the other has it
	D           int     // pairs where neither has it
	GainPP      float64 // 100·(b−c)/pairs, weighted by the base episode when weighted
	// UnmatchedBase and UnmatchedOther count the episodes of each arm
	// left without a partner (dropped; the warnings say so too).
	UnmatchedBase, UnmatchedOther int
	// P is the two-sided McNemar p-value (NaN without pairs). It is never
	// 0: where it is below stats.PFloor (an exact p-value of a large,
	// lopsided table underflows float64) P is stats.PFloor and PBelow says
	// that it is a bound, p < 1e-300.
	P      float64
	PBelow bool
	// Log10P is log₁₀ of the p-value, finite however small it is (NaN
	// without pairs).
	Log10P float64
	// PAdj, PAdjBelow and Log10PAdj are the p-value adjusted over exactly
	// the comparisons reported, with the same conventions; an adjusted
	// p-value below stats.PFloor is a bound as well.
	PAdj      float64
	PAdjBelow bool
	Log10PAdj float64
	GainBoot  *BootInterval // of GainPP, with PairedSpec.Bootstrap
}

// PairedResult is the result of Paired.
type PairedResult struct {
	Spec        PairedSpec
	Comparisons []PairedComparison
	// Differences, for a numeric outcome (Spec.Test t or wilcoxon), are
	// the comparisons instead of Comparisons (see pairedDifferences).
	Differences []PairedDifference
	Bootstrap   *BootstrapInfo // nil without PairedSpec.Bootstrap
	Warnings    []Warning
}

// comparedLevels returns the codes in arm of the base level and of the
// levels it is compared with: those of levels, each once and in code
// order, or with none given every level of arm but the base. A level arm
// does not hold is an error about the spec field Base or Levels.
func comparedLevels(arm *frame.Column, base string, levels []string) (int32, []int32, error) {
	b, err := armLevel(arm, "Base", base)
	if err != nil {
		return 0, nil, err
	}
	var others []int32
	if len(levels) > 0 {
		for _, l := range levels {
			c, err := armLevel(arm, "Levels", l)
			if err != nil {
				return 0, nil, err
			}
			if !slices.Contains(others, c) {
				others = append(others, c)
			}
		}
		slices.Sort(others)
	} else {
		for i := range arm.Levels {
			if int32(i) != b {
				others = append(others, int32(i))
			}
		}
	}
	return b, others, nil
}

// Paired compares the binary outcome of the base level of spec.Arm with
// each other level on matched episodes: within each PairBy key, the base
// and the other arm's episodes are sorted by episode_id and paired k-th
// with k-th; unmatched episodes are dropped and counted in the warnings.
// b counts pairs where only the base has the outcome and c those where
// only the other does; p is McNemar's test (McNemar 1947; exact binomial
// by default) and p_adj adjusts over the comparisons reported (Holm 1979
// by default). A p-value too small for float64 (an exact p of b = 0,
// c ≥ 1075 underflows) is never 0: P is the bound stats.PFloor with PBelow
// set, Log10P holds log₁₀ p at any size, and the adjustment is also done on
// log₁₀ p so that an adjusted p of an underflowed p is a bound too. With q.Weight, GainPP weights each pair by its base
// episode's weight while b, c and p stay counts. Reading streams: a few
// bytes per episode, episode ids read again only where a key and arm hold
// several episodes. A numeric outcome (Test t or wilcoxon, or with Test
// empty an outcome with a numeric value other than 0 and 1) is compared
// by its differences in PairedResult.Differences instead: see
// pairedDifferences.
func Paired(q Query, spec PairedSpec) (*PairedResult, error) {
	if numeric, err := q.pairedNumeric(spec); err != nil || numeric {
		if err != nil {
			return nil, err
		}
		return q.pairedDifferences(spec)
	}
	var warn warnings
	if spec.Test == "" {
		spec.Test = stats.PairedExact
	}
	if spec.Adjust == "" {
		spec.Adjust = stats.AdjustHolm
	}
	switch {
	case spec.Outcome == "":
		return nil, fieldErr("Outcome", "{Outcome} is required")
	case spec.Arm == "":
		return nil, fieldErr("Arm", "{Arm} is required")
	case spec.Base == "":
		return nil, fieldErr("Base", "{Base} is required")
	case len(spec.PairBy) == 0:
		return nil, fieldErr("PairBy", "{PairBy} is required (the columns that identify the same world, e.g. pair_key)")
	case slices.Contains(spec.PairBy, spec.Arm):
		return nil, fieldErr("PairBy", "{PairBy} must not contain the {Arm} column %s", spec.Arm)
	case slices.Contains(spec.Levels, spec.Base):
		return nil, fieldErr("Levels", "{Levels} must not contain the {Base} level %s", spec.Base)
	}
	if !spec.Test.Valid() || numericTest(spec.Test) {
		return nil, fieldErr("Test", "{Test} %q: want exact, midp, chi2 or chi2cc", spec.Test)
	}
	if !spec.Adjust.Valid() {
		return nil, fieldErr("Adjust", "{Adjust} %q: want %s", spec.Adjust, enum.OrList(stats.Adjustments()))
	}
	if err := spec.Bootstrap.checkCluster(); err != nil {
		return nil, err
	}
	pr, err := q.readPairing(spec.Outcome, spec.Arm, spec.PairBy, q.Weight, spec.Base, spec.Levels, &warn)
	if err != nil {
		return nil, err
	}
	base, others, err := comparedLevels(pr.arm, spec.Base, spec.Levels)
	if err != nil {
		return nil, err
	}
	if len(others) == 0 {
		return nil, fieldtext.New("Arm", "{Arm} %s has only the base level %q after {Where}; nothing to compare", spec.Arm, spec.Base)
	}
	if q.Weight != "" {
		warn.addField(WarnUnweighted, "Weight", "weighted by %s: gain_pp weights each pair by its base episode; b, c, pairs and p are unweighted", q.Weight)
	}
	res := &PairedResult{Spec: spec}
	ps := make([]float64, len(others))
	lps := make([]float64, len(others))
	for k, oc := range others {
		tb := pr.table(base, oc)
		other := pr.arm.Levels[oc]
		c := PairedComparison{Base: spec.Base, Other: other, Pairs: tb.pairs(), A: tb.a, B: tb.b, C: tb.c, D: tb.d,
			UnmatchedBase: tb.unmatched1, UnmatchedOther: tb.unmatched2, GainPP: math.NaN(), P: math.NaN(), Log10P: math.NaN()}
		// The float adjustment takes the raw p (0 where it underflowed):
		// an underflowed p only lowers its own adjusted value, which the
		// log₁₀ adjustment then reports.
		ps[k] = math.NaN()
		if tb.pairs() == 0 {
			warn.addf(WarnNoPairs, "%s vs %s: no matched pairs; gain_pp and p are undefined", spec.Base, other)
		} else {
			c.GainPP = tb.gainPP(q.Weight != "")
			ps[k] = mcnemarP(spec.Test, tb.b, tb.c)
			c.Log10P = mcnemarLog10P(spec.Test, tb.b, tb.c)
			c.P, c.PBelow = reportableP(ps[k], c.Log10P)
		}
		if tb.unmatched1+tb.unmatched2 > 0 {
			warn.addf(WarnUnmatched, "%s vs %s: %d %s and %d %s episode(s) without a partner dropped", spec.Base, other, tb.unmatched1, spec.Base, tb.unmatched2, other)
		}
		lps[k] = c.Log10P
		res.Comparisons = append(res.Comparisons, c)
	}
	adj := adjustP(spec.Adjust, ps)
	ladj := adjustLog10P(spec.Adjust, lps)
	for k := range res.Comparisons {
		c := &res.Comparisons[k]
		c.Log10PAdj = ladj[k]
		c.PAdj, c.PAdjBelow = reportableP(adj[k], ladj[k])
	}
	if spec.Bootstrap.Replicates > 0 {
		if err := q.bootPairedGains(spec, res, &warn); err != nil {
			return nil, err
		}
	}
	res.Warnings = warn.items()
	return res, nil
}

// bootPairedGains adds cluster-bootstrap intervals to the gains of res:
// the episodes are read again with the cluster column and matched as
// Paired matches them (framePairs), and each gain, 100·Σw(b − c)/Σw over
// the pairs, is a ratio of cluster sums (ratioBoot).
func (q *Query) bootPairedGains(spec PairedSpec, res *PairedResult, warn *warnings) error {
	bs := spec.Bootstrap
	fs := pairSpec(spec.Outcome, spec.Arm, spec.PairBy, q.Weight)
	if !slices.Contains(fs.Columns, bs.Cluster) {
		fs.Columns = append(fs.Columns, bs.Cluster)
	}
	var none warnings // the first read reported these rows' problems
	fr, err := q.readFrame(fs, &none)
	if err != nil {
		return err
	}
	arm := fr.Col(spec.Arm)
	fp := newFramePairs(fr, spec.PairBy, arm, fr.Col("episode_id"))
	cl := newPairClusters(fr.Col(bs.Cluster))
	num, den := make([][]float64, len(res.Comparisons)), make([][]float64, len(res.Comparisons))
	base, _ := armLevel(arm, "Base", spec.Base)
	for k, c := range res.Comparisons {
		num[k], den[k] = make([]float64, cl.n), make([]float64, cl.n)
		oc, _ := armLevel(arm, "Levels", c.Other)
		fp.pairs(base, oc, func(b, o int) {
			w := 1.0
			if q.Weight != "" {
				w = fr.Cells[b].SumW
			}
			g := cl.of(b, o)
			num[k][g] += 100 * w * (float64(fr.Cells[b].Events) - float64(fr.Cells[o].Events))
			den[k][g] += w
		})
	}
	iv, _ := ratioBoot(num, den, bs)
	for k := range res.Comparisons {
		res.Comparisons[k].GainBoot = iv[k]
	}
	res.Bootstrap = cl.info(bs, warn)
	return nil
}

// gainPP is 100·(b−c)/pairs, or with weights 100·(w_b−w_c)/Σw.
func (t pairTable) gainPP(weighted bool) float64 {
	if weighted {
		return 100 * (t.wb - t.wc) / (t.wa + t.wb + t.wc + t.wd)
	}
	return 100 * float64(t.b-t.c) / float64(t.pairs())
}

// adjustP adjusts p-values for multiplicity (stats.Adjust).
func adjustP(method stats.Adjustment, ps []float64) []float64 { return stats.Adjust(method, ps) }

// mcnemarP is the two-sided p-value of the chosen McNemar test.
func mcnemarP(test stats.PairedTest, b, c int) float64 {
	switch test {
	case stats.PairedMidP:
		return stats.McNemarMidP(b, c)
	case stats.PairedChi2:
		_, p := stats.McNemarChi2(b, c, false)
		return p
	case stats.PairedChi2CC:
		_, p := stats.McNemarChi2(b, c, true)
		return p
	}
	return stats.McNemarExact(b, c)
}

// reportableP returns the p-value to report given its float64 value p and
// its log₁₀ lp: p itself where it is a normal float64 at or above
// stats.PFloor (so every p-value that did not underflow prints as before),
// else stats.ReportP(lp), which is never 0 and says when it is the bound
// p < 1e-300. NaN stays NaN.
func reportableP(p, lp float64) (float64, bool) {
	if math.IsNaN(p) || math.IsNaN(lp) {
		return math.NaN(), false
	}
	if p >= stats.PFloor && lp >= -300 {
		return p, false
	}
	return stats.ReportP(lp)
}

// mcnemarLog10P is log₁₀ of mcnemarP, finite where the p-value underflows.
func mcnemarLog10P(test stats.PairedTest, b, c int) float64 {
	switch test {
	case stats.PairedMidP:
		return stats.McNemarMidPLog10(b, c)
	case stats.PairedChi2, stats.PairedChi2CC:
		stat, p := stats.McNemarChi2(b, c, test == stats.PairedChi2CC)
		if p > 1e-280 {
			return math.Log10(p)
		}
		return chi2SF1Log10(stat)
	}
	return stats.McNemarExactLog10(b, c)
}

// chi2SF1Log10 is log₁₀ of the upper tail of χ² with one degree of freedom
// at x, for x large enough that the tail underflows (x > 1200). The tail
// is erfc(z) with z = √(x/2); its asymptotic series
// erfc(z) = e^(−z²)/(z√π)·(1 − 1/(2z²) + 3/(4z⁴) − 15/(8z⁶) + …) has a
// relative error below 1e-12 at z > 24 after these four terms.
func chi2SF1Log10(x float64) float64 {
	z2 := x / 2
	z := math.Sqrt(z2)
	series := 1 - 1/(2*z2) + 3/(4*z2*z2) - 15/(8*z2*z2*z2)
	return (-z2 - math.Log(z*math.Sqrt(math.Pi)) + math.Log(series)) / math.Ln10
}

// adjustLog10P is adjustP on log₁₀ p-values (stats.AdjustLog10), so
// that an adjusted p-value of a p-value that underflowed is still known.
func adjustLog10P(method stats.Adjustment, lps []float64) []float64 {
	return stats.AdjustLog10(method, lps)
}

// TOSTSpec is a TOST analysis: are the proportions of Outcome in levels A
// and B of Arm equivalent within ±Margin?
type TOSTSpec struct {
	Outcome string
	Arm     string
	A, B    string  // diff = p_A − p_B
	Margin  float64 // equivalence margin on the difference; 0 = 0.05
	// Method is the independent-samples test: agresti-caffo (default, as
	// statsmodels), wald or score; ignored with PairedBy.
	Method   stats.TOSTMethod
	PairedBy []string // match episodes as Paired and use the paired test
}

// TOSTResult is the result of TOST.
type TOSTResult struct {
	Spec       TOSTSpec
	NA, NB     int
	Pairs      int // matched pairs (PairedBy only)
	Diff       float64
	Lo90, Hi90 float64 // the test's 90% interval
	Method     string
	PLower     float64
	PUpper     float64
	PTOST      float64 // the larger one-sided p-value
	Equivalent bool    // PTOST < 0.05
	// NewcombeLo and NewcombeHi are Newcombe's 90% hybrid score interval
	// (square-and-add when paired).
	NewcombeLo, NewcombeHi float64
	Warnings               []Warning
}

// TOST runs two one-sided tests of H₀ |p_A − p_B| ≥ margin (Schuirmann
// 1987) on independent samples (stats.TOSTIndep) or, with PairedBy, on
// pairs matched as in Paired with the paired Wald test (stats.TOSTPaired).
// The tests take counts, so a weighted query is an error.
func TOST(q Query, spec TOSTSpec) (*TOSTResult, error) {
	var warn warnings
	if spec.Margin == 0 {
		spec.Margin = 0.05
	}
	if spec.Method == "" {
		spec.Method = stats.TOSTAgrestiCaffo
	}
	switch {
	case spec.Outcome == "":
		return nil, fieldErr("Outcome", "{Outcome} is required")
	case spec.Arm == "":
		return nil, fieldErr("Arm", "{Arm} is required")
	case spec.A == "" || spec.B == "":
		return nil, fieldErr("A", "{A} and {B} (the two levels of {Arm}) are required")
	case spec.A == spec.B:
		return nil, fieldErr("B", "{A} and {B} are the same level %q", spec.A)
	case !(spec.Margin > 0 && spec.Margin < 1):
		return nil, fieldErr("Margin", "{Margin} %v: want a difference in (0, 1), e.g. 0.05", spec.Margin)
	case q.Weight != "":
		return nil, fieldErr("Weight", "{Weight}: tost is unweighted (its tests take counts)")
	}
	if !spec.Method.Valid() {
		return nil, fieldErr("Method", "{Method} %q: want wald, agresti-caffo or score", spec.Method)
	}
	var r stats.TOSTResult
	res := &TOSTResult{Spec: spec}
	if len(spec.PairedBy) > 0 {
		pr, err := q.readPairing(spec.Outcome, spec.Arm, spec.PairedBy, "", spec.A, []string{spec.B}, &warn)
		if err != nil {
			return nil, err
		}
		la, err := armLevel(pr.arm, "A", spec.A)
		if err != nil {
			return nil, err
		}
		lb, err := armLevel(pr.arm, "B", spec.B)
		if err != nil {
			return nil, err
		}
		tb := pr.table(la, lb)
		if tb.pairs() == 0 {
			return nil, fieldtext.New("PairedBy", "no matched pairs of %s and %s on %v after {Where}; nothing to test", spec.A, spec.B, spec.PairedBy)
		}
		if tb.unmatched1+tb.unmatched2 > 0 {
			warn.addf(WarnUnmatched, "%d %s and %d %s episode(s) without a partner dropped", tb.unmatched1, spec.A, tb.unmatched2, spec.B)
		}
		// NewcombePaired's table: a both succeed, b only the first (A).
		r = stats.TOSTPaired(tb.a, tb.b, tb.c, tb.d, spec.Margin)
		res.Pairs = tb.pairs()
		res.NA, res.NB = res.Pairs, res.Pairs
	} else {
		fr, err := q.readFrame(frame.Spec{Columns: []string{spec.Arm}, Outcome: spec.Outcome, Collapse: true}, &warn)
		if err != nil {
			return nil, err
		}
		arm := fr.Col(spec.Arm)
		la, err := armLevel(arm, "A", spec.A)
		if err != nil {
			return nil, err
		}
		lb, err := armLevel(arm, "B", spec.B)
		if err != nil {
			return nil, err
		}
		var ca, cb frame.Cell
		for i, cell := range fr.Cells {
			switch arm.Codes[i] {
			case la:
				ca.Add(cell)
			case lb:
				cb.Add(cell)
			}
		}
		r = stats.TOSTIndep(int(ca.Events), int(ca.N), int(cb.Events), int(cb.N), spec.Margin, spec.Method)
		res.NA, res.NB = int(ca.N), int(cb.N)
	}
	if math.IsNaN(r.PTOST) {
		warn.addf(WarnUndefined, "the test is undefined for these counts (a zero standard error); p-values are null")
	}
	res.Diff, res.Lo90, res.Hi90, res.Method = r.Diff, r.Lo90, r.Hi90, r.Method
	res.PLower, res.PUpper, res.PTOST, res.Equivalent = r.PLower, r.PUpper, r.PTOST, r.Equivalent
	res.NewcombeLo, res.NewcombeHi = r.NewcombeLo, r.NewcombeHi
	res.Warnings = warn.items()
	return res, nil
}
