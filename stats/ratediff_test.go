package stats

import (
	"fmt"
	"math"
	"testing"
)

func TestRateDiffWald(t *testing.T) {
	// statsmodels confint_proportions_2indep(method="wald") and
	// tost_proportions_2indep(method="wald") (methods_goldens.json): the
	// same Wald statistic on the observed proportions.
	var gold struct {
		CI2Indep []struct {
			X1, N1, X2, N2 int
			Alpha          float64
			Wald           []float64
		}
		TOST []struct {
			X1, N1, X2, N2 int
			Method         TOSTMethod
			PLower         float64 `json:"p_lower"`
			PUpper         float64 `json:"p_upper"`
		}
	}
	loadJSON(t, "methods_goldens.json", &gold)
	if len(gold.CI2Indep) == 0 || len(gold.TOST) == 0 {
		t.Fatal("no reference cases")
	}
	props := func(x1, n1, x2, n2 int) (float64, float64, float64, float64) {
		return float64(x1) / float64(n1), float64(n1), float64(x2) / float64(n2), float64(n2)
	}
	for _, c := range gold.CI2Indep {
		name := fmt.Sprintf("%d/%d vs %d/%d α=%g", c.X1, c.N1, c.X2, c.N2, c.Alpha)
		diff, se := RateDiffWald(props(c.X1, c.N1, c.X2, c.N2))
		lo, hi := WaldInterval(diff, se, ZLevel(1-c.Alpha))
		checkRel(t, name+" lo", lo, c.Wald[0], closedTol)
		checkRel(t, name+" hi", hi, c.Wald[1], closedTol)
	}
	n := 0
	for _, c := range gold.TOST {
		if c.Method != TOSTWald {
			continue
		}
		n++
		name := fmt.Sprintf("%d/%d vs %d/%d", c.X1, c.N1, c.X2, c.N2)
		diff, se := RateDiffWald(props(c.X1, c.N1, c.X2, c.N2))
		checkRel(t, name+" p_TOST", TOSTWaldP(diff, se, 0.05), math.Max(c.PLower, c.PUpper), closedTol)
		// TOSTIndep's Wald method is the same test.
		r := TOSTIndep(c.X1, c.N1, c.X2, c.N2, 0.05, TOSTWald)
		checkRel(t, name+" p_TOST against TOSTIndep", TOSTWaldP(diff, se, 0.05), r.PTOST, 1e-14)
	}
	if n == 0 {
		t.Fatal("no Wald TOST reference case")
	}

	// Known differences: SE = 0 decides by the margin alone.
	for _, c := range []struct{ diff, want float64 }{{0, 0}, {0.04, 0}, {0.05, 1}, {-0.2, 1}} {
		if got := TOSTWaldP(c.diff, 0, 0.05); got != c.want {
			t.Errorf("TOSTWaldP(%v, 0, 0.05) = %v, want %v", c.diff, got, c.want)
		}
	}
	if _, se := RateDiffWald(0.5, 0, 0.5, 10); !math.IsNaN(se) {
		t.Errorf("empty arm: SE %v, want NaN", se)
	}
	if p := TOSTWaldP(math.NaN(), 0.1, 0.05); !math.IsNaN(p) {
		t.Errorf("NaN difference: p %v, want NaN", p)
	}
}

func TestNormal(t *testing.T) {
	cases := []struct{ x, cdf, upper float64 }{
		{0, 0.5, 0.5},
		{1.959963984540054, 0.975, 0.025},
		// R: pnorm(-10) = pnorm(10, lower.tail = FALSE) = 7.619853024160527e-24.
		{-10, 7.619853024160527e-24, 1},
		{10, 1, 7.619853024160527e-24},
	}
	for _, c := range cases {
		checkRel(t, fmt.Sprintf("Φ(%v)", c.x), NormalCDF(c.x), c.cdf, 1e-14)
		checkRel(t, fmt.Sprintf("1−Φ(%v)", c.x), NormalUpper(c.x), c.upper, 1e-14)
	}
}

func TestTOSTMethodText(t *testing.T) {
	for _, m := range TOSTMethods() {
		var got TOSTMethod
		b, _ := m.MarshalText()
		if err := got.UnmarshalText(b); err != nil || got != m {
			t.Errorf("round trip of %q: %q, %v", m, got, err)
		}
	}
	var m TOSTMethod
	err := m.UnmarshalText([]byte("exact"))
	if err == nil || err.Error() != `unknown TOST method "exact": want agresti-caffo, wald or score` {
		t.Errorf("unknown method: %v", err)
	}
}
