package stats

import (
	"fmt"
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

func TestReportAndFormatLog10P(t *testing.T) {
	for _, tc := range []struct {
		lp    float64
		sig   int
		p     float64
		below bool
		text  string
	}{
		{0, 3, 1, false, "1"},
		{math.Log10(0.0312), 3, 0.0312, false, "0.0312"},
		{math.Log10(8.699e-06), 4, 8.699e-06, false, "8.699e-06"},
		{math.Log10(8.699e-06), 2, 8.699e-06, false, "8.7e-06"},
		{-299.5, 2, math.Pow(10, -299.5), false, "3.2e-300"},
		{-323.30621534311581, 3, PFloor, true, "4.94e-324"},
		{-1495.4324979661915, 2, PFloor, true, "3.7e-1496"},
		{-10.00000001, 2, 1e-10, false, "1.0e-10"},
		{-9.999999999, 2, 1e-10, false, "1.0e-10"},
	} {
		p, below := ReportP(tc.lp)
		if below != tc.below || math.Abs(p-tc.p) > 1e-7*tc.p {
			t.Errorf("ReportP(%v) = %v, %v; want %v, %v", tc.lp, p, below, tc.p, tc.below)
		}
		if p == 0 {
			t.Errorf("ReportP(%v) = 0", tc.lp)
		}
		if s := FormatLog10P(tc.lp, tc.sig); s != tc.text {
			t.Errorf("FormatLog10P(%v, %d) = %q, want %q", tc.lp, tc.sig, s, tc.text)
		}
	}
	// Where float64 still holds p, the text equals %e formatting of p.
	for _, p := range []float64{3.3e-5, 1.234e-17, 9.996e-200} {
		if got, want := FormatLog10P(math.Log10(p), 3), fmt.Sprintf("%.2e", p); got != want {
			t.Errorf("FormatLog10P(log10 %g) = %q, %%e gives %q", p, got, want)
		}
	}
}
