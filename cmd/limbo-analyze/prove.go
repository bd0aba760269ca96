package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/sandbox"
)

type proveOptions struct {
	grid []float64 // read-back times T of Proposition 1
	tail []float64 // in-flight delays δ of Proposition 2's tail worlds
}

func newProveCmd(e *env) *cobra.Command {
	var o proveOptions
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
			var err error
			if o.grid, err = parseSeconds("--grid", grid); err != nil {
				return err
			}
			if o.tail, err = parseSeconds("--tail", tail); err != nil {
				return err
			}
			return runProve(o, e.stdout)
		},
	}
	cmd.Flags().StringVar(&grid, "grid", joinSeconds(sandbox.DefaultReadBackGrid), "read-back times T in seconds for Proposition 1 (comma-separated, each ≥ 30)")
	cmd.Flags().StringVar(&tail, "tail", joinSeconds(sandbox.DefaultTailDelays), "in-flight delays δ in seconds for Proposition 2's tail worlds (comma-separated, 40–7200)")
	return cmd
}

func joinSeconds(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strings.Join(s, ",")
}

func parseSeconds(flag, s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || x != x || x < 0 || x > 86400 {
			return nil, usagef("prove: %s: %q is not a number of seconds in [0, 86400]", flag, f)
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		return nil, usagef("prove: %s: no values", flag)
	}
	return out, nil
}

var errProofFailed = errors.New("prove: a proposition check failed")

func runProve(o proveOptions, out io.Writer) error {
	p1 := sandbox.CheckProposition1(o.grid)
	p2 := sandbox.CheckProposition2(o.tail)
	if err := renderProve(out, p1, p2); err != nil {
		return err
	}
	if !p1.Pass || !p2.Pass {
		return errProofFailed
	}
	return nil
}

func renderProve(out io.Writer, p1 sandbox.Prop1Result, p2 sandbox.Prop2Result) error {
	var b strings.Builder
	b.WriteString("Proposition 1\n")
	b.WriteString("No verification-only policy is exactly-once under late commits: W_absent and W_late look the same until the late commit.\n")
	fmt.Fprintf(&b, "Policies: read back at T ∈ {%s} s after the send, re-issue if absent; W_late commits at T + lag + 60 s.\n\n", joinSeconds(p1.Grid))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "task\tstep\twrite\tclass\tread path\tidentical\tre-issued (absent)\tduplicated (late)\tcheck")
	var dup, unprot, ident, total int
	for _, r := range p1.Rows {
		write := r.Tool
		if r.Platform != "" {
			write += " (" + r.Platform + ")"
		}
		check := "ok"
		if !r.OK {
			check = "FAIL"
		}
		note := ""
		if r.Natural {
			note = " (natural)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d/%d\t%d/%d\t%d/%d%s\t%s\n", r.Task, r.FocalIndex, write, r.Class, r.ReadPath,
			r.Identical, r.Policies, r.ReissuedAbsent, r.Policies, r.DupLate, r.Policies, note, check)
		ident += r.Identical
		total += r.Policies
		if !r.Natural {
			unprot += r.Policies
			dup += r.DupLate
		}
	}
	tw.Flush()
	fmt.Fprintf(&b, "\nidentical traces until the late commit: %d/%d; duplicated in W_late among writes that are not naturally idempotent: %d/%d\n", ident, total, dup, unprot)
	passLine(&b, "Proposition 1", p1.Pass, p1.Failures)

	b.WriteString("\nProposition 2\n")
	b.WriteString("Re-issuing with the original idempotency key leaves exactly one effect in every world (commits per world, drained ledger).\n\n")
	tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	head := []string{"contract", "task", "step", "write"}
	for _, w := range p2.Worlds {
		head = append(head, w.Name)
	}
	head = append(head, "check")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	ones, cells := 0, 0
	for _, r := range p2.Rows {
		write := r.Tool
		if r.Platform != "" {
			write += " (" + r.Platform + ")"
		}
		cols := []string{r.Contract, r.Task, strconv.Itoa(r.FocalIndex), write}
		for _, n := range r.Commits {
			switch n {
			case sandbox.NotApplicable:
				cols = append(cols, "–")
				continue
			case sandbox.Uneven:
				cols = append(cols, "uneven")
			default:
				cols = append(cols, strconv.Itoa(n))
			}
			cells++
			if n == 1 {
				ones++
			}
		}
		if r.OK {
			cols = append(cols, "ok")
		} else {
			cols = append(cols, "FAIL")
		}
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
	}
	tw.Flush()
	fmt.Fprintf(&b, "\nexactly one effect: %d/%d (write, world) cells\n", ones, cells)
	passLine(&b, "Proposition 2", p2.Pass, p2.Failures)
	_, err := io.WriteString(out, b.String())
	return err
}

func passLine(b *strings.Builder, name string, pass bool, failures []string) {
	if pass {
		fmt.Fprintf(b, "PASS: %s holds on the sandbox.\n", name)
		return
	}
	fmt.Fprintf(b, "FAIL: %s does not hold (%d failures):\n", name, len(failures))
	for i, f := range failures {
		if i == 10 {
			fmt.Fprintf(b, "  … and %d more\n", len(failures)-10)
			break
		}
		fmt.Fprintf(b, "  %s\n", f)
	}
}
