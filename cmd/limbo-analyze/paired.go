package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/stats"
)

type pairedOptions struct {
	inputOptions
	Outcome string
	Arm     string
	Base    string
	PairBy  []string
	Levels  []string
	Test    string
	Adjust  string
}

func newPairedCmd(e *env) *cobra.Command {
	o := &pairedOptions{}
	c := &cobra.Command{
		Use:   "paired --in FILE --outcome COL --arm COL --base LEVEL --pair-by a,b,c",
		Short: "McNemar tests of a base arm against every other arm on matched episodes",
		Long: `paired compares the binary --outcome of the --base level of --arm with each
other level on matched episodes. Within each --pair-by key, the base and the
other arm's episodes are sorted by episode_id and paired k-th with k-th;
unmatched episodes are dropped and counted in the warnings.

For each comparison, b counts pairs where only the base succeeds and c pairs
where only the other does; gain_pp = 100·(b−c)/pairs; p is the two-sided
exact McNemar test (--test midp, chi2 or chi2cc for the others) and p_adj
adjusts over exactly the comparisons reported (Holm by default). Unweighted
unless --weight COL: gain_pp then weights each pair by its base episode's
weight, while b, c and p stay unweighted counts.

Examples:
  limbo-analyze paired --in runs.parquet --outcome duplicated --arm condition --base vanilla --pair-by pair_key,contract
  limbo-analyze paired --in runs.csv --outcome eos --arm condition --base vanilla --pair-by pair_key --levels aware,guard --adjust bh --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			switch {
			case o.Outcome == "":
				return usagef("--outcome is required")
			case o.Arm == "":
				return usagef("--arm is required")
			case o.Base == "":
				return usagef("--base is required")
			case len(o.PairBy) == 0:
				return usagef("--pair-by is required (the columns that identify the same world, e.g. pair_key)")
			case slices.Contains(o.PairBy, o.Arm):
				return usagef("--pair-by must not contain the --arm column %s", o.Arm)
			case slices.Contains(o.Levels, o.Base):
				return usagef("--levels must not contain the --base level %s", o.Base)
			}
			switch o.Test {
			case "exact", "midp", "chi2", "chi2cc":
			default:
				return usagef("--test %q: want exact, midp, chi2 or chi2cc", o.Test)
			}
			switch o.Adjust {
			case "holm", "bonferroni", "bh", "none":
			default:
				return usagef("--adjust %q: want holm, bonferroni, bh or none", o.Adjust)
			}
			return runPaired(e, o)
		},
	}
	addInputFlags(c, &o.inputOptions, `weight column for gain_pp, or "none" (default: unweighted)`)
	f := c.Flags()
	f.StringVar(&o.Outcome, "outcome", "", "binary outcome column (required)")
	f.StringVar(&o.Arm, "arm", "", "column whose levels are compared, e.g. condition (required)")
	f.StringVar(&o.Base, "base", "", "the level of --arm every other level is compared with (required)")
	f.StringSliceVar(&o.PairBy, "pair-by", nil, "columns that match episodes across arms (required)")
	f.StringSliceVar(&o.Levels, "levels", nil, "compare only these levels of --arm (default: all present)")
	f.StringVar(&o.Test, "test", "exact", "McNemar test: exact, midp, chi2 or chi2cc")
	f.StringVar(&o.Adjust, "adjust", "holm", "multiplicity adjustment: holm, bonferroni, bh or none")
	return c
}

type comparison struct {
	Base   string `json:"base"`
	Other  string `json:"other"`
	Pairs  int    `json:"pairs"`
	B      int    `json:"b"`
	C      int    `json:"c"`
	GainPP num    `json:"gain_pp"`
	P      num    `json:"p"`
	PAdj   num    `json:"p_adj"`
}

type pairedResult struct {
	Test        string       `json:"test"`
	Adjust      string       `json:"adjust"`
	Comparisons []comparison `json:"comparisons"`
	Warnings    []string     `json:"warnings"`
}

// pairTable is the 2×2 table of matched pairs of two arms: a both
// succeed, b only the first (base) arm, c only the second, d neither, with
// the summed pair weights (the first arm's episode weight).
type pairTable struct {
	a, b, c, d             int
	wa, wb, wc, wd         float64
	unmatched1, unmatched2 int
}

func (t pairTable) pairs() int { return t.a + t.b + t.c + t.d }

// pairing indexes a frame's episodes by pair-by key and arm level, each
// list sorted by episode_id.
type pairing struct {
	fr    *frame.Frame
	arm   *frame.Column
	byKey map[string]map[int32][]int
	keys  []string // sorted for deterministic iteration
}

func newPairing(fr *frame.Frame, pairBy []string, arm string) *pairing {
	p := &pairing{fr: fr, arm: fr.Col(arm), byKey: map[string]map[int32][]int{}}
	cols := make([]*frame.Column, len(pairBy))
	for j, c := range pairBy {
		cols[j] = fr.Col(c)
	}
	key := make([]byte, 0, 4*len(cols))
	for i := range fr.Len() {
		key = key[:0]
		for _, c := range cols {
			code := c.Codes[i]
			key = append(key, byte(code), byte(code>>8), byte(code>>16), byte(code>>24))
		}
		m, ok := p.byKey[string(key)]
		if !ok {
			m = map[int32][]int{}
			p.byKey[string(key)] = m
			p.keys = append(p.keys, string(key))
		}
		a := p.arm.Codes[i]
		m[a] = append(m[a], i)
	}
	slices.Sort(p.keys)
	id := fr.Col("episode_id")
	for _, m := range p.byKey {
		for _, rows := range m {
			slices.SortFunc(rows, func(x, y int) int { return strings.Compare(id.Level(x), id.Level(y)) })
		}
	}
	return p
}

// table pairs the episodes of arm levels l1 and l2 k-th with k-th within
// each key.
func (p *pairing) table(l1, l2 int32) pairTable {
	var t pairTable
	for _, k := range p.keys {
		r1, r2 := p.byKey[k][l1], p.byKey[k][l2]
		n := min(len(r1), len(r2))
		t.unmatched1 += len(r1) - n
		t.unmatched2 += len(r2) - n
		for i := range n {
			c1, c2 := p.fr.Cells[r1[i]], p.fr.Cells[r2[i]]
			w := c1.SumW
			switch {
			case c1.Events == 1 && c2.Events == 1:
				t.a++
				t.wa += w
			case c1.Events == 1:
				t.b++
				t.wb += w
			case c2.Events == 1:
				t.c++
				t.wc += w
			default:
				t.d++
				t.wd += w
			}
		}
	}
	return t
}

// armLevel returns the code of level in the arm column, or an error listing
// the levels present.
func armLevel(arm *frame.Column, flag, level string) (int32, error) {
	i := slices.Index(arm.Levels, level)
	if i < 0 {
		return 0, fmt.Errorf("%s %s: no episode has %s = %q after --where; levels present: %s", flag, level, arm.Name, level, strings.Join(arm.Levels, ", "))
	}
	return int32(i), nil
}

// pairSpec is the frame spec of a paired analysis.
func pairSpec(outcome, arm string, pairBy []string, weight string) frame.Spec {
	cols := slices.Clone(pairBy)
	for _, c := range []string{arm, "episode_id"} {
		if !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	return frame.Spec{Columns: cols, Outcome: outcome, Weight: weight}
}

func runPaired(e *env, o *pairedOptions) error {
	var warn warnings
	weight := o.weightColumn("")
	fr, err := readFrame(e, &o.inputOptions, pairSpec(o.Outcome, o.Arm, o.PairBy, weight), &warn)
	if err != nil {
		return err
	}
	if err := checkWeights(fr, weight); err != nil {
		return err
	}
	pr := newPairing(fr, o.PairBy, o.Arm)
	base, err := armLevel(pr.arm, "--base", o.Base)
	if err != nil {
		return err
	}
	var others []int32
	if len(o.Levels) > 0 {
		for _, l := range o.Levels {
			c, err := armLevel(pr.arm, "--levels", l)
			if err != nil {
				return err
			}
			if !slices.Contains(others, c) {
				others = append(others, c)
			}
		}
		slices.Sort(others)
	} else {
		for i := range pr.arm.Levels {
			if int32(i) != base {
				others = append(others, int32(i))
			}
		}
	}
	if len(others) == 0 {
		return fmt.Errorf("--arm %s has only the base level %q after --where; nothing to compare", o.Arm, o.Base)
	}
	if weight != "" {
		warn.addf("weighted by %s: gain_pp weights each pair by its base episode; b, c, pairs and p are unweighted", weight)
	}
	res := pairedResult{Test: o.Test, Adjust: o.Adjust}
	ps := make([]float64, len(others))
	for k, oc := range others {
		tb := pr.table(base, oc)
		other := pr.arm.Levels[oc]
		cmpn := comparison{Base: o.Base, Other: other, Pairs: tb.pairs(), B: tb.b, C: tb.c}
		gain := math.NaN()
		p := math.NaN()
		if tb.pairs() == 0 {
			warn.addf("%s vs %s: no matched pairs; gain_pp and p are undefined", o.Base, other)
		} else {
			if weight != "" {
				sw := tb.wa + tb.wb + tb.wc + tb.wd
				gain = 100 * (tb.wb - tb.wc) / sw
			} else {
				gain = 100 * float64(tb.b-tb.c) / float64(tb.pairs())
			}
			p = mcnemarP(o.Test, tb.b, tb.c)
		}
		if tb.unmatched1+tb.unmatched2 > 0 {
			warn.addf("%s vs %s: %d %s and %d %s episode(s) without a partner dropped", o.Base, other, tb.unmatched1, o.Base, tb.unmatched2, other)
		}
		cmpn.GainPP, cmpn.P = num(gain), num(p)
		ps[k] = p
		res.Comparisons = append(res.Comparisons, cmpn)
	}
	var adj []float64
	switch o.Adjust {
	case "holm":
		adj = stats.HolmAdjust(ps)
	case "bonferroni":
		adj = stats.BonferroniAdjust(ps)
	case "bh":
		adj = stats.BHAdjust(ps)
	default:
		adj = ps
	}
	t := &table{header: []string{"base", "other", "pairs", "b", "c", "gain_pp", "p", "p_adj"}}
	for k := range res.Comparisons {
		c := &res.Comparisons[k]
		c.PAdj = num(adj[k])
		t.add(c.Base, c.Other, c.Pairs, c.B, c.C, float64(c.GainPP), float64(c.P), float64(c.PAdj))
	}
	res.Warnings = warn.items()
	pre := []string{fmt.Sprintf("%s: %s vs each other %s, McNemar %s, %s adjustment", o.Outcome, o.Base, o.Arm, o.Test, o.Adjust)}
	return render(e, o.Format, res, t, pre, &warn)
}

// mcnemarP is the two-sided p-value of the chosen McNemar test.
func mcnemarP(test string, b, c int) float64 {
	switch test {
	case "midp":
		return stats.McNemarMidP(b, c)
	case "chi2":
		_, p := stats.McNemarChi2(b, c, false)
		return p
	case "chi2cc":
		_, p := stats.McNemarChi2(b, c, true)
		return p
	}
	return stats.McNemarExact(b, c)
}
