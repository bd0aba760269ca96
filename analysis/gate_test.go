package analysis

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
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
			// The decision is Tango's score test at the margin on the 2×2
			// table of the pairs (a both, b candidate only, ...).
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
			p := stats.NormalCDF(stats.TangoPaired(a, b, c, d, tc.margin))
			_, hi := stats.TangoPairedCI(a, b, c, d, 0.90)
			if r.P != p || r.Hi90 != hi || math.Abs(r.Diff-float64(b-c)/400) > 1e-15 || r.B != b || r.C != c {
				t.Errorf("P, Hi90, Diff, B, C = %v, %v, %v, %d, %d; want %v, %v, %v, %d, %d", r.P, r.Hi90, r.Diff, r.B, r.C, p, hi, float64(b-c)/400, b, c)
			}
			if r.Pass != (p < stats.TOSTAlpha) || r.Pass != (hi < tc.margin) {
				t.Errorf("Pass = %v, p %v, hi90 %v", r.Pass, p, hi)
			}
		})
	}
}

// Issue 37, case 4: no evidence, no pass. One matched pair without
// discordance passed (the paired Wald interval is the point 0, p = 0),
// and so did 36; the score interval does not degenerate, so they fail,
// while enough identical pairs pass.
func TestGateNeedsEvidence(t *testing.T) {
	for _, tc := range []struct {
		n      int
		margin float64
		pass   bool
	}{
		{1, 0.05, false},
		{36, 0.05, false},
		{400, 0.02, true},
		{1000, 0.01, true},
	} {
		runs := pattern(tc.n, 0)
		r, err := Gate(GateSpec{Candidate: gateRun("new", runs), Baseline: gateRun("old", runs), Margin: tc.margin})
		if err != nil {
			t.Fatal(err)
		}
		if r.Pass != tc.pass || !(r.Hi90 > 0) || r.P == 0 {
			t.Errorf("%d identical pairs, margin %v: pass %v (p %v, score interval up to %v); want %v", tc.n, tc.margin, r.Pass, r.P, r.Hi90, tc.pass)
		}
	}
}

// A candidate run that matches too little of the baseline (a crash after
// one episode) is refused, naming the counts, whatever its rates.
func TestGateRefusesTooFewMatched(t *testing.T) {
	base := pattern(36, 0)
	r, err := Gate(GateSpec{Candidate: gateRun("new", base[:1]), Baseline: gateRun("old", base), Margin: 0.05})
	var ue *UnmatchedError
	if !errors.As(err, &ue) || ue.Pairs != 1 || ue.Baseline != 36 || ue.Candidate != 1 || ue.MinMatched != DefaultMinMatched {
		t.Fatalf("Gate = %+v, %v; want an UnmatchedError of 1 of 36", r, err)
	}
	if msg := err.Error(); !strings.Contains(msg, "only 1 of the baseline's 36 episodes (2.8%) have a partner among the candidate's 1; the gate needs 95% (MinMatched)") {
		t.Errorf("message %q", msg)
	}
	var fe *fieldtext.Error
	if !errors.As(err, &fe) || fe.Field != "MinMatched" {
		t.Errorf("the error names no MinMatched field: %v", err)
	}
	// 34 of 36 (94.4%) is refused at the default, passes the share at 0.9.
	if _, err := Gate(GateSpec{Candidate: gateRun("new", base[:34]), Baseline: gateRun("old", base), Margin: 0.05}); !errors.As(err, &ue) {
		t.Errorf("34 of 36: %v; want refused", err)
	}
	if _, err := Gate(GateSpec{Candidate: gateRun("new", base[:34]), Baseline: gateRun("old", base), Margin: 0.05, MinMatched: 0.9}); err != nil {
		t.Errorf("34 of 36 with MinMatched 0.9: %v", err)
	}
}

func TestGateUnpairedAndWhere(t *testing.T) {
	cand := gateRun("new", pattern(10, 0)[:8]) // the first 8 of the 10 worlds
	r, err := Gate(GateSpec{Candidate: cand, Baseline: gateRun("old", pattern(10, 0)), Margin: 0.05, MinMatched: 0.8})
	if err != nil {
		t.Fatal(err)
	}
	if r.Pairs != 8 || r.Baseline != 10 || r.Candidate != 8 || len(r.Warnings) == 0 || r.Warnings[0].Code != WarnUnmatched {
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
		{GateSpec{Candidate: ok, Baseline: ok, Margin: 0.1, MinMatched: 1.5}, "MinMatched"},
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
