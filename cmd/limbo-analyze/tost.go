package main

import (
	"fmt"
	"math"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/stats"
)

type tostOptions struct {
	inputOptions
	Outcome      string
	Arm          string
	A, B         string
	Margin       float64
	Method       string
	PairedBy     []string
	methodForced bool
}

func newTOSTCmd(e *env) *cobra.Command {
	o := &tostOptions{}
	c := &cobra.Command{
		Use:   "tost --in FILE --outcome COL --arm COL --a L1 --b L2 [--margin 0.05]",
		Short: "Two one-sided tests of equivalence of two proportions",
		Long: `tost tests whether the proportions of the binary --outcome in two levels of
--arm (--a and --b) are equivalent within ±--margin: H₀ |p_a − p_b| ≥ margin.
diff = p_a − p_b; p_tost is the larger of the two one-sided p-values and
equivalent means p_tost < 0.05 (the 90% interval lies inside ±margin).

Independent samples use --method agresti-caffo (default, as statsmodels),
wald or score (Miettinen–Nurminen); newcombe90 is the Newcombe hybrid score
interval. With --paired-by COLS the episodes are matched as in 'paired'
(sorted by episode_id within each key) and the paired Wald test is used,
with Newcombe's square-and-add interval. The tests take counts, so tost is
unweighted.

Examples:
  limbo-analyze tost --in runs.parquet --outcome eos --arm condition --a vanilla --b aware --margin 0.05
  limbo-analyze tost --in runs.csv --outcome eos --arm condition --a vanilla --b guard --paired-by pair_key,contract --format json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(); err != nil {
				return err
			}
			o.methodForced = cmd.Flags().Changed("method")
			switch {
			case o.Outcome == "":
				return usagef("--outcome is required")
			case o.Arm == "":
				return usagef("--arm is required")
			case o.A == "" || o.B == "":
				return usagef("--a and --b (the two levels of --arm) are required")
			case o.A == o.B:
				return usagef("--a and --b are the same level %q", o.A)
			case !(o.Margin > 0 && o.Margin < 1):
				return usagef("--margin %v: want a difference in (0, 1), e.g. 0.05", o.Margin)
			case o.Weight != "" && o.Weight != "none":
				return usagef("--weight: tost is unweighted (its tests take counts)")
			case len(o.PairedBy) > 0 && o.methodForced:
				return usagef("--method applies to independent samples; with --paired-by the paired Wald test is used")
			}
			switch o.Method {
			case "wald", "agresti-caffo", "score":
			default:
				return usagef("--method %q: want wald, agresti-caffo or score", o.Method)
			}
			return runTOST(e, o)
		},
	}
	addInputFlags(c, &o.inputOptions, `not supported: tost is unweighted`)
	f := c.Flags()
	f.StringVar(&o.Outcome, "outcome", "", "binary outcome column (required)")
	f.StringVar(&o.Arm, "arm", "", "column whose two levels are compared (required)")
	f.StringVar(&o.A, "a", "", "first level of --arm (diff = p_a − p_b)")
	f.StringVar(&o.B, "b", "", "second level of --arm")
	f.Float64Var(&o.Margin, "margin", 0.05, "equivalence margin on the difference of proportions")
	f.StringVar(&o.Method, "method", "agresti-caffo", "independent-samples test: wald, agresti-caffo or score")
	f.StringSliceVar(&o.PairedBy, "paired-by", nil, "match episodes on these columns and use the paired test")
	return c
}

type tostResult struct {
	A          string   `json:"a"`
	B          string   `json:"b"`
	NA         int      `json:"n_a"`
	NB         int      `json:"n_b"`
	Pairs      *int     `json:"pairs,omitempty"`
	Margin     float64  `json:"margin"`
	Diff       num      `json:"diff"`
	CI90       [2]num   `json:"ci90"`
	Method     string   `json:"method"`
	PLower     num      `json:"p_lower"`
	PUpper     num      `json:"p_upper"`
	PTOST      num      `json:"p_tost"`
	Equivalent bool     `json:"equivalent"`
	Newcombe90 [2]num   `json:"newcombe90"`
	Warnings   []string `json:"warnings"`
}

func runTOST(e *env, o *tostOptions) error {
	var warn warnings
	var r stats.TOSTResult
	res := tostResult{A: o.A, B: o.B, Margin: o.Margin}
	if len(o.PairedBy) > 0 {
		pr, err := readPairing(e, &o.inputOptions, o.Outcome, o.Arm, o.PairedBy, "", o.A, []string{o.B}, &warn)
		if err != nil {
			return err
		}
		la, err := armLevel(pr.arm, "--a", o.A)
		if err != nil {
			return err
		}
		lb, err := armLevel(pr.arm, "--b", o.B)
		if err != nil {
			return err
		}
		tb := pr.table(la, lb)
		if tb.pairs() == 0 {
			return fmt.Errorf("no matched pairs of %s and %s on %v after --where; nothing to test", o.A, o.B, o.PairedBy)
		}
		if tb.unmatched1+tb.unmatched2 > 0 {
			warn.addf("%d %s and %d %s episode(s) without a partner dropped", tb.unmatched1, o.A, tb.unmatched2, o.B)
		}
		// NewcombePaired's table: a both succeed, b only the first (--a).
		r = stats.TOSTPaired(tb.a, tb.b, tb.c, tb.d, o.Margin)
		n := tb.pairs()
		res.Pairs = &n
		res.NA, res.NB = n, n
	} else {
		fr, err := readFrame(e, &o.inputOptions, frame.Spec{Columns: []string{o.Arm}, Outcome: o.Outcome, Collapse: true}, &warn)
		if err != nil {
			return err
		}
		arm := fr.Col(o.Arm)
		la, err := armLevel(arm, "--a", o.A)
		if err != nil {
			return err
		}
		lb, err := armLevel(arm, "--b", o.B)
		if err != nil {
			return err
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
		r = stats.TOSTIndep(int(ca.Events), int(ca.N), int(cb.Events), int(cb.N), o.Margin, o.Method)
		res.NA, res.NB = int(ca.N), int(cb.N)
	}
	if math.IsNaN(r.PTOST) {
		warn.addf("the test is undefined for these counts (a zero standard error); p-values are null")
	}
	res.Diff = num(r.Diff)
	res.CI90 = [2]num{num(r.Lo90), num(r.Hi90)}
	res.Method = r.Method
	res.PLower, res.PUpper, res.PTOST = num(r.PLower), num(r.PUpper), num(r.PTOST)
	res.Equivalent = r.Equivalent
	res.Newcombe90 = [2]num{num(r.NewcombeLo), num(r.NewcombeHi)}
	res.Warnings = warn.items()
	t := &table{header: []string{"a", "b", "n_a", "n_b", "diff", "ci90_lo", "ci90_hi", "method", "p_lower", "p_upper", "p_tost", "equivalent", "newcombe90_lo", "newcombe90_hi"}}
	t.add(o.A, o.B, res.NA, res.NB, r.Diff, r.Lo90, r.Hi90, r.Method, r.PLower, r.PUpper, r.PTOST, r.Equivalent, r.NewcombeLo, r.NewcombeHi)
	pre := []string{fmt.Sprintf("%s: %s = %s vs %s, margin ±%v", o.Outcome, o.Arm, o.A, o.B, o.Margin)}
	return renderWith(e, o.Format, res, t, textOf(pre, t.transpose()), &warn)
}
