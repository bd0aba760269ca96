package sandbox

import (
	"bytes"
	"strings"
	"testing"
)

// WriteProof tallies the rows it is given and lists at most ten failures.
func TestWriteProof(t *testing.T) {
	fails := make([]string, 12)
	for i := range fails {
		fails[i] = "failure " + string(rune('a'+i))
	}
	p1 := Prop1Result{Grid: []float64{30, 3600}, Pass: true, Rows: []Prop1Row{
		{FocalWrite: FocalWrite{Task: "T01#0", FocalIndex: 1, Tool: "send", Platform: "mail"}, Policies: 2, Identical: 2, ReissuedAbsent: 2, DupLate: 2, OK: true},
		{FocalWrite: FocalWrite{Task: "T02#0", FocalIndex: 0, Tool: "put"}, Natural: true, Policies: 2, Identical: 2, ReissuedAbsent: 2, OK: true},
	}}
	p2 := Prop2Result{Worlds: []Prop2World{{Name: "absent"}, {Name: "late"}}, Failures: fails, Rows: []Prop2Row{
		{Contract: "native", FocalWrite: FocalWrite{Task: "T01#0", FocalIndex: 1, Tool: "send"}, Commits: []int{1, 2}},
		{Contract: "native", FocalWrite: FocalWrite{Task: "T02#0", FocalIndex: 0, Tool: "put"}, Commits: []int{1, NotApplicable}, OK: true},
	}}
	var out bytes.Buffer
	if err := WriteProof(&out, p1, p2); err != nil {
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
}

func TestJoinSeconds(t *testing.T) {
	if got := JoinSeconds([]float64{30, 0.5, 7200}); got != "30,0.5,7200" {
		t.Errorf("got %q", got)
	}
}
