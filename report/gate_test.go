package report

import (
	"testing"

	"github.com/limbo-toolkit/limbo/analysis"
)

// The verdict line says pass or FAIL first, then the estimate and the test.
func TestGateVerdict(t *testing.T) {
	for _, tc := range []struct {
		r    analysis.GateResult
		want string
	}{
		{analysis.GateResult{Spec: analysis.GateSpec{Outcome: "duplicated", Margin: 0.02}, Pairs: 40, B: 1, C: 2, Diff: -0.025, Lo90: -0.06, Hi90: 0.0125,
			NewcombeLo: -0.1, NewcombeHi: 0.05, P: 0.0123, Pass: true},
			"gate pass: duplicated candidate − baseline = -0.0250 over 40 pairs (1 worse, 2 better; 90% score [-0.0600, 0.0125], Newcombe [-0.1000, 0.0500]); H0 worse by ≥ 0.02: p = 0.0123"},
		{analysis.GateResult{Spec: analysis.GateSpec{Outcome: "eos", Margin: 0.1}, Pairs: 3, B: 2, C: 0, Diff: 0.5, Lo90: 0.1, Hi90: 0.9, NewcombeLo: 0, NewcombeHi: 1, P: 0.9},
			"gate FAIL: eos candidate − baseline = +0.5000 over 3 pairs (2 worse, 0 better; 90% score [0.1000, 0.9000], Newcombe [0.0000, 1.0000]); H0 worse by ≥ 0.1: p = 0.9"},
	} {
		if got := GateVerdict(&tc.r); got != tc.want {
			t.Errorf("GateVerdict = %q\nwant          %q", got, tc.want)
		}
	}
}
