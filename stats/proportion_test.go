package stats

import (
	"fmt"
	"math"
	"testing"
)

const closedTol = 1e-9

func TestWilson(t *testing.T) {
	var gold struct {
		Wilson []struct{ Count, Nobs, Alpha, Lo, Hi float64 }
		Kish   struct {
			W, Y                                  []float64
			P, Neff, Deff, Lo95, Hi95, Lo90, Hi90 float64
		}
		WilsonCC []struct{ X, N, Lo, Hi float64 } `json:"wilson_cc"`
	}
	loadJSON(t, "methods_goldens.json", &gold)
	var sm struct {
		Wilson []struct{ Count, Nobs, Alpha, Lo, Hi float64 }
	}
	loadJSON(t, "ref_statsmodels.json", &sm)
	var r struct {
		WilsonCC []struct{ X, N, Lo, Hi float64 } `json:"wilson_cc"`
	}
	loadJSON(t, "ref_R.json", &r)

	cases := append(gold.Wilson, sm.Wilson...)
	for _, c := range cases {
		lo, hi := Wilson(c.Count/c.Nobs, c.Nobs, ZLevel(1-c.Alpha))
		name := fmt.Sprintf("Wilson(%g/%g, α=%g)", c.Count, c.Nobs, c.Alpha)
		checkRel(t, name+" lo", lo, c.Lo, closedTol)
		// statsmodels does not clip (0.9999999999999999 for 20/20); the spec sets 1.
		checkRel(t, name+" hi", hi, math.Min(1, c.Hi), closedTol)
	}

	k := gold.Kish
	p := WeightedProportion(k.Y, k.W)
	neff := KishESS(k.W)
	checkRel(t, "Kish p", p, k.P, closedTol)
	checkRel(t, "Kish n_eff", neff, k.Neff, closedTol)
	checkRel(t, "Kish deff", KishDeff(k.W), k.Deff, closedTol)
	lo, hi := Wilson(p, neff, ZLevel(0.95))
	checkRel(t, "Kish 95 lo", lo, k.Lo95, closedTol)
	checkRel(t, "Kish 95 hi", hi, k.Hi95, closedTol)
	lo, hi = Wilson(p, neff, ZLevel(0.90))
	checkRel(t, "Kish 90 lo", lo, k.Lo90, closedTol)
	checkRel(t, "Kish 90 hi", hi, k.Hi90, closedTol)

	// Continuity-corrected: docs/methods.md, Wilson interval (10 digits) and R prop.test (15 digits).
	for _, c := range gold.WilsonCC {
		lo, hi := WilsonCC(c.X/c.N, c.N, ZLevel(0.95))
		checkRel(t, fmt.Sprintf("WilsonCC(%g/%g) lo", c.X, c.N), lo, c.Lo, 1e-9)
		checkRel(t, fmt.Sprintf("WilsonCC(%g/%g) hi", c.X, c.N), hi, c.Hi, 1e-9)
	}
	for _, c := range r.WilsonCC {
		lo, hi := WilsonCC(c.X/c.N, c.N, ZLevel(0.95))
		checkRel(t, fmt.Sprintf("WilsonCC(%g/%g) lo", c.X, c.N), lo, c.Lo, closedTol)
		checkRel(t, fmt.Sprintf("WilsonCC(%g/%g) hi", c.X, c.N), hi, c.Hi, closedTol)
	}
}

func TestWilsonEdges(t *testing.T) {
	z := ZLevel(0.95)
	for _, n := range []float64{0, -1, math.NaN()} {
		lo, hi := Wilson(0.3, n, z)
		if !math.IsNaN(lo) || !math.IsNaN(hi) {
			t.Errorf("Wilson(0.3, %v) = %v, %v, want NaN", n, lo, hi)
		}
	}
	if lo, hi := Wilson(0.3, math.Inf(1), z); lo != 0.3 || hi != 0.3 {
		t.Errorf("Wilson(n=Inf) = %v, %v, want collapse to 0.3", lo, hi)
	}
	// Closed forms at p̂ ∈ {0, 1} (docs/methods.md, Wilson interval).
	lo, hi := Wilson(0, 20, z)
	checkRel(t, "p=0 hi", hi, z*z/(20+z*z), closedTol)
	if lo != 0 {
		t.Errorf("p=0 lo = %v", lo)
	}
	lo, hi = Wilson(1, 20, z)
	checkRel(t, "p=1 lo", lo, 20/(20+z*z), closedTol)
	if hi != 1 {
		t.Errorf("p=1 hi = %v", hi)
	}
	if v := KishESS([]float64{0, 0}); !math.IsNaN(v) {
		t.Errorf("KishESS(zero weights) = %v, want NaN", v)
	}
	if v := WeightedProportion([]float64{1, 0}, []float64{0, 0}); !math.IsNaN(v) {
		t.Errorf("WeightedProportion(zero weights) = %v, want NaN", v)
	}
	checkRel(t, "KishESS single weight", KishESS([]float64{0, 3, 0}), 1, closedTol)
	checkRel(t, "KishDeff drops zeros", KishDeff([]float64{0, 1, 1}), 1, closedTol)
	mustPanic(t, "Wilson p>1", func() { Wilson(1.2, 10, z) })
	mustPanic(t, "negative weight", func() { KishESS([]float64{1, -1}) })
}

func mustPanic(t *testing.T, name string, f func()) {
	t.Helper()
	defer func() {
		r := recover()
		if r == nil {
			t.Errorf("%s: no panic", name)
			return
		}
		if s, ok := r.(string); !ok || len(s) < 7 || s[:7] != "stats: " {
			t.Errorf("%s: panic %v lacks the stats: prefix", name, r)
		}
	}()
	f()
}

func TestICCAndDesign(t *testing.T) {
	var r struct {
		ICC struct {
			D, B, Dx1 float64
		}
		Design struct {
			Example, D struct{ P, V float64 }
		}
	}
	loadJSON(t, "ref_R.json", &r)
	D := loadCSV(t, "datasetD.csv")
	B := loadCSV(t, "datasetB.csv")
	checkRel(t, "ICC D", ICCANOVA(D["y"], ints(D["cluster"])), r.ICC.D, closedTol)
	checkRel(t, "ICC B", ICCANOVA(B["y"], ints(B["herd"])), r.ICC.B, closedTol)
	checkRel(t, "ICC D x1 (truncated)", ICCANOVA(D["x1"], ints(D["cluster"])), r.ICC.Dx1, closedTol)
	if v := ICCANOVA([]float64{1, 1, 1, 1}, []int{1, 1, 2, 2}); !math.IsNaN(v) {
		t.Errorf("ICC of constant = %v, want NaN", v)
	}
	if v := ICCANOVA([]float64{1, 0}, []int{1, 1}); !math.IsNaN(v) {
		t.Errorf("ICC of one cluster = %v, want NaN", v)
	}

	// Worked example of docs/methods.md, Design-based proportion (v̂ = 0.0333333, n_eff = 7.5).
	ex := DesignProportion([]float64{1, 1, 0, 0, 0, 1, 1, 1, 0, 0}, nil, []int{0, 0, 0, 1, 1, 2, 2, 2, 2, 3})
	checkRel(t, "design example p", ex.P, r.Design.Example.P, closedTol)
	checkRel(t, "design example v", ex.Var, r.Design.Example.V, closedTol)
	checkRel(t, "design example n_eff", ex.NEff, 7.5, closedTol)
	if ex.DF != 3 || ex.Clusters != 4 {
		t.Errorf("design example df %v clusters %d", ex.DF, ex.Clusters)
	}
	w := make([]float64, len(D["y"]))
	for i, c := range D["cluster"] {
		w[i] = 1 + float64(int(c)%3)/2
	}
	d := DesignProportion(D["y"], w, ints(D["cluster"]))
	checkRel(t, "design D p", d.P, r.Design.D.P, closedTol)
	checkRel(t, "design D v", d.Var, r.Design.D.V, closedTol)
	zero := DesignProportion([]float64{0, 0, 0}, nil, []int{1, 2, 3})
	if !math.IsNaN(zero.NEff) || len(zero.Warnings) == 0 {
		t.Errorf("design p=0: n_eff %v, warnings %v", zero.NEff, zero.Warnings)
	}

	checkRel(t, "ClusterNEff", ClusterNEff(100, 5, 0.25), 50, closedTol)
	checkRel(t, "ClusterMStar", ClusterMStar([]int{1, 1, 1, 2}), 2.5, closedTol)
	// Unit weights reduce the Gabler design effect to 1 + (m* − 1)ρ.
	cl := []int{1, 1, 1, 2}
	checkRel(t, "ClusterDeffWeighted", ClusterDeffWeighted([]float64{1, 1, 1, 1}, cl, 0.2), 1+(2.5-1)*0.2, closedTol)
}

func TestWilsonWarning(t *testing.T) {
	for _, c := range []struct {
		p, n float64
		warn bool
	}{{0.3, 10, false}, {0, 10, false}, {0.5, 0.5, true}, {0.5, 0, true}, {0.5, math.NaN(), true}, {0.5, math.Inf(1), true}, {math.NaN(), 3, true}} {
		if got := WilsonWarning(c.p, c.n) != ""; got != c.warn {
			t.Errorf("WilsonWarning(%v, %v) = %q", c.p, c.n, WilsonWarning(c.p, c.n))
		}
	}
}
