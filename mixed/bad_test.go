package mixed

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// small builds n rows in k clusters with an intercept and x = row mod 2.
func small(n, k int, y func(i int) float64) (*mat.Dense, []float64, Group) {
	X := mat.NewDense(n, 2, nil)
	ys := make([]float64, n)
	g := Group{Name: "g", Index: make([]int, n)}
	for j := 0; j < k; j++ {
		g.Levels = append(g.Levels, string(rune('a'+j)))
	}
	for i := 0; i < n; i++ {
		X.Set(i, 0, 1)
		X.Set(i, 1, float64(i%2))
		ys[i] = y(i)
		g.Index[i] = i % k
	}
	return X, ys, g
}

func TestFitLogitErrors(t *testing.T) {
	mixedY := func(i int) float64 { return float64((i * 7 / 3) % 2) }
	tests := []struct {
		name string
		fit  func() error
		want string
	}{
		{"one level", func() error {
			X, y, g := small(40, 1, mixedY)
			_, err := FitLogit(X, y, []Group{g}, Options{})
			return err
		}, "1 sampled level"},
		{"one used level of three", func() error {
			X, y, g := small(40, 1, mixedY)
			g.Levels = []string{"a", "b", "c"}
			_, err := FitLogit(X, y, []Group{g}, Options{})
			return err
		}, "1 sampled level"},
		{"constant response", func() error {
			X, y, g := small(40, 4, func(int) float64 { return 1 })
			_, err := FitLogit(X, y, []Group{g}, Options{})
			return err
		}, "constant"},
		{"response not 0/1", func() error {
			X, y, g := small(40, 4, mixedY)
			y[3] = 2
			_, err := FitLogit(X, y, []Group{g}, Options{})
			return err
		}, "row 3"},
		{"NaN covariate", func() error {
			X, y, g := small(40, 4, mixedY)
			X.Set(5, 1, nan())
			_, err := FitLogit(X, y, []Group{g}, Options{})
			return err
		}, "X[5,1]"},
		{"rank deficient", func() error {
			X, y, g := small(40, 4, mixedY)
			for i := 0; i < 40; i++ {
				X.Set(i, 1, 1)
			}
			_, err := FitLogit(X, y, []Group{g}, Options{})
			return err
		}, "rank deficient"},
		{"AGQ with two factors", func() error {
			X, y, g := small(40, 4, mixedY)
			h := g
			h.Name = "h"
			_, err := FitLogit(X, y, []Group{g, h}, Options{NAGQ: 5})
			return err
		}, "single grouping factor"},
		{"NAGQ0 with NAGQ > 1", func() error {
			X, y, g := small(40, 4, mixedY)
			_, err := FitLogit(X, y, []Group{g}, Options{NAGQ: 5, NAGQ0: true})
			return err
		}, "excludes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.fit()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func nan() float64 { return math.NaN() }

// TestFitLogitWarnings: data problems that still give a result must say so.
func TestFitLogitWarnings(t *testing.T) {
	for _, c := range []struct {
		name string
		y    func(i int) float64
	}{
		// y = x exactly: complete separation on the fixed effect.
		{"separation", func(i int) float64 { return float64(i % 2) }},
		// x = 1 rows are all ones; x = 0 rows are mixed.
		{"quasi-separation", func(i int) float64 { return float64(i%2 | (i/2)%3%2) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			X, y, g := small(60, 6, c.y)
			res, err := FitLogit(X, y, []Group{g}, Options{})
			switch {
			case err != nil:
				if !strings.Contains(err.Error(), "separation") {
					t.Errorf("error %v does not name separation", err)
				}
			case !hasWarning(res, WarnSeparation, "separation"):
				t.Errorf("no separation warning: β = %v, warnings %v", res.Coef, res.Warnings)
			}
		})
	}
	t.Run("evaluation limit", func(t *testing.T) {
		X, y, g := small(60, 6, func(i int) float64 { return float64((i * 7 / 3) % 2) })
		res, err := FitLogit(X, y, []Group{g}, Options{MaxIter: 5})
		if err != nil {
			t.Fatal(err)
		}
		if res.Converged || !hasWarning(res, WarnNotConverged, "did not converge") {
			t.Errorf("converged = %v, warnings %v", res.Converged, res.Warnings)
		}
	})
	t.Run("observation-level", func(t *testing.T) {
		// One row per level of a 0/1 response: fitted, as glmer fits it,
		// with the warning that its variance is barely identified.
		X, y, g := small(40, 40, func(i int) float64 { return float64((i * 7 / 3) % 2) })
		res, err := FitLogit(X, y, []Group{g}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !hasWarning(res, WarnObsLevel, "binary") || hasWarning(res, WarnSingleObs, "") {
			t.Errorf("warnings %v", res.Warnings)
		}
	})
	t.Run("single-observation level", func(t *testing.T) {
		X, y, g := small(41, 4, func(i int) float64 { return float64((i * 7 / 3) % 2) })
		g.Levels = append(g.Levels, "e")
		g.Index[40] = 4
		res, err := FitLogit(X, y, []Group{g}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !hasWarning(res, WarnSingleObs, "single observation") {
			t.Errorf("warnings %v", res.Warnings)
		}
	})
}

// hasWarning reports whether r warns with code, in a message saying s.
func hasWarning(r *Result, code WarningCode, s string) bool {
	for _, w := range r.Warnings {
		if w.Code == code && strings.Contains(w.Message, s) {
			return true
		}
	}
	return false
}

func TestFitLogitPanics(t *testing.T) {
	X, y, g := small(20, 4, func(i int) float64 { return float64(i % 3 % 2) })
	tests := []struct {
		name string
		f    func()
	}{
		{"length", func() { FitLogit(X, y[:10], []Group{g}, Options{}) }},
		{"no group", func() { FitLogit(X, y, nil, Options{}) }},
		{"index length", func() { FitLogit(X, y, []Group{{Name: "g", Index: g.Index[:3], Levels: g.Levels}}, Options{}) }},
		{"index range", func() {
			bad := Group{Name: "g", Index: append([]int{9}, g.Index[1:]...), Levels: g.Levels}
			FitLogit(X, y, []Group{bad}, Options{})
		}},
		{"negative NAGQ", func() { FitLogit(X, y, []Group{g}, Options{NAGQ: -1}) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "mixed: ") {
					t.Errorf("panic %v, want a \"mixed: \" message", r)
				}
			}()
			tt.f()
		})
	}
}

// TestUnusedLevels: a level without rows changes nothing but gets mode 0
// (lme4 drops unused levels).
func TestUnusedLevels(t *testing.T) {
	tb := readTable(t, "cbpp.csv")
	X := design(tb, "period=2", "period=3", "period=4")
	g := factor(tb, "herd", "herd")
	base, err := FitLogit(X, tb["y"], []Group{g}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	g.Levels = append([]string{"unused"}, g.Levels...)
	idx := make([]int, len(g.Index))
	for i, j := range g.Index {
		idx[i] = j + 1
	}
	g.Index = idx
	res, err := FitLogit(X, tb["y"], []Group{g}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Modes[0][0] != 0 || res.NLevels[0] != 15 {
		t.Errorf("mode of unused level %g, NLevels %d", res.Modes[0][0], res.NLevels[0])
	}
	if math.Abs(res.LogLik-base.LogLik) > 1e-9 || math.Abs(res.Theta[0]-base.Theta[0]) > 1e-6 {
		t.Errorf("logLik %.10g vs %.10g, θ %.8g vs %.8g", res.LogLik, base.LogLik, res.Theta[0], base.Theta[0])
	}
}
