package stats

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestGEEGLMEqualsGEE checks the general GEEGLM against the binomial
// logit GEE (itself checked against statsmodels and geepack) on the same
// rows, for every covariance and convention: the two share nothing but
// the sandwich algebra, so agreement to 1e-7 checks the per-cluster
// working-correlation algebra and the moment estimators.
func TestGEEGLMEqualsGEE(t *testing.T) {
	XB, yB, cB := datasetB(t)
	XD, yD, cD := datasetD(t)
	for _, ds := range []struct {
		name string
		X    *mat.Dense
		y    []float64
		c    []int
	}{{"B", XB, yB, cB}, {"D", XD, yD, cD}} {
		X := ds.X
		for _, opt := range []GEEOptions{
			{Corr: Exchangeable, AllCovariances: true},
			{Corr: Independence, AllCovariances: true},
			{Corr: Exchangeable, Convention: Geepack, AllCovariances: true},
			{Corr: Exchangeable, Convention: Geepack, ScaleFix: true},
		} {
			opt.Tol = 1e-12
			want, err := GEE(X, ds.y, ds.c, opt)
			if err != nil {
				t.Fatal(err)
			}
			got, err := GEEGLM(X, ds.y, ds.c, nil, opt)
			if err != nil {
				t.Fatal(err)
			}
			name := ds.name + " " + string(opt.Corr) + " " + string(opt.Convention)
			for j := range want.Coef {
				checkRel(t, name+" coef", got.Coef[j], want.Coef[j], 1e-7)
				checkRel(t, name+" robust", got.RobustCov.At(j, j), want.RobustCov.At(j, j), 1e-7)
				checkRel(t, name+" naive", got.NaiveCov.At(j, j), want.NaiveCov.At(j, j), 1e-7)
				if want.MDCov != nil {
					checkRel(t, name+" md", got.MDCov.At(j, j), want.MDCov.At(j, j), 1e-7)
					checkRel(t, name+" kc", got.KCCov.At(j, j), want.KCCov.At(j, j), 1e-7)
				}
			}
			if opt.Corr == Exchangeable && math.Abs(got.Alpha-want.Alpha) > 1e-8 {
				t.Errorf("%s alpha = %v, want %v", name, got.Alpha, want.Alpha)
			}
		}
	}
}
