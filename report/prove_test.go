package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/sandbox"
)

func sampleProof() (sandbox.Prop1Result, sandbox.Prop2Result) {
	fails := make([]string, 12)
	for i := range fails {
		fails[i] = "failure " + string(rune('a'+i))
	}
	p1 := sandbox.Prop1Result{Grid: []float64{30, 3600}, Pass: true, Rows: []sandbox.Prop1Row{
		{FocalWrite: sandbox.FocalWrite{Task: "T01#0", FocalIndex: 1, Tool: "send", Platform: "mail"}, Policies: 2, Identical: 2, ReissuedAbsent: 2, DupLate: 2, OK: true},
		{FocalWrite: sandbox.FocalWrite{Task: "T02#0", FocalIndex: 0, Tool: "put"}, Natural: true, Policies: 2, Identical: 2, ReissuedAbsent: 2, OK: true},
	}}
	p2 := sandbox.Prop2Result{Worlds: []sandbox.Prop2World{{Name: "absent"}, {Name: "late"}}, Failures: fails, Rows: []sandbox.Prop2Row{
		{Contract: "native", FocalWrite: sandbox.FocalWrite{Task: "T01#0", FocalIndex: 1, Tool: "send"}, Commits: []int{1, 2}},
		{Contract: "native", FocalWrite: sandbox.FocalWrite{Task: "T02#0", FocalIndex: 0, Tool: "put"}, Commits: []int{1, sandbox.NotApplicable}, OK: true},
	}}
	return p1, p2
}

// Proof tallies the rows it is given and lists at most ten failures.
func TestProof(t *testing.T) {
	p1, p2 := sampleProof()
	var out bytes.Buffer
	if err := Proof(&out, p1, p2, "text"); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	for _, want := range []string{
		"T ∈ {30,3600} s",
		"send (mail)",
		"0/2 (natural)",
		"identical traces until the late commit: 4/4; duplicated in W_late among writes that are not naturally idempotent: 2/2",
		"PASS: Proposition 1 holds",
		"exactly one effect: 2/3 (write, world) cells",
		"FAIL: Proposition 2 does not hold (12 failures):",
		"  failure j\n  … and 2 more\n",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "failure k") {
		t.Error("more than ten failures listed")
	}
	renderGolden(t, "proof.golden.text", out.Bytes())
}

// Markdown and LaTeX (new with the tables on Grid) are pinned.
func TestProofFormats(t *testing.T) {
	p1, p2 := sampleProof()
	for _, format := range []string{"md", "latex"} {
		var b bytes.Buffer
		if err := Proof(&b, p1, p2, format); err != nil {
			t.Fatal(err)
		}
		renderGolden(t, "proof.golden."+format, b.Bytes())
	}
	if err := Proof(&bytes.Buffer{}, p1, p2, "csv"); err == nil {
		t.Error("csv: no error")
	}
}
