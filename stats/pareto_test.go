package stats

import (
	"math"
	"testing"
)

// TestTruncPareto: the closed forms invert each other, and the tail the
// sandbox uses (α = 0.181 on [40, 7200]) has the CDF of
// docs/simulation.md's table (three decimals there).
func TestTruncPareto(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{60, 0.116}, {90, 0.224}, {120, 0.296}, {300, 0.501}, {600, 0.636}, {1800, 0.817}, {3600, 0.914},
	} {
		got := TruncParetoCDF(c.x, 0.181, 40, 7200)
		if math.Abs(got-c.want) > 0.0006 {
			t.Errorf("F(%v) = %.4f, want %.3f", c.x, got, c.want)
		}
		if q := TruncParetoQuantile(got, 0.181, 40, 7200); math.Abs(q-c.x) > 1e-9*c.x {
			t.Errorf("F⁻¹(F(%v)) = %v", c.x, q)
		}
	}
	if TruncParetoQuantile(0, 2, 1, 10) != 1 || TruncParetoQuantile(1, 2, 1, 10) != 10 || TruncParetoCDF(0.5, 2, 1, 10) != 0 || TruncParetoCDF(11, 2, 1, 10) != 1 {
		t.Error("bounds")
	}
}
