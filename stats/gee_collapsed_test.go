package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// collapseRows pools rows with equal cluster and covariates into cells
// (first appearance order), the input GEECollapsed takes. split cuts
// every cell with n ≥ 2 into two, to check that repeated cells pool.
func collapseRows(X *mat.Dense, y []float64, cluster []int, split bool) (*mat.Dense, []float64, []float64, []int) {
	r, p := X.Dims()
	type key struct {
		c   int
		row string
	}
	index := map[key]int{}
	var rows [][]float64
	var n, s []float64
	var cl []int
	for i := range r {
		row := X.RawRowView(i)
		k := key{cluster[i], fmtRow(row)}
		j, ok := index[k]
		if !ok {
			j = len(n)
			index[k] = j
			rows = append(rows, append([]float64(nil), row...))
			n = append(n, 0)
			s = append(s, 0)
			cl = append(cl, cluster[i])
		}
		n[j]++
		s[j] += y[i]
	}
	if split {
		for j, nj := range n[:len(n):len(n)] {
			if nj < 2 {
				continue
			}
			// Move one observation (an event when there is one) to a new cell.
			ev := math.Min(1, s[j])
			n[j]--
			s[j] -= ev
			rows = append(rows, rows[j])
			n = append(n, 1)
			s = append(s, ev)
			cl = append(cl, cl[j])
		}
	}
	Xc := mat.NewDense(len(n), p, nil)
	for j, row := range rows {
		Xc.SetRow(j, row)
	}
	return Xc, n, s, cl
}

func fmtRow(row []float64) string {
	b := make([]byte, 0, 8*len(row))
	for _, v := range row {
		u := math.Float64bits(v)
		for k := range 8 {
			b = append(b, byte(u>>(8*k)))
		}
	}
	return string(b)
}

// datasetFactors simulates a factor-only clustered design (seeded PCG):
// 60 clusters of 5–40 rows, a 3-level and a 2-level factor, a cluster
// random intercept so that α > 0.
func datasetFactors() (*mat.Dense, []float64, []int) {
	rng := rand.New(rand.NewPCG(10, 2026))
	var rows [][]float64
	var y []float64
	var cl []int
	for c := range 60 {
		u := rng.NormFloat64()
		m := 5 + rng.IntN(36)
		for range m {
			a, b := rng.IntN(3), rng.IntN(2)
			eta := -0.5 + 0.7*b2f(a == 1) - 0.4*b2f(a == 2) + 0.9*float64(b) + 0.8*u
			rows = append(rows, []float64{1, b2f(a == 1), b2f(a == 2), float64(b)})
			y = append(y, b2f(rng.Float64() < Expit(eta)))
			cl = append(cl, 1000-7*c)
		}
	}
	X := mat.NewDense(len(rows), 4, nil)
	for i, r := range rows {
		X.SetRow(i, r)
	}
	return X, y, cl
}

// TestGEECollapsedEqualsRows checks GEECollapsed against GEE on the rows
// (tolerance 1e-9, the two differ only by summation order) for every
// working correlation, covariance and convention.
func TestGEECollapsedEqualsRows(t *testing.T) {
	XB, yB, cB := datasetB(t)
	XD, yD, cD := datasetD(t)
	XS, yS, cS := datasetFactors()
	for _, ds := range []struct {
		name string
		X    *mat.Dense
		y    []float64
		c    []int
	}{{"B", XB, yB, cB}, {"D", XD, yD, cD}, {"simulated factors", XS, yS, cS}} {
		for _, split := range []bool{false, true} {
			Xc, n, s, cl := collapseRows(ds.X, ds.y, ds.c, split)
			for _, opt := range []GEEOptions{
				{Corr: "exchangeable", AllCovariances: true},
				{Corr: "independence", AllCovariances: true},
				{Corr: "exchangeable", Cov: "naive"},
				{Corr: "exchangeable", Cov: "kc"},
				{Corr: "exchangeable", Convention: "geepack"},
				{Corr: "exchangeable", Convention: "geepack", ScaleFix: true},
			} {
				name := ds.name + " " + string(opt.Corr) + " " + string(opt.Cov) + " " + string(opt.Convention)
				if split {
					name += " (split cells)"
				}
				want, err := GEE(ds.X, ds.y, ds.c, opt)
				if err != nil {
					t.Fatalf("%s: rows: %v", name, err)
				}
				got, err := GEECollapsed(Xc, n, s, cl, opt)
				if err != nil {
					t.Fatalf("%s: cells: %v", name, err)
				}
				const tol = 1e-9
				checkVec(t, name+" coef", got.Coef, want.Coef, tol)
				checkVec(t, name+" SE", got.SE, want.SE, tol)
				checkVec(t, name+" robust", ses(got.RobustCov), ses(want.RobustCov), tol)
				checkVec(t, name+" naive", ses(got.NaiveCov), ses(want.NaiveCov), tol)
				checkVec(t, name+" bias-reduced", ses(got.MDCov), ses(want.MDCov), tol)
				checkVec(t, name+" kc", ses(got.KCCov), ses(want.KCCov), tol)
				if opt.Corr == "exchangeable" {
					check(t, name+" alpha", got.Alpha, want.Alpha, tol)
				} else if !math.IsNaN(got.Alpha) {
					t.Errorf("%s: alpha %v, want NaN", name, got.Alpha)
				}
				check(t, name+" scale", got.Scale, want.Scale, tol)
				if got.N != want.N || got.NClusters != want.NClusters || got.Converged != want.Converged || len(got.Warnings) != len(want.Warnings) {
					t.Errorf("%s: N %d clusters %d converged %v warnings %v; rows: %d %d %v %v", name,
						got.N, got.NClusters, got.Converged, got.Warnings, want.N, want.NClusters, want.Converged, want.Warnings)
				}
			}
		}
	}
}

// TestGEECollapsedStatsmodels checks the cells of datasets B and D against
// the statsmodels and geepack references committed in testdata/stats
// (ref_statsmodels.py, ref_R.R), tolerance 1e-6 as TestGEEStatsmodels.
func TestGEECollapsedStatsmodels(t *testing.T) {
	var sm struct {
		GEEB []json2gee `json:"geeB"`
		GEED []json2gee `json:"geeD"`
	}
	loadJSON(t, "ref_statsmodels.json", &sm)
	var r struct {
		GeepackB []json2gee `json:"geepackB"`
	}
	loadJSON(t, "ref_R.json", &r)
	XB, yB, cB := datasetB(t)
	XD, yD, cD := datasetD(t)
	for _, s := range []struct {
		name       string
		X          *mat.Dense
		y          []float64
		c          []int
		refs       []json2gee
		perm       []int
		convention string
	}{
		{"B statsmodels", XB, yB, cB, sm.GEEB, nil, "statsmodels"},
		{"D statsmodels", XD, yD, cD, sm.GEED, []int{0, 3, 4, 1, 2}, "statsmodels"},
		{"B geepack", XB, yB, cB, r.GeepackB, nil, "geepack"},
	} {
		if len(s.refs) != 2 {
			t.Fatalf("%s: %d reference fits, want 2", s.name, len(s.refs))
		}
		Xc, n, sv, cl := collapseRows(s.X, s.y, s.c, false)
		for _, ref := range s.refs {
			if ref.Corr == "" {
				ref.Corr = ref.Corstr
			}
			name := s.name + " " + ref.Corr
			res, err := GEECollapsed(Xc, n, sv, cl, GEEOptions{Corr: Corr(ref.Corr), Convention: Convention(s.convention), AllCovariances: true})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := func(v []float64) []float64 {
				if s.perm == nil {
					return v
				}
				return permute(v, s.perm)
			}
			checkVec(t, name+" coef", res.Coef, want(ref.Coef), geeTol)
			checkVec(t, name+" robust", res.SE, want(ref.Robust), geeTol)
			checkVec(t, name+" naive", ses(res.NaiveCov), want(ref.Naive), geeTol)
			if ref.BiasReduced != nil {
				checkVec(t, name+" bias-reduced", ses(res.MDCov), want(ref.BiasReduced), geeTol)
				checkVec(t, name+" kc", ses(res.KCCov), want(ref.KC), geeTol)
			}
			if ref.Corr == "exchangeable" {
				check(t, name+" alpha", res.Alpha, float64(ref.Alpha), geeTol)
			}
			if s.convention == "geepack" {
				check(t, name+" scale", res.Scale, float64(ref.Scale), geeTol)
			}
		}
	}
}

func TestGEECollapsedErrors(t *testing.T) {
	X := mat.NewDense(2, 1, []float64{1, 1})
	if _, err := GEECollapsed(X, []float64{3, 4}, []float64{1, 2}, []int{5, 5}, GEEOptions{}); err == nil {
		t.Error("one cluster: no error")
	}
	mustPanic(t, "s > n", func() { GEECollapsed(X, []float64{1, 1}, []float64{2, 0}, []int{1, 2}, GEEOptions{}) })
	mustPanic(t, "fractional n", func() { GEECollapsed(X, []float64{1.5, 1}, []float64{0, 0}, []int{1, 2}, GEEOptions{}) })
	mustPanic(t, "length", func() { GEECollapsed(X, []float64{1}, []float64{0}, []int{1}, GEEOptions{}) })
}
