package stats

import (
	"math"
	"testing"
)

// TestMcNemarLog10 checks log₁₀ of the exact and mid-p McNemar p-values
// against R's pbinom/dbinom in log space (mcnemar_log.json, from
// mcnemar_log.R beside the cases), including tables whose p-value
// underflows float64 (b = 0, c = 1075 onwards).
func TestMcNemarLog10(t *testing.T) {
	var ref struct {
		Cases []struct {
			B, C       int
			ExactLog10 float64 `json:"exact_log10"`
			MidpLog10  float64 `json:"midp_log10"`
		}
	}
	loadJSON(t, ownRef+"mcnemar_log.json", &ref)
	if len(ref.Cases) == 0 {
		t.Fatal("no reference cases")
	}
	underflows := 0
	for _, tc := range ref.Cases {
		for _, f := range []struct {
			name      string
			got, want float64
			p         float64
		}{
			{"exact", McNemarExactLog10(tc.B, tc.C), tc.ExactLog10, McNemarExact(tc.B, tc.C)},
			{"mid-p", McNemarMidPLog10(tc.B, tc.C), tc.MidpLog10, McNemarMidP(tc.B, tc.C)},
		} {
			if math.IsInf(f.got, 0) || math.IsNaN(f.got) {
				t.Errorf("%s b=%d c=%d: log10 p = %v", f.name, tc.B, tc.C, f.got)
				continue
			}
			// Relative on the log: 1e-10 of 1,500 decades is still a
			// relative error of 3e-7 in p.
			if math.Abs(f.got-f.want) > 1e-10*math.Abs(f.want)+1e-12 {
				t.Errorf("%s b=%d c=%d: log10 p = %.15g, want R %.15g", f.name, tc.B, tc.C, f.got, f.want)
			}
			if f.p == 0 {
				underflows++
			}
		}
	}
	// The cases must include tables whose plain p-value underflows, or
	// the log path would go untested.
	if underflows < 6 {
		t.Errorf("only %d reference p-values underflow float64", underflows)
	}
}

func TestReportP(t *testing.T) {
	for _, tc := range []struct {
		lp    float64
		p     float64
		below bool
	}{
		{0, 1, false},
		{math.Log10(0.0312), 0.0312, false},
		{math.Log10(8.699e-06), 8.699e-06, false},
		{-299.5, math.Pow(10, -299.5), false},
		{-323.30621534311581, PFloor, true},
		{-1495.4324979661915, PFloor, true},
		{-10.00000001, 1e-10, false},
		{-9.999999999, 1e-10, false},
	} {
		p, below := ReportP(tc.lp)
		if below != tc.below || math.Abs(p-tc.p) > 1e-7*tc.p {
			t.Errorf("ReportP(%v) = %v, %v; want %v, %v", tc.lp, p, below, tc.p, tc.below)
		}
		if p == 0 {
			t.Errorf("ReportP(%v) = 0", tc.lp)
		}
	}
}
