package prereg

import (
	"math"
	"strings"
	"testing"
)

// TestDecide checks each way a rule reads an estimate, at and around its
// boundaries.
func TestDecide(t *testing.T) {
	n := math.NaN()
	tests := []struct {
		name             string
		rule             Rule
		value, lo, hi, p float64
		bound            float64
		want             Verdict
	}{
		{"point at_least on the bound", Rule{Direction: AtLeast, Use: UsePoint}, 10, n, n, n, 10, Supported},
		{"point above on the bound", Rule{Direction: Above, Use: UsePoint}, 10, n, n, n, 10, NotSupported},
		{"point at_most", Rule{Direction: AtMost, Use: UsePoint}, 2.5, n, n, n, 2, NotSupported},
		{"point NaN", Rule{Direction: AtMost, Use: UsePoint}, n, n, n, n, 2, NotComputable},
		{"interval at_least inside", Rule{Direction: AtLeast, Use: UseInterval}, 30, 20, 40, n, 20, Supported},
		{"interval at_least straddles", Rule{Direction: AtLeast, Use: UseInterval}, 30, 19, 40, n, 20, Inconclusive},
		{"interval at_least below", Rule{Direction: AtLeast, Use: UseInterval}, 10, 5, 19.9, n, 20, NotSupported},
		{"interval below inside", Rule{Direction: Below, Use: UseInterval}, 2, 1, 4.9, n, 5, Supported},
		{"interval below straddles", Rule{Direction: Below, Use: UseInterval}, 4, 1, 6, n, 5, Inconclusive},
		{"interval below wholly above", Rule{Direction: Below, Use: UseInterval}, 30, 26, 43, n, 5, NotSupported},
		{"interval lacks bounds", Rule{Direction: Below, Use: UseInterval}, 30, n, n, n, 5, NotComputable},
		{"test significant", Rule{Direction: Above, Use: UseTest, Alpha: 0.05}, 2, n, n, 0.01, 1, Supported},
		{"test not significant", Rule{Direction: Above, Use: UseTest, Alpha: 0.05}, 2, n, n, 0.05, 1, Inconclusive},
		{"test wrong side", Rule{Direction: Above, Use: UseTest, Alpha: 0.05}, 0.5, n, n, 0.001, 1, NotSupported},
		{"test no p", Rule{Direction: Above, Use: UseTest, Alpha: 0.05}, 2, n, n, n, 1, NotComputable},
		{"different significant either side", Rule{Direction: Different, Use: UseTest, Alpha: 0.05}, 0.5, n, n, 0.001, 1, Supported},
		{"different not significant", Rule{Direction: Different, Use: UseTest, Alpha: 0.05}, 0.5, n, n, 0.2, 1, Inconclusive},
		{"equivalent inside", Rule{Direction: Equivalent, Use: UseInterval, Margin: 5}, 0, -4.9, 4.9, n, n, Supported},
		{"equivalent touches the margin", Rule{Direction: Equivalent, Use: UseInterval, Margin: 5}, 0, -5, 4, n, n, Inconclusive},
		{"equivalent wholly outside", Rule{Direction: Equivalent, Use: UseInterval, Margin: 5}, 8, 5, 11, n, n, NotSupported},
		{"equivalent wholly below", Rule{Direction: Equivalent, Use: UseInterval, Margin: 5}, -8, -11, -5, n, n, NotSupported},
	}
	for _, tt := range tests {
		pr := &PartResult{Estimate: Stat{Value: tt.value, Lo: tt.lo, Hi: tt.hi, P: tt.p}, Bound: tt.bound}
		if got, _ := decide(&tt.rule, pr); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestCombine checks how part verdicts make a hypothesis's.
func TestCombine(t *testing.T) {
	ruled := &Part{Rule: &Rule{}, IfNotComputable: "fail"}
	lenient := &Part{Rule: &Rule{}, IfNotComputable: "not_supported"}
	report := &Part{}
	p := func(part *Part, v Verdict) *PartResult { return &PartResult{part: part, Verdict: v, Reason: "why"} }
	tests := []struct {
		combine Combine
		parts   []*PartResult
		want    Verdict
	}{
		{"all", []*PartResult{p(ruled, Supported), p(ruled, Supported), p(report, "")}, Supported},
		{"all", []*PartResult{p(ruled, Supported), p(ruled, Inconclusive)}, Inconclusive},
		{"all", []*PartResult{p(ruled, Inconclusive), p(ruled, NotSupported)}, NotSupported},
		{"all", []*PartResult{p(ruled, NotSupported), p(ruled, NotComputable)}, NotComputable},
		{"all", []*PartResult{p(ruled, Supported), p(lenient, NotComputable)}, NotSupported},
		{"partial", []*PartResult{p(ruled, Supported), p(ruled, Supported)}, Supported},
		{"partial", []*PartResult{p(ruled, Supported), p(ruled, NotSupported)}, PartlySupport},
		{"partial", []*PartResult{p(ruled, NotSupported), p(ruled, NotSupported)}, NotSupported},
		{"partial", []*PartResult{p(ruled, Supported), p(lenient, NotComputable)}, PartlySupport},
		{"partial", []*PartResult{p(ruled, NotComputable), p(ruled, Supported)}, NotComputable},
		{"partial", []*PartResult{p(ruled, NotSupported), p(ruled, Inconclusive)}, Inconclusive},
	}
	for i, tt := range tests {
		got, _ := combine(&Hypothesis{Combine: tt.combine}, tt.parts)
		if got != tt.want {
			t.Errorf("case %d (%s): %q, want %q", i, tt.combine, got, tt.want)
		}
	}
}

// TestVerdictText: a verdict reads back from its printed form, and any
// other text is an error naming the accepted values.
func TestVerdictText(t *testing.T) {
	for _, v := range Verdicts {
		var got Verdict
		if err := got.UnmarshalText([]byte(v.String())); err != nil || got != v {
			t.Errorf("%q: %q, %v", v, got, err)
		}
	}
	var v Verdict
	err := v.UnmarshalText([]byte("supported-ish"))
	if err == nil || !strings.Contains(err.Error(), `"partly supported"`) || v != "" {
		t.Errorf("unknown verdict: %v (%q), want an error listing the verdicts", err, v)
	}
}
