package stats

import (
	"math"
	"testing"
)

// TangoPaired and TangoPairedCI against R (tango_paired.json, from
// tango_paired.R: the restricted MLE found numerically by optimize, the
// interval by uniroot): the score statistic at the margin, its
// non-inferiority p-value and the 90% interval, including tables without
// discordant pairs, where the paired Wald interval is the point 0.
func TestTangoPaired(t *testing.T) {
	var ref struct {
		Cases []struct {
			A, B, C, D int
			Margin, Z  float64
			PUpper     float64 `json:"p_upper"`
			Lo90, Hi90 float64
		}
	}
	loadJSON(t, ownRef+"tango_paired.json", &ref)
	if len(ref.Cases) < 10 {
		t.Fatalf("%d reference cases", len(ref.Cases))
	}
	for _, tc := range ref.Cases {
		z := TangoPaired(tc.A, tc.B, tc.C, tc.D, tc.Margin)
		// R's optimize finds the restricted MLE to about √ε (1.5e-8)
		// relative, no closer to a bound of the simplex: 1e-7.
		if math.Abs(z-tc.Z) > 1e-7*math.Max(1, math.Abs(tc.Z)) {
			t.Errorf("%+v: Z = %.15g, want R %.15g", tc, z, tc.Z)
		}
		if p := NormalCDF(z); math.Abs(p-tc.PUpper) > 1e-7*tc.PUpper+1e-12 {
			t.Errorf("%+v: p = %.15g, want R %.15g", tc, p, tc.PUpper)
		}
		lo, hi := TangoPairedCI(tc.A, tc.B, tc.C, tc.D, 0.90)
		if math.Abs(lo-tc.Lo90) > 1e-7 || math.Abs(hi-tc.Hi90) > 1e-7 {
			t.Errorf("%+v: 90%% interval [%.12g, %.12g], want R [%.12g, %.12g]", tc, lo, hi, tc.Lo90, tc.Hi90)
		}
		// The test rejects H₀ Δ ≥ δ at 5% exactly when the 90% interval's
		// upper end is below δ.
		if (NormalCDF(z) < TOSTAlpha) != (hi < tc.Margin) {
			t.Errorf("%+v: p %v and upper end %v disagree", tc, NormalCDF(z), hi)
		}
	}
	// Closed form without discordant pairs: Z(δ) = −√(Nδ/(1−δ)).
	if z, want := TangoPaired(0, 0, 0, 400, 0.02), -math.Sqrt(400*0.02/0.98); math.Abs(z-want) > 1e-14 {
		t.Errorf("no discordance: Z = %v, want %v", z, want)
	}
	if z := TangoPaired(3, 0, 0, 4, 0); z != 0 {
		t.Errorf("Z(0) without discordance = %v, want 0", z)
	}
	for _, z := range []float64{TangoPaired(0, 0, 0, 0, 0.1), TangoPaired(1, 2, 3, 4, 1), TangoPaired(1, 2, 3, 4, -1)} {
		if !math.IsNaN(z) {
			t.Errorf("undefined case: %v, want NaN", z)
		}
	}
}
