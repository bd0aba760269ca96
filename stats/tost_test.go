package stats

import (
	"fmt"
	"math"
	"testing"
)

func TestTOSTIndep(t *testing.T) {
	type tc struct {
		X1, N1, X2, N2         int
		Margin                 float64
		Method                 TOSTMethod
		PLower                 jf `json:"p_lower"`
		PUpper                 jf `json:"p_upper"`
		PTOST                  jf `json:"p_tost"`
		Lo90, Hi90             jf
		NewcombeLo, NewcombeHi jf `json:"-"`
		NLo                    jf `json:"newcombe_lo"`
		NHi                    jf `json:"newcombe_hi"`
	}
	var gold, sm struct{ TOST []tc }
	loadJSON(t, "methods_goldens.json", &gold)
	loadJSON(t, "ref_statsmodels.json", &sm)
	for _, c := range gold.TOST {
		r := TOSTIndep(c.X1, c.N1, c.X2, c.N2, 0.05, c.Method)
		name := fmt.Sprintf("%d/%d vs %d/%d %s", c.X1, c.N1, c.X2, c.N2, c.Method)
		checkRel(t, name+" p_L", r.PLower, float64(c.PLower), closedTol)
		checkRel(t, name+" p_U", r.PUpper, float64(c.PUpper), closedTol)
		checkRel(t, name+" p_TOST", r.PTOST, math.Max(float64(c.PLower), float64(c.PUpper)), closedTol)
	}
	for _, c := range sm.TOST {
		r := TOSTIndep(c.X1, c.N1, c.X2, c.N2, c.Margin, c.Method)
		name := fmt.Sprintf("%d/%d vs %d/%d ±%g %s", c.X1, c.N1, c.X2, c.N2, c.Margin, c.Method)
		checkRel(t, name+" p_L", r.PLower, float64(c.PLower), closedTol)
		checkRel(t, name+" p_U", r.PUpper, float64(c.PUpper), closedTol)
		checkRel(t, name+" p_TOST", r.PTOST, float64(c.PTOST), closedTol)
		if r.Equivalent != (r.PTOST < 0.05) {
			t.Errorf("%s: Equivalent %v with p_TOST %v", name, r.Equivalent, r.PTOST)
		}
		// Score CIs are found by root finding (brentq xtol 2e-12 in statsmodels).
		tol := closedTol
		if c.Method == "score" {
			tol = 1e-8
		}
		if !math.IsNaN(float64(c.Lo90)) {
			checkRel(t, name+" lo90", r.Lo90, float64(c.Lo90), tol)
			checkRel(t, name+" hi90", r.Hi90, float64(c.Hi90), tol)
		}
		checkRel(t, name+" newcombe lo", r.NewcombeLo, float64(c.NLo), closedTol)
		checkRel(t, name+" newcombe hi", r.NewcombeHi, float64(c.NHi), closedTol)
	}
	var ci struct {
		CI2Indep []struct {
			X1, N1, X2, N2       int
			Alpha                float64
			Newcomb, Wald, Score []float64
		}
	}
	loadJSON(t, "methods_goldens.json", &ci)
	for _, c := range ci.CI2Indep {
		name := fmt.Sprintf("%d/%d vs %d/%d α=%g", c.X1, c.N1, c.X2, c.N2, c.Alpha)
		lo, hi := NewcombeIndep(c.X1, c.N1, c.X2, c.N2, 1-c.Alpha)
		checkRel(t, name+" newcombe lo", lo, c.Newcomb[0], closedTol)
		checkRel(t, name+" newcombe hi", hi, c.Newcomb[1], closedTol)
		if c.Alpha == 0.10 {
			r := TOSTIndep(c.X1, c.N1, c.X2, c.N2, 0.05, "wald")
			checkRel(t, name+" wald lo", r.Lo90, c.Wald[0], closedTol)
			checkRel(t, name+" wald hi", r.Hi90, c.Wald[1], closedTol)
			r = TOSTIndep(c.X1, c.N1, c.X2, c.N2, 0.05, "score")
			checkRel(t, name+" score lo", r.Lo90, c.Score[0], 1e-8)
			checkRel(t, name+" score hi", r.Hi90, c.Score[1], 1e-8)
		}
	}
	if r := TOSTIndep(0, 0, 3, 10, 0.05, "wald"); !math.IsNaN(r.PTOST) || r.Equivalent {
		t.Errorf("empty group: %+v", r)
	}
	mustPanic(t, "unknown method", func() { TOSTIndep(1, 2, 1, 2, 0.05, "exact") })
	mustPanic(t, "bad margin", func() { TOSTIndep(1, 2, 1, 2, 0, "wald") })
}

func TestPaired(t *testing.T) {
	var gold struct {
		Paired []struct {
			N11, N12, N21, N22 int
			Alpha, Diff        float64
			Newcombe, Wald     []float64
		}
	}
	loadJSON(t, "methods_goldens.json", &gold)
	for _, c := range gold.Paired {
		name := fmt.Sprintf("(%d,%d,%d,%d) α=%g", c.N11, c.N12, c.N21, c.N22, c.Alpha)
		lo, hi := NewcombePaired(c.N11, c.N12, c.N21, c.N22, 1-c.Alpha)
		checkRel(t, name+" newcombe lo", lo, c.Newcombe[0], closedTol)
		checkRel(t, name+" newcombe hi", hi, c.Newcombe[1], closedTol)
		lo, hi = PairedWaldCI(c.N11, c.N12, c.N21, c.N22, 1-c.Alpha)
		checkRel(t, name+" wald lo", lo, c.Wald[0], closedTol)
		checkRel(t, name+" wald hi", hi, c.Wald[1], closedTol)
		r := TOSTPaired(c.N11, c.N12, c.N21, c.N22, 0.05)
		checkRel(t, name+" diff", r.Diff, c.Diff, closedTol)
		if c.Alpha == 0.10 {
			checkRel(t, name+" TOST lo90", r.Lo90, c.Wald[0], closedTol)
			checkRel(t, name+" TOST newcombe lo", r.NewcombeLo, c.Newcombe[0], closedTol)
			checkRel(t, name+" TOST newcombe hi", r.NewcombeHi, c.Newcombe[1], closedTol)
		}
		// The Wald TOST rejects iff its 90% interval lies inside ±δ.
		inside := r.Lo90 > -0.05 && r.Hi90 < 0.05
		if r.Equivalent != inside {
			t.Errorf("%s: Equivalent %v but 90%% CI [%v, %v]", name, r.Equivalent, r.Lo90, r.Hi90)
		}
		// p_L and p_U from the Wald statistic, by hand.
		diff, se := pairedWald(c.N11, c.N12, c.N21, c.N22)
		checkRel(t, name+" p_L", r.PLower, 1-0.5*math.Erfc(-(diff+0.05)/se/math.Sqrt2), 1e-9)
	}
	r := TOSTPaired(400, 10, 12, 378, 0.05)
	if !r.Equivalent || r.PTOST != math.Max(r.PLower, r.PUpper) {
		t.Errorf("near-identical arms not equivalent: %+v", r)
	}
}
