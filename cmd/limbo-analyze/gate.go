package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/report"
)

func newGateCmd(e *env) *cobra.Command {
	var o inputOptions
	var base, outcome string
	var margin, minMatched float64
	var pairBy []string
	c := &cobra.Command{
		Use:   "gate --in CANDIDATE --baseline BASELINE --margin D",
		Short: "Fail (exit 1) when a run's duplicate rate is worse than a baseline's by the margin or more",
		Long: `gate pairs the episodes of two runs of one plan world by world (--pair-by; default
template, instance, focal_write, focal_index, fault_mode, contract, condition, cue) and tests
non-inferiority, H0 p_candidate − p_baseline ≥ --margin for the bad --outcome, by
Tango's score test at 0.05 (the upper end of its 90% score interval below the
margin): exit 0 when H0 is rejected, 1 otherwise, so a CI job fails on a
regression. The score interval does not shrink to a point when no pair differs,
so a handful of identical pairs is not enough to pass: at margin 0.02 identical
runs need 133 pairs, at 0.05 52.

A run that matches fewer than --min-matched (default 0.95) of the baseline's
episodes (after --where) is refused, exit 1, naming the counts: a crashed,
truncated or other-plan run is no evidence either way. The verdict is printed
once, on stdout; ledger warnings are capped at five of a kind, as validate does.

Example:
  limbo-analyze gate --in new.jsonl --baseline main.jsonl --margin 0.02`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if !(minMatched > 0 && minMatched <= 1) {
				return usagef("--min-matched %v: want a share of the baseline in (0, 1], e.g. 0.95", minMatched)
			}
			o.Weight = "none"
			wl := ledger.NewWarnLimiter(e.stderr)
			cand, b := o.query(e), o.query(e)
			cand.Source.(*table.Files).Warn = wl.Warn
			b.Source = o.files(e, base)
			b.Source.(*table.Files).Warn = wl.Warn
			r, err := analysis.Gate(analysis.GateSpec{Candidate: cand, Baseline: b, Outcome: outcome, Margin: margin, PairBy: pairBy, Where: o.Where, MinMatched: minMatched})
			wl.Flush()
			var se *analysis.SpecError
			if errors.As(err, &se) {
				// The runs are this command's flags (Margin is every command's).
				return usageError{fieldtext.Rename(err, map[string]string{"Candidate": "--in", "Baseline": "--baseline", "MinMatched": "--min-matched"})}
			} else if err != nil {
				return fieldtext.Rename(err, map[string]string{"MinMatched": "--min-matched"})
			}
			for _, w := range r.Warnings {
				fmt.Fprintf(e.stderr, "limbo-analyze: warning: %s\n", report.PrintableLines(w.Msg))
			}
			fmt.Fprintln(e.stdout, report.GateVerdict(r))
			if !r.Pass {
				return fmt.Errorf("gate failed over %d pairs (the verdict is on stdout)", r.Pairs)
			}
			return nil
		},
	}
	c.Flags().StringVar(&o.In, "in", "", "the candidate run's ledger (required)")
	c.Flags().StringVar(&o.Where, "where", "", "keep only episodes (of both runs) where this expression is true")
	c.Flags().BoolVar(&o.Strict, "strict", false, "treat ledger plausibility warnings as errors")
	c.Flags().StringVar(&base, "baseline", "", "the baseline run's ledger (the same plan)")
	c.Flags().StringVar(&outcome, "outcome", "duplicated", "the bad binary outcome (higher is worse)")
	c.Flags().Float64Var(&margin, "margin", 0, "the worsening tolerated, a difference of proportions (required), e.g. 0.02")
	c.Flags().StringSliceVar(&pairBy, "pair-by", nil, "columns that pair the runs' episodes (default: the world's design columns)")
	c.Flags().Float64Var(&minMatched, "min-matched", analysis.DefaultMinMatched, "the share of the baseline's episodes that must have a partner in the candidate run")
	return c
}
