package analysis

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// gateRun is n worlds (T01, instance i) of one run; dup[i] says whether
// world i duplicated.
func gateRun(model string, dup []bool) Query {
	var eps []*ledger.Episode
	for i, d := range dup {
		eps = append(eps, &ledger.Episode{EpisodeID: fmt.Sprintf("E2/h/native/vanilla/default/%s/T01/%d/0/timeout_post", model, i),
			Experiment: "E2", Model: model, Harness: "h", Template: "T01", Instance: int64(i), FaultMode: ledger.FaultTimeoutPost,
			Contract: ledger.ContractNative, Condition: "vanilla", Cue: ledger.CueDefault, Duplicated: d, Weight: 1})
	}
	return Query{Source: table.Episodes(eps)}
}

func pattern(n int, every int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = every > 0 && i%every == 0
	}
	return out
}

func TestGate(t *testing.T) {
	base := pattern(400, 10) // 10% duplicated
	tests := []struct {
		name   string
		cand   []bool
		margin float64
		pass   bool
	}{
		{"identical runs", base, 0.02, true},
		{"better candidate", pattern(400, 20), 0.02, true},
		{"much worse candidate", pattern(400, 4), 0.02, false},
		{"slightly worse within a wide margin", pattern(400, 9), 0.10, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Gate(GateSpec{Candidate: gateRun("new", tc.cand), Baseline: gateRun("old", base), Margin: tc.margin})
			if err != nil {
				t.Fatal(err)
			}
			if r.Pass != tc.pass || r.Pairs != 400 {
				t.Fatalf("Pass = %v over %d pairs (%+v), want %v over 400", r.Pass, r.Pairs, *r, tc.pass)
			}
			// The decision is the paired Wald test's upper one-sided p-value
			// on the 2×2 table of the pairs (a both, b candidate only, ...).
			var a, b, c, d int
			for i := range base {
				switch {
				case tc.cand[i] && base[i]:
					a++
				case tc.cand[i]:
					b++
				case base[i]:
					c++
				default:
					d++
				}
			}
			want := stats.TOSTPaired(a, b, c, d, tc.margin)
			if math.Abs(r.P-want.PUpper) > 1e-15 || math.Abs(r.Diff-want.Diff) > 1e-15 || math.Abs(r.Hi90-want.Hi90) > 1e-15 {
				t.Errorf("P, Diff, Hi90 = %v, %v, %v; want %v, %v, %v", r.P, r.Diff, r.Hi90, want.PUpper, want.Diff, want.Hi90)
			}
			if r.Pass != (want.PUpper < stats.TOSTAlpha) || r.Pass != (want.Hi90 < tc.margin) {
				t.Errorf("Pass = %v, p_upper %v, hi90 %v", r.Pass, want.PUpper, want.Hi90)
			}
		})
	}
}

func TestGateUnpairedAndWhere(t *testing.T) {
	cand := gateRun("new", pattern(10, 0)[:8]) // the first 8 of the 10 worlds
	r, err := Gate(GateSpec{Candidate: cand, Baseline: gateRun("old", pattern(10, 0)), Margin: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	if r.Pairs != 8 || len(r.Warnings) == 0 || r.Warnings[0].Code != WarnUnmatched {
		t.Errorf("pairs %d, warnings %q", r.Pairs, r.Warnings)
	}
	r, err = Gate(GateSpec{Candidate: gateRun("new", pattern(10, 0)), Baseline: gateRun("old", pattern(10, 0)), Margin: 0.05, Where: "instance < 4"})
	if err != nil || r.Pairs != 4 {
		t.Fatalf("with Where: %v pairs, %v", r, err)
	}
}

func TestGateSpecErrors(t *testing.T) {
	ok := gateRun("m", pattern(4, 2))
	tests := []struct {
		spec  GateSpec
		field string
	}{
		{GateSpec{Candidate: ok, Baseline: ok}, "Margin"},
		{GateSpec{Candidate: ok, Baseline: ok, Margin: 1}, "Margin"},
		{GateSpec{Baseline: ok, Margin: 0.1}, "Candidate"},
		{GateSpec{Candidate: ok, Baseline: Query{Source: &table.Files{Paths: []string{""}}}, Margin: 0.1}, "Baseline"},
	}
	for _, tc := range tests {
		_, err := Gate(tc.spec)
		var fe *SpecError
		if !errors.As(err, &fe) || fe.Field != tc.field || strings.Contains(err.Error(), "--") {
			t.Errorf("Gate(%+v) = %v, want a %s field error naming no flag", tc.spec.Margin, err, tc.field)
		}
	}
}
