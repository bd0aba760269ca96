package analysis

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/internal/enum"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// PairedDifference is, for a numeric outcome, the base level against one
// other level on matched pairs: the differences d = base − other.
type PairedDifference struct {
	Base, Other string
	Pairs       int // matched pairs
	// UnmatchedBase and UnmatchedOther count the episodes left without a
	// partner (dropped, with a warning).
	UnmatchedBase, UnmatchedOther int
	Mean                          float64 // mean of d (base − other)
	SD                            float64 // sample SD of d
	SE                            float64 // SD/√pairs
	DF                            float64 // pairs − 1
	Lo, Hi                        float64 // 95% t interval of Mean
	T                             float64 // Mean/SE (the t test's statistic)
	// V is the Wilcoxon signed-rank statistic (Test wilcoxon; NaN
	// otherwise), Zeros the zero differences it drops and Exact whether
	// its p is exact.
	V     float64
	Zeros int
	Exact bool
	P     float64 // two-sided p of Test (NaN without pairs)
	PAdj  float64 // P adjusted over the comparisons reported
	// MeanBoot is Mean's cluster-bootstrap interval (PairedSpec.Bootstrap).
	MeanBoot *BootInterval
}

// The tests of a numeric outcome.
// errNumericOutcome stops the scan that finds a numeric outcome.
var errNumericOutcome = errors.New("numeric outcome")

// pairedNumeric reports whether Paired reads spec.Outcome as a number:
// when Test is t or wilcoxon; when Test is empty and a value of the
// outcome is a number other than 0 and 1 (a boolean column of the schema
// is binary without reading). Test set to a McNemar test is binary.
func (q *Query) pairedNumeric(spec PairedSpec) (bool, error) {
	switch {
	case spec.Test.Valid():
		return numericTest(spec.Test), nil
	case spec.Test != "":
		return false, fieldf("Test", "%q: want exact, midp, chi2 or chi2cc (a binary outcome), t or wilcoxon (a numeric one)", spec.Test)
	}
	if k, ok := schemaKind(spec.Outcome); isBuilt(q.Source) || spec.Outcome == "" || ok && (k == ledger.KindBool || k == ledger.KindString) {
		return false, nil
	}
	_, err := q.scanRows([]string{spec.Outcome}, func(r frame.Row, _ int64) error {
		v, ok := r.Get(spec.Outcome)
		if !ok || v.Null {
			return nil
		}
		if _, err := frame.Binary(v); err == nil {
			return nil
		}
		if _, ok := frame.Number(v); ok {
			return errNumericOutcome
		}
		return nil
	})
	if errors.Is(err, errNumericOutcome) {
		return true, nil
	}
	// Other errors (no such column, no match) are the binary path's too:
	// it reports them as today.
	return false, nil
}

// pairedDifferences is Paired on a numeric outcome: the episodes are
// matched as for McNemar (within a PairBy key, base and other sorted by
// episode_id and paired k-th with k-th) and each comparison tests the
// differences base − other: Student's paired t (stats.PairedT, R's
// t.test(paired = TRUE)) or Wilcoxon's signed-rank test
// (stats.WilcoxonSignedRank, R's wilcox.test(paired = TRUE)), the t
// interval of the mean difference reported with either.
func (q *Query) pairedDifferences(spec PairedSpec) (*PairedResult, error) {
	var warn warnings
	if spec.Test == "" {
		spec.Test = stats.PairedStudentT
	}
	if spec.Adjust == "" {
		spec.Adjust = stats.AdjustHolm
	}
	switch {
	case spec.Outcome == "":
		return nil, fieldf("Outcome", "is required")
	case spec.Arm == "":
		return nil, fieldf("Arm", "is required")
	case spec.Base == "":
		return nil, fieldf("Base", "is required")
	case len(spec.PairBy) == 0:
		return nil, fieldf("PairBy", "is required (the columns that identify the same world, e.g. pair_key)")
	case slices.Contains(spec.PairBy, spec.Arm):
		return nil, fieldf("PairBy", "must not contain the Arm column %s", spec.Arm)
	case slices.Contains(spec.Levels, spec.Base):
		return nil, fieldf("Levels", "must not contain the Base level %s", spec.Base)
	case q.Weight != "":
		return nil, fieldf("Weight", "the paired t and Wilcoxon tests are unweighted")
	}
	if !spec.Adjust.Valid() {
		return nil, fieldf("Adjust", "%q: want %s", spec.Adjust, enum.OrList(stats.Adjustments()))
	}
	bs := spec.Bootstrap
	if err := bs.checkCluster(); err != nil {
		return nil, err
	}
	fs := pairSpec("", spec.Arm, spec.PairBy, "")
	fs.Columns = append(fs.Columns, spec.Outcome)
	if bs.Replicates > 0 && !slices.Contains(fs.Columns, bs.Cluster) {
		fs.Columns = append(fs.Columns, bs.Cluster)
	}
	fs.Check = numberCheck(spec.Outcome)
	fr, err := q.readFrame(fs, &warn)
	if err != nil {
		return nil, err
	}
	arm, ids, y := fr.Col(spec.Arm), fr.Col("episode_id"), fr.Col(spec.Outcome)
	base, others, err := comparedLevels(arm, spec.Base, spec.Levels)
	if err != nil {
		return nil, err
	}
	if len(others) == 0 {
		return nil, fmt.Errorf("arm %s has only the base level %q after the filter; nothing to compare", spec.Arm, spec.Base)
	}
	fp := newFramePairs(fr, spec.PairBy, arm, ids)
	res := &PairedResult{Spec: spec}
	ps := make([]float64, len(others))
	// The differences are taken in scaled units (stats.Pow2Scale): values
	// near the largest double do not overflow when subtracted, nor do
	// subnormal ones lose their spread when squared. The tests do not
	// depend on the scale; the estimates are unscaled after.
	var ym float64
	for i := range fr.Len() {
		ym = math.Max(ym, math.Abs(y.Value(i)))
	}
	s1 := stats.Pow2Scale(ym)
	// With a bootstrap, each difference's cluster sums (unscaled): the
	// mean is Σd/pairs, a ratio of them.
	var cl *pairClusters
	var num, den [][]float64
	if bs.Replicates > 0 {
		cl = newPairClusters(fr.Col(bs.Cluster))
	}
	for k, oc := range others {
		c := PairedDifference{Base: spec.Base, Other: arm.Levels[oc]}
		var d []float64
		var nk, dk []float64
		if cl != nil {
			nk, dk = make([]float64, cl.n), make([]float64, cl.n)
		}
		c.UnmatchedBase, c.UnmatchedOther = fp.pairs(base, oc, func(b, o int) {
			d = append(d, y.Value(b)*s1-y.Value(o)*s1)
			if cl != nil {
				g := cl.of(b, o)
				nk[g] += y.Value(b) - y.Value(o)
				dk[g]++
			}
		})
		num, den = append(num, nk), append(den, dk)
		c.Pairs = len(d)
		var dm float64
		for _, v := range d {
			dm = math.Max(dm, math.Abs(v))
		}
		s2 := stats.Pow2Scale(dm)
		for j := range d {
			d[j] *= s2
		}
		t := stats.PairedT(d, 0.95)
		unscale := func(x float64) float64 { return x / s2 / s1 }
		c.Mean, c.SD, c.SE, c.DF, c.Lo, c.Hi, c.T, c.P, c.V = unscale(t.Mean), unscale(t.SD), unscale(t.SE), t.DF, unscale(t.Lo), unscale(t.Hi), t.T, t.P, math.NaN()
		if spec.Test == stats.PairedWilcoxon {
			w := stats.WilcoxonSignedRank(d)
			c.V, c.Zeros, c.Exact, c.P = w.V, w.Zeros, w.Exact, w.P
			if w.Zeros > 0 {
				warn.addf(WarnZeroDifferences, "%s vs %s: %d zero difference(s) dropped by the signed-rank test", spec.Base, c.Other, w.Zeros)
			}
		}
		switch {
		case c.Pairs == 0:
			warn.addf(WarnNoPairs, "%s vs %s: no matched pairs; the difference and p are undefined", spec.Base, c.Other)
		case c.Pairs == 1:
			warn.addf(WarnUndefined, "%s vs %s: one matched pair; the SD, interval and t test are undefined", spec.Base, c.Other)
		case spec.Test == stats.PairedStudentT && math.IsNaN(c.P) && !slices.ContainsFunc(d, func(v float64) bool { return v != d[0] }):
			warn.addf(WarnUndefined, "%s vs %s: every difference is %v; the t test is undefined", spec.Base, c.Other, c.Mean)
		case spec.Test == stats.PairedStudentT && math.IsNaN(c.P):
			warn.addf(WarnUndefined, "%s vs %s: the differences' SD is 0 in double precision though they differ; the t test is undefined", spec.Base, c.Other)
		}
		if inf := slices.ContainsFunc([]float64{c.Mean, c.SD, c.SE, c.Lo, c.Hi}, func(x float64) bool { return math.IsInf(x, 0) }); inf {
			warn.addf(WarnUndefined, "%s vs %s: the mean difference, its SD or interval is beyond the largest number (±1.8e308) and reads as ±Inf", spec.Base, c.Other)
		}
		if c.UnmatchedBase+c.UnmatchedOther > 0 {
			warn.addf(WarnUnmatched, "%s vs %s: %d %s and %d %s episode(s) without a partner dropped", spec.Base, c.Other, c.UnmatchedBase, spec.Base, c.UnmatchedOther, c.Other)
		}
		ps[k] = c.P
		res.Differences = append(res.Differences, c)
	}
	adj := adjustP(spec.Adjust, ps)
	for k := range res.Differences {
		res.Differences[k].PAdj = adj[k]
	}
	if cl != nil {
		iv, _ := ratioBoot(num, den, bs)
		for k := range res.Differences {
			res.Differences[k].MeanBoot = iv[k]
		}
		res.Bootstrap = cl.info(bs, &warn)
	}
	res.Warnings = warn.items()
	return res, nil
}

// framePairs orders a frame's episodes for k-th with k-th matching, as
// Paired matches them: by key (the PairBy codes), then arm, then
// episode_id.
type framePairs struct {
	keys []*frame.Column
	arm  *frame.Column
	rows []int
}

func newFramePairs(fr *frame.Frame, pairBy []string, arm, ids *frame.Column) *framePairs {
	p := &framePairs{arm: arm, rows: make([]int, fr.Len())}
	for _, c := range pairBy {
		p.keys = append(p.keys, fr.Col(c))
	}
	for i := range p.rows {
		p.rows[i] = i
	}
	slices.SortStableFunc(p.rows, func(a, b int) int {
		for _, c := range p.keys {
			if d := cmp.Compare(c.Codes[a], c.Codes[b]); d != 0 {
				return d
			}
		}
		if d := cmp.Compare(arm.Codes[a], arm.Codes[b]); d != 0 {
			return d
		}
		return cmp.Compare(ids.Level(a), ids.Level(b))
	})
	return p
}

// pairs calls fn(base row, other row) for each matched pair of the arm
// levels base and other, and returns the episodes of each left without
// a partner.
func (p *framePairs) pairs(base, other int32, fn func(b, o int)) (unmatchedBase, unmatchedOther int) {
	sameKey := func(a, b int) bool {
		for _, c := range p.keys {
			if c.Codes[a] != c.Codes[b] {
				return false
			}
		}
		return true
	}
	rows := p.rows
	for lo := 0; lo < len(rows); {
		hi := lo + 1
		for hi < len(rows) && sameKey(rows[lo], rows[hi]) {
			hi++
		}
		var bs, os []int
		for _, i := range rows[lo:hi] {
			switch p.arm.Codes[i] {
			case base:
				bs = append(bs, i)
			case other:
				os = append(os, i)
			}
		}
		m := min(len(bs), len(os))
		for j := range m {
			fn(bs[j], os[j])
		}
		unmatchedBase += len(bs) - m
		unmatchedOther += len(os) - m
		lo = hi
	}
	return unmatchedBase, unmatchedOther
}
