package analysis

import (
	"math"
	"testing"

	"github.com/limbo-toolkit/limbo/stats"
)

// With n_eff = n the clustered Wald TOST is methods.md §6.1's "wald": the
// reference is stats.TOSTIndep (tested against statsmodels there), to
// 1e-12.
func TestTOSTWaldEffMatchesWald(t *testing.T) {
	for _, c := range []struct{ x1, n1, x2, n2 int }{
		{10, 100, 10, 200}, {40, 700, 30, 2100}, {0, 50, 3, 60}, {213, 2012, 188, 2104},
	} {
		want := stats.TOSTIndep(c.x1, c.n1, c.x2, c.n2, h4Margin, "wald")
		got := tostWaldEff(float64(c.x1)/float64(c.n1), float64(c.n1), float64(c.x2)/float64(c.n2), float64(c.n2), h4Margin)
		for _, v := range [][2]float64{{got.diff, want.Diff}, {got.lo90, want.Lo90}, {got.hi90, want.Hi90}, {got.p, want.PTOST}} {
			if math.Abs(v[0]-v[1]) > 1e-12 {
				t.Errorf("%+v: got %+v, want diff %v [%v, %v] p %v", c, got, want.Diff, want.Lo90, want.Hi90, want.PTOST)
				break
			}
		}
	}
	// A design effect of 4 doubles the interval's half-width.
	a := tostWaldEff(0.1, 400, 0.08, 400, h4Margin)
	b := tostWaldEff(0.1, 100, 0.08, 100, h4Margin)
	if r := (b.hi90 - b.diff) / (a.hi90 - a.diff); math.Abs(r-2) > 1e-12 {
		t.Errorf("half-width ratio %v, want 2", r)
	}
	if r := tostWaldEff(nan, 10, 0.1, 10, h4Margin); !math.IsNaN(r.diff) || !math.IsNaN(r.p) {
		t.Errorf("NaN input gave %+v", r)
	}
}
