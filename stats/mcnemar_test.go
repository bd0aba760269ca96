package stats

import (
	"fmt"
	"math"
	"testing"
)

func TestMcNemar(t *testing.T) {
	type mc struct {
		B, C                              int
		Exact, Midp, Chi2cc, Pcc, Chi2, P jf
		ORLo                              jf `json:"or_lo"`
		ORHi                              jf `json:"or_hi"`
	}
	var gold, sm struct{ McNemar []mc }
	loadJSON(t, "methods_goldens.json", &gold)
	loadJSON(t, "ref_statsmodels.json", &sm)
	var r struct{ McNemar []mc }
	loadJSON(t, "ref_R.json", &r)
	for _, c := range append(gold.McNemar, sm.McNemar...) {
		name := fmt.Sprintf("(%d,%d)", c.B, c.C)
		checkRel(t, "exact"+name, McNemarExact(c.B, c.C), float64(c.Exact), closedTol)
		checkRel(t, "midp"+name, McNemarMidP(c.B, c.C), float64(c.Midp), closedTol)
		if !math.IsNaN(float64(c.Chi2)) {
			s, p := McNemarChi2(c.B, c.C, false)
			checkRel(t, "chi2"+name, s, float64(c.Chi2), closedTol)
			checkRel(t, "chi2 p"+name, p, float64(c.P), closedTol)
			s, p = McNemarChi2(c.B, c.C, true)
			if c.B != c.C {
				checkRel(t, "chi2cc"+name, s, float64(c.Chi2cc), closedTol)
				checkRel(t, "chi2cc p"+name, p, float64(c.Pcc), closedTol)
			} else if s != 0 || p != 1 {
				t.Errorf("chi2cc%s = %v, %v; want 0, 1", name, s, p)
			}
		}
	}
	// R: binom.test p-values, mcnemar.test(correct=TRUE) and the exact OR CI.
	for _, c := range r.McNemar {
		name := fmt.Sprintf("R(%d,%d)", c.B, c.C)
		checkRel(t, "exact"+name, McNemarExact(c.B, c.C), float64(c.P), closedTol)
		s, p := McNemarChi2(c.B, c.C, true)
		checkRel(t, "chi2cc"+name, s, float64(c.Chi2cc), closedTol)
		checkRel(t, "chi2cc p"+name, p, float64(c.Pcc), closedTol)
		or, lo, hi := McNemarOR(c.B, c.C, 0.95)
		if c.C > 0 {
			checkRel(t, "OR"+name, or, float64(c.B)/float64(c.C), closedTol)
		} else if !math.IsInf(or, 1) {
			t.Errorf("OR%s = %v, want +Inf", name, or)
		}
		checkRel(t, "OR lo"+name, lo, float64(c.ORLo), 1e-8)
		checkRel(t, "OR hi"+name, hi, float64(c.ORHi), 1e-8)
	}
	if or, lo, hi := McNemarOR(0, 0, 0.95); !math.IsNaN(or) || !math.IsNaN(lo) || !math.IsNaN(hi) {
		t.Errorf("McNemarOR(0,0) = %v %v %v, want NaN", or, lo, hi)
	}
	mustPanic(t, "negative b", func() { McNemarExact(-1, 2) })
}

func TestAdjust(t *testing.T) {
	var gold struct {
		Holm struct{ P, Adj []float64 }
	}
	loadJSON(t, "methods_goldens.json", &gold)
	checkVec(t, "Holm", HolmAdjust(gold.Holm.P), gold.Holm.Adj, 1e-12)
	type adj struct{ P, Holm, Bonferroni, BH []jf }
	var sm, r struct{ Adjust []adj }
	loadJSON(t, "ref_statsmodels.json", &sm)
	loadJSON(t, "ref_R.json", &r)
	for i, a := range append(sm.Adjust, r.Adjust...) {
		p := fl(a.P)
		for _, m := range []struct {
			name string
			f    func([]float64) []float64
			want []jf
		}{{"holm", HolmAdjust, a.Holm}, {"bonferroni", BonferroniAdjust, a.Bonferroni}, {"bh", BHAdjust, a.BH}} {
			got := m.f(p)
			for j := range got {
				checkRel(t, fmt.Sprintf("case %d %s[%d]", i, m.name, j), got[j], float64(m.want[j]), closedTol)
			}
		}
	}
}
