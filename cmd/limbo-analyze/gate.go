package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/report"
)

func newGateCmd(e *env) *cobra.Command {
	var o inputOptions
	var base, outcome string
	var margin float64
	var pairBy []string
	c := &cobra.Command{
		Use:   "gate --in CANDIDATE --baseline BASELINE --margin D",
		Short: "Fail (exit 1) when a run's duplicate rate is worse than a baseline's by the margin or more",
		Long: `gate pairs the episodes of two runs of one plan world by world (--pair-by; default
template, instance, focal_write, focal_index, fault_mode, contract, condition, cue) and tests
non-inferiority, H0 p_candidate − p_baseline ≥ --margin for the bad --outcome, by the
upper one-sided test of tost's paired Wald test at 0.05: exit 0 when H0 is rejected,
1 otherwise, so a CI job fails on a regression.

Example:
  limbo-analyze gate --in new.jsonl --baseline main.jsonl --margin 0.02`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Weight = "none"
			cand, b := o.query(e), o.query(e)
			b.Source = o.files(e, base)
			r, err := analysis.Gate(analysis.GateSpec{Candidate: cand, Baseline: b, Outcome: outcome, Margin: margin, PairBy: pairBy, Where: o.Where})
			var se *analysis.SpecError
			if errors.As(err, &se) {
				// The runs are this command's flags (Margin is every command's).
				return usageError{fieldtext.Rename(err, map[string]string{"Candidate": "--in", "Baseline": "--baseline"})}
			} else if err != nil {
				return err
			}
			verdict := report.GateVerdict(r)
			fmt.Fprintln(e.stdout, verdict)
			if !r.Pass {
				return errors.New("gate failed: " + verdict)
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
	return c
}
