package sandbox

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// JoinSeconds formats a list of seconds as prove's flags take it: "30,60,120".
func JoinSeconds(xs []float64) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strings.Join(s, ",")
}

// ParseSeconds reads a list of seconds as JoinSeconds writes it: comma
// separated, empty items skipped, each a number in [0, 86400]. The error
// names the first item that is not, or says the list is empty.
func ParseSeconds(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		x, err := strconv.ParseFloat(f, 64)
		if err != nil || x != x || x < 0 || x > 86400 {
			return nil, fmt.Errorf("%q is not a number of seconds in [0, 86400]", f)
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		return nil, errors.New("no values")
	}
	return out, nil
}

// WriteProof writes the report of both propositions as text: each one's
// statement, its table (one row per focal write), a tally and a PASS or
// FAIL line listing at most ten failures.
func WriteProof(out io.Writer, p1 Prop1Result, p2 Prop2Result) error {
	var b strings.Builder
	b.WriteString("Proposition 1\n")
	b.WriteString("No verification-only policy is exactly-once under late commits: W_absent and W_late look the same until the late commit.\n")
	fmt.Fprintf(&b, "Policies: read back at T ∈ {%s} s after the send, re-issue if absent; W_late commits at T + lag + 60 s.\n\n", JoinSeconds(p1.Grid))
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "task\tstep\twrite\tclass\tread path\tidentical\tre-issued (absent)\tduplicated (late)\tcheck")
	var dup, unprot, ident, total int
	for _, r := range p1.Rows {
		note := ""
		if r.Natural {
			note = " (natural)"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%d/%d\t%d/%d\t%d/%d%s\t%s\n", r.Task, r.FocalIndex, writeName(r.Tool, r.Platform), r.Class, r.ReadPath,
			r.Identical, r.Policies, r.ReissuedAbsent, r.Policies, r.DupLate, r.Policies, note, okOrFail(r.OK))
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
		cols := []string{r.Contract, r.Task, strconv.Itoa(r.FocalIndex), writeName(r.Tool, r.Platform)}
		for _, n := range r.Commits {
			switch n {
			case NotApplicable:
				cols = append(cols, "–")
				continue
			case Uneven:
				cols = append(cols, "uneven")
			default:
				cols = append(cols, strconv.Itoa(n))
			}
			cells++
			if n == 1 {
				ones++
			}
		}
		fmt.Fprintln(tw, strings.Join(append(cols, okOrFail(r.OK)), "\t"))
	}
	tw.Flush()
	fmt.Fprintf(&b, "\nexactly one effect: %d/%d (write, world) cells\n", ones, cells)
	passLine(&b, "Proposition 2", p2.Pass, p2.Failures)
	_, err := io.WriteString(out, b.String())
	return err
}

func writeName(tool, platform string) string {
	if platform != "" {
		return tool + " (" + platform + ")"
	}
	return tool
}

func okOrFail(ok bool) string {
	if ok {
		return "ok"
	}
	return "FAIL"
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
