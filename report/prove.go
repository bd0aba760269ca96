package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/limbo-toolkit/limbo/sandbox"
)

// ProofFormats are the formats of the propositions' proof.
var ProofFormats = []string{"text", "md", "latex"}

// Proof writes the report of both propositions in format (text, md or
// latex): each one's statement, its table (one row per focal write), a
// tally and a PASS or FAIL line listing at most ten failures.
func Proof(w io.Writer, p1 sandbox.Prop1Result, p2 sandbox.Prop2Result, format string) error {
	switch format {
	case "text", "md", "latex":
	default:
		return fmt.Errorf("format %q: want text, md or latex", format)
	}
	var b strings.Builder
	d := doc{&b, format}
	d.heading("Proposition 1")
	d.line("No verification-only policy is exactly-once under late commits: W_absent and W_late look the same until the late commit.")
	d.line(fmt.Sprintf("Policies: read back at T ∈ {%s} s after the send, re-issue if absent; W_late commits at T + lag + 60 s.", sandbox.JoinSeconds(p1.Grid)))
	d.line("")
	t1 := plainGrid("task", "step", "write", "class", "read path", "identical", "re-issued (absent)", "duplicated (late)", "check")
	var dup, unprot, ident, total int
	for _, r := range p1.Rows {
		note := ""
		if r.Natural {
			note = " (natural)"
		}
		t1.Add(r.Task, r.FocalIndex, writeName(r.Tool, r.Platform), r.Class, r.ReadPath,
			fmt.Sprintf("%d/%d", r.Identical, r.Policies), fmt.Sprintf("%d/%d", r.ReissuedAbsent, r.Policies),
			fmt.Sprintf("%d/%d%s", r.DupLate, r.Policies, note), okOrFail(r.OK))
		ident += r.Identical
		total += r.Policies
		if !r.Natural {
			unprot += r.Policies
			dup += r.DupLate
		}
	}
	d.table(t1)
	d.line("")
	d.line(fmt.Sprintf("identical traces until the late commit: %d/%d; duplicated in W_late among writes that are not naturally idempotent: %d/%d", ident, total, dup, unprot))
	passLine(d, "Proposition 1", p1.Pass, p1.Failures)

	d.line("")
	d.heading("Proposition 2")
	d.line("Re-issuing with the original idempotency key leaves exactly one effect in every world (commits per world, drained ledger).")
	d.line("")
	head := []string{"contract", "task", "step", "write"}
	for _, w := range p2.Worlds {
		head = append(head, w.Name)
	}
	t2 := plainGrid(append(head, "check")...)
	ones, cells := 0, 0
	for _, r := range p2.Rows {
		cols := []any{r.Contract, r.Task, r.FocalIndex, writeName(r.Tool, r.Platform)}
		for _, n := range r.Commits {
			switch n {
			case sandbox.NotApplicable:
				cols = append(cols, "–")
				continue
			case sandbox.Uneven:
				cols = append(cols, "uneven")
			default:
				cols = append(cols, n)
			}
			cells++
			if n == 1 {
				ones++
			}
		}
		t2.Add(append(cols, okOrFail(r.OK))...)
	}
	d.table(t2)
	d.line("")
	d.line(fmt.Sprintf("exactly one effect: %d/%d (write, world) cells", ones, cells))
	passLine(d, "Proposition 2", p2.Pass, p2.Failures)
	_, err := io.WriteString(w, b.String())
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

// passLine says whether a proposition holds, listing at most ten
// failures.
func passLine(d doc, name string, pass bool, failures []string) {
	if pass {
		d.line("PASS: " + name + " holds on the sandbox.")
		return
	}
	d.line(fmt.Sprintf("FAIL: %s does not hold (%d failures):", name, len(failures)))
	for i, f := range failures {
		if i == 10 {
			d.line(fmt.Sprintf("  … and %d more", len(failures)-10))
			break
		}
		d.line("  " + f)
	}
}
