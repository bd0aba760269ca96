package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/report"
	"github.com/limbo-toolkit/limbo/sandbox"
)

func newProveCmd(e *env) *cobra.Command {
	var grid, tail string
	cmd := &cobra.Command{
		Use:   "prove",
		Short: "Check Propositions 1 and 2 on the sandbox",
		Long: `prove runs the paper's two propositions as executable checks against the
real sandbox, for every focal write of the instance-0 task suite (34 writes).

Proposition 1: for each focal write and each verification-only policy "issue;
on a timeout wait until T after the send, read back through the documented
read path, re-issue if absent" (T over --grid), the agent-visible traces of
W_absent (timeout before the commit) and W_late (the original commits at
δ = T + documented lag + 60 s) are identical until the late commit; the policy
re-issues in W_absent, so it duplicates in W_late unless the write is
naturally idempotent.

Proposition 2: for each focal write whose key the contract honours, the policy
"issue with key k; after any failure wait 30 s and re-issue with k" leaves
exactly one effect in W_absent, W_post, W_late (90 s), W_tail (each δ of
--tail), under redelivery and (for the batch write) after a partial batch,
with the ledger drained.

Each proposition prints its table and a PASS or FAIL line; the exit status is 1
if either fails.

Examples:
  limbo-analyze prove
  limbo-analyze prove --grid 30,120,3600 --tail 40,7200`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			g, err := parseSeconds("--grid", grid) // read-back times T of Proposition 1
			if err != nil {
				return err
			}
			t, err := parseSeconds("--tail", tail) // in-flight delays δ of Proposition 2's tail worlds
			if err != nil {
				return err
			}
			p1, p2 := sandbox.CheckProposition1(g), sandbox.CheckProposition2(t)
			if err := report.Proof(e.stdout, p1, p2, "text"); err != nil {
				return err
			}
			if !p1.Pass || !p2.Pass {
				return errors.New("prove: a proposition check failed")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&grid, "grid", sandbox.JoinSeconds(sandbox.DefaultReadBackGrid), "read-back times T in seconds for Proposition 1 (comma-separated, each ≥ 30)")
	cmd.Flags().StringVar(&tail, "tail", sandbox.JoinSeconds(sandbox.DefaultTailDelays), "in-flight delays δ in seconds for Proposition 2's tail worlds (comma-separated, 40–7200)")
	return cmd
}

// parseSeconds is sandbox.ParseSeconds with a usage error naming flag.
func parseSeconds(flag, s string) ([]float64, error) {
	xs, err := sandbox.ParseSeconds(s)
	if err != nil {
		return nil, usagef("prove: %s: %v", flag, err)
	}
	return xs, nil
}
