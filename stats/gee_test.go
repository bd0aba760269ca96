package stats

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

const geeTol = 1e-6

func ses(c *mat.SymDense) []float64 {
	if c == nil {
		return nil
	}
	n := c.SymmetricDim()
	out := make([]float64, n)
	for i := range n {
		out[i] = math.Sqrt(c.At(i, i))
	}
	return out
}

func permute(v []float64, perm []int) []float64 {
	if v == nil {
		return nil
	}
	out := make([]float64, len(perm))
	for j, k := range perm {
		out[j] = v[k]
	}
	return out
}

func TestGEEStatsmodels(t *testing.T) {
	var gold struct {
		GEEB []json2gee `json:"geeB_statsmodels"`
	}
	loadJSON(t, "methods_goldens.json", &gold)
	var sm struct {
		GEEB []json2gee `json:"geeB"`
		GEED []json2gee `json:"geeD"`
	}
	loadJSON(t, "ref_statsmodels.json", &sm)
	XB, yB, cB := datasetB(t)
	XD, yD, cD := datasetD(t)
	type set struct {
		name  string
		X     *mat.Dense
		y     []float64
		c     []int
		refs  []json2gee
		perm  []int
		coefT float64
	}
	for _, s := range []set{
		{"B statsmodels", XB, yB, cB, gold.GEEB, nil, geeTol},
		{"B statsmodels", XB, yB, cB, sm.GEEB, nil, geeTol},
		{"D statsmodels", XD, yD, cD, sm.GEED, []int{0, 3, 4, 1, 2}, geeTol},
	} {
		if len(s.refs) != 2 {
			t.Fatalf("%s: %d reference fits, want 2", s.name, len(s.refs))
		}
		for _, ref := range s.refs {
			name := s.name + " " + ref.Corr
			res, err := GEE(s.X, s.y, s.c, GEEOptions{Corr: Corr(ref.Corr), AllCovariances: true})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if !res.Converged || len(res.Warnings) > 0 {
				t.Errorf("%s: converged %v warnings %v", name, res.Converged, res.Warnings)
			}
			want := func(v []float64) []float64 {
				if s.perm == nil {
					return v
				}
				return permute(v, s.perm)
			}
			checkVec(t, name+" coef", res.Coef, want(ref.Coef), geeTol)
			checkVec(t, name+" robust", ses(res.RobustCov), want(ref.Robust), geeTol)
			checkVec(t, name+" SE (robust default)", res.SE, want(ref.Robust), geeTol)
			checkVec(t, name+" naive", ses(res.NaiveCov), want(ref.Naive), geeTol)
			checkVec(t, name+" bias-reduced", ses(res.MDCov), want(ref.BiasReduced), geeTol)
			checkVec(t, name+" kc", ses(res.KCCov), want(ref.KC), geeTol)
			if ref.Corr == "exchangeable" {
				check(t, name+" alpha", res.Alpha, float64(ref.Alpha), geeTol)
			} else if !math.IsNaN(res.Alpha) {
				t.Errorf("%s: alpha = %v, want NaN", name, res.Alpha)
			}
			if res.Scale != 1 {
				t.Errorf("%s: scale %v, want 1", name, res.Scale)
			}
			for _, cov := range []string{"naive", "bias-reduced", "kc"} {
				r2, err := GEE(s.X, s.y, s.c, GEEOptions{Corr: Corr(ref.Corr), Cov: GEECov(cov)})
				if err != nil {
					t.Fatal(err)
				}
				var w []float64
				switch cov {
				case "naive":
					w = ref.Naive
				case "bias-reduced":
					w = ref.BiasReduced
				case "kc":
					w = ref.KC
				}
				checkVec(t, fmt.Sprintf("%s SE (Cov=%s)", name, cov), r2.SE, want(w), geeTol)
			}
		}
	}
}

// json2gee reads both the statsmodels and the geepack reference layouts.
type json2gee struct {
	Corr        string
	Corstr      string
	Coef        []float64
	Robust      []float64
	Naive       []float64
	BiasReduced []float64 `json:"bias_reduced"`
	KC          []float64 `json:"kc"`
	Alpha       jf
	Scale       jf
	TightCoef0  jf `json:"tight_coef0"`
	TightAlpha  jf `json:"tight_alpha"`
}

func TestGEEGeepack(t *testing.T) {
	var r struct {
		GeepackB []json2gee `json:"geepackB"`
		GeepackD []json2gee `json:"geepackD"`
	}
	loadJSON(t, "ref_R.json", &r)
	XB, yB, cB := datasetB(t)
	XD, yD, cD := datasetD(t)
	for _, s := range []struct {
		name string
		X    *mat.Dense
		y    []float64
		c    []int
		refs []json2gee
	}{{"B geepack", XB, yB, cB, r.GeepackB}, {"D geepack", XD, yD, cD, r.GeepackD}} {
		if len(s.refs) != 2 {
			t.Fatalf("%s: %d reference fits, want 2", s.name, len(s.refs))
		}
		for _, ref := range s.refs {
			name := s.name + " " + ref.Corstr
			res, err := GEE(s.X, s.y, s.c, GEEOptions{Corr: Corr(ref.Corstr), Convention: "geepack"})
			if err != nil {
				t.Fatal(err)
			}
			checkVec(t, name+" coef", res.Coef, ref.Coef, geeTol)
			checkVec(t, name+" robust", res.SE, ref.Robust, geeTol)
			checkVec(t, name+" naive", ses(res.NaiveCov), ref.Naive, geeTol)
			check(t, name+" scale", res.Scale, float64(ref.Scale), geeTol)
			if ref.Corstr == "exchangeable" {
				check(t, name+" alpha", res.Alpha, float64(ref.Alpha), geeTol)
			}
		}
	}
	// docs/methods.md, GEE: geepack at its default epsilon 1e-4 (agreement ~1e-5)
	// and the tight fixed point of the same formulas (1e-9).
	var gold struct {
		G []json2gee `json:"geeB_geepack"`
	}
	loadJSON(t, "methods_goldens.json", &gold)
	if len(gold.G) != 2 {
		t.Fatal("geepack references missing")
	}
	for _, ref := range gold.G {
		res, err := GEE(XB, yB, cB, GEEOptions{Corr: Corr(ref.Corr), Convention: "geepack"})
		if err != nil {
			t.Fatal(err)
		}
		name := "B geepack " + ref.Corr
		checkVec(t, name+" robust", res.SE, ref.Robust, 2e-5)
		check(t, name+" scale", res.Scale, float64(ref.Scale), 2e-5)
		if ref.Corr == "exchangeable" {
			checkVec(t, name+" coef", res.Coef, ref.Coef, 2e-5)
			check(t, name+" alpha", res.Alpha, float64(ref.Alpha), 2e-5)
			check(t, name+" tight coef0", res.Coef[0], float64(ref.TightCoef0), 1e-9)
			check(t, name+" tight alpha", res.Alpha, float64(ref.TightAlpha), 1e-9)
		}
	}
}

func TestGEEGeepackScaleFix(t *testing.T) {
	// geepack geeglm(..., scale.fix=TRUE) at geepack's epsilon 1e-4.
	var gold struct {
		G json2gee `json:"geeB_geepack_scalefix"`
	}
	loadJSON(t, "methods_goldens.json", &gold)
	XB, yB, cB := datasetB(t)
	res, err := GEE(XB, yB, cB, GEEOptions{Convention: "geepack", ScaleFix: true})
	if err != nil {
		t.Fatal(err)
	}
	checkVec(t, "scale.fix coef", res.Coef, gold.G.Coef, 2e-5)
	checkVec(t, "scale.fix robust", res.SE, gold.G.Robust, 2e-5)
	check(t, "scale.fix alpha", res.Alpha, float64(gold.G.Alpha), 2e-5)
	if res.Scale != 1 {
		t.Errorf("scale.fix: scale %v", res.Scale)
	}
	// geepack iterated to epsilon 1e-12 (ref_R.R).
	var r struct {
		G json2gee `json:"geepackBfix"`
	}
	loadJSON(t, "ref_R.json", &r)
	checkVec(t, "scale.fix coef (tight)", res.Coef, r.G.Coef, geeTol)
	checkVec(t, "scale.fix robust (tight)", res.SE, r.G.Robust, geeTol)
	checkVec(t, "scale.fix naive (tight)", ses(res.NaiveCov), r.G.Naive, geeTol)
	check(t, "scale.fix alpha (tight)", res.Alpha, float64(r.G.Alpha), geeTol)
}

func TestGEEInvariance(t *testing.T) {
	// Row order and cluster labels do not matter; duplicated patterns pool exactly.
	XD, yD, cD := datasetD(t)
	base, err := GEE(XD, yD, cD, GEEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n, p := XD.Dims()
	Xr := mat.NewDense(n, p, nil)
	yr := make([]float64, n)
	cr := make([]int, n)
	for i := range n {
		j := n - 1 - i
		Xr.SetRow(i, XD.RawRowView(j))
		yr[i] = yD[j]
		cr[i] = -3 * cD[j]
	}
	rev, err := GEE(Xr, yr, cr, GEEOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if base.MDCov != nil || base.KCCov != nil || base.RobustCov == nil || base.NaiveCov == nil {
		t.Error("default GEE: want robust and naive covariances only")
	}
	checkVec(t, "reversed coef", rev.Coef, base.Coef, 1e-10)
	checkVec(t, "reversed se", rev.SE, base.SE, 1e-10)

	// A failure on the data is a *GEEError (a caller may refit with
	// another working correlation); one in the options is not.
	var ge *GEEError
	_, err = GEE(XD, yD, make([]int, n), GEEOptions{})
	if !errors.As(err, &ge) || ge.Reason != "fewer than two clusters" || err.Error() != "GEE: fewer than two clusters" {
		t.Errorf("one cluster: error %v, want a *GEEError", err)
	}
	if _, err := GEEGLM(XD, yD, make([]int, n), nil, GEEOptions{}); !errors.As(err, &ge) {
		t.Errorf("GEEGLM, one cluster: error %v, want a *GEEError", err)
	}
	// Unknown options come from users: errors, never panics.
	for _, opt := range []GEEOptions{{Corr: "ar2"}, {Corr: "ar1"}, {Cov: "sandwich"}, {Convention: "sas"}, {Family: Poisson}} {
		if _, err := GEE(XD, yD, cD, opt); err == nil || errors.As(err, &ge) {
			t.Errorf("GEE(%+v): error %v, want one that is not a *GEEError", opt, err)
		}
		if _, err := GEEGLM(XD, yD, cD, nil, GEEOptions{Corr: opt.Corr, Cov: opt.Cov, Convention: opt.Convention, Family: "negbin"}); err == nil || errors.As(err, &ge) {
			t.Errorf("GEEGLM(%+v): error %v, want one that is not a *GEEError", opt, err)
		}
	}
}
