package mixed

import (
	"errors"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/stats"
)

// sleepSpec is sleepstudy's Reaction ~ Days + (Days | Subject).
func sleepSpec(t testing.TB) Spec { return lmmCases()[0].spec(t) }

func TestFitErrors(t *testing.T) {
	tests := []struct {
		name string
		spec func(t *testing.T) Spec
		want string
	}{
		{"slope constant within levels", func(t *testing.T) Spec {
			s := sleepSpec(t)
			z := make([]float64, len(s.Y))
			for i, l := range s.Terms[0].Group {
				z[i] = float64(l % 3)
			}
			s.Terms[0].Z[1], s.Terms[0].Coef[1] = z, "shift"
			return s
		}, `column "shift" is constant within every level`},
		{"gaussian observation-level term", func(t *testing.T) Spec {
			s := sleepSpec(t)
			obs := make([]int, len(s.Y))
			for i := range obs {
				obs[i] = i
			}
			s.Terms = append(s.Terms, Term{Name: "obs", Group: obs, Levels: len(obs)})
			return s
		}, `term "obs" has 180 random effects for 180 rows; its variance is not identifiable from the residual variance`},
		{"poisson observation-level slope", func(t *testing.T) Spec {
			s := glmmCase(t, "grouse").spec(t)
			obs := make([]int, len(s.Y))
			x := make([]float64, len(s.Y))
			for i := range obs {
				obs[i], x[i] = i, float64(i%5)
			}
			s.Terms = append(s.Terms, Term{Name: "obs", Group: obs, Levels: len(obs), Coef: []string{"(Intercept)", "x"}, Z: [][]float64{nil, x}})
			return s
		}, `term "obs" has 806 random effects for 403 rows; they are not identifiable`},
		{"one level", func(t *testing.T) Spec {
			s := sleepSpec(t)
			s.Terms[0].Group = make([]int, len(s.Y))
			return s
		}, "1 sampled level"},
		{"negative count", func(t *testing.T) Spec {
			s := glmmCase(t, "grouse").spec(t)
			s.Y[7] = -1
			return s
		}, "row 7"},
		{"non-integer count", func(t *testing.T) Spec {
			s := glmmCase(t, "grouse").spec(t)
			s.Y[2] = 1.5
			return s
		}, "row 2"},
		{"successes above trials", func(t *testing.T) Spec {
			s := glmmCase(t, "cbpp_trials").spec(t)
			s.Y[4] = s.Trials[4] + 1
			return s
		}, "row 4"},
		{"binary outcome not 0/1", func(t *testing.T) Spec {
			s := glmmCase(t, "bin_slope").spec(t)
			s.Y[9] = 3
			return s
		}, "not 0 or 1"},
		{"REML for binomial", func(t *testing.T) Spec {
			s := glmmCase(t, "cbpp_trials").spec(t)
			s.REML = true
			return s
		}, "REML"},
		{"gaussian with logit", func(t *testing.T) Spec {
			s := sleepSpec(t)
			s.Link = stats.LinkLogit
			return s
		}, "does not take the logit link"},
		{"poisson with identity", func(t *testing.T) Spec {
			s := glmmCase(t, "grouse").spec(t)
			s.Link = stats.LinkIdentity
			return s
		}, "does not take the identity link"},
		{"trials for poisson", func(t *testing.T) Spec {
			s := glmmCase(t, "grouse").spec(t)
			s.Trials = make([]float64, len(s.Y))
			return s
		}, "Trials"},
		{"rank deficient", func(t *testing.T) Spec {
			s := sleepSpec(t)
			n, _ := s.X.Dims()
			X := mat.NewDense(n, 3, nil)
			for i := 0; i < n; i++ {
				X.Set(i, 0, 1)
				X.Set(i, 1, s.X.At(i, 1))
				X.Set(i, 2, 2*s.X.At(i, 1))
			}
			s.X = X
			return s
		}, "rank deficient"},
		{"NaN slope", func(t *testing.T) Spec {
			s := sleepSpec(t)
			s.Terms[0].Z[1] = append([]float64(nil), s.Terms[0].Z[1]...)
			s.Terms[0].Z[1][11] = nan()
			return s
		}, `column "Days" is NaN in row 11`},
		{"AGQ for a slope model", func(t *testing.T) Spec {
			return glmmCase(t, "bin_slope").spec(t)
		}, "not implemented"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := Options{}
			if strings.HasPrefix(tt.name, "AGQ") {
				opt.NAGQ = 5
			}
			_, err := Fit(tt.spec(t), opt)
			if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "mixed: ") {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
			if strings.HasPrefix(tt.name, "AGQ") && !errors.Is(err, ErrNotImplemented) {
				t.Errorf("err = %v, want ErrNotImplemented", err)
			}
		})
	}
}

func TestFitPanics(t *testing.T) {
	tests := []struct {
		name string
		spec func(t *testing.T) Spec
	}{
		{"short Y", func(t *testing.T) Spec { s := sleepSpec(t); s.Y = s.Y[1:]; return s }},
		{"short weights", func(t *testing.T) Spec { s := sleepSpec(t); s.Weights = make([]float64, 3); return s }},
		{"short group", func(t *testing.T) Spec { s := sleepSpec(t); s.Terms[0].Group = s.Terms[0].Group[1:]; return s }},
		{"level out of range", func(t *testing.T) Spec {
			s := sleepSpec(t)
			s.Terms[0].Group = append([]int(nil), s.Terms[0].Group...)
			s.Terms[0].Group[0] = s.Terms[0].Levels
			return s
		}},
		{"Z and Coef differ", func(t *testing.T) Spec { s := sleepSpec(t); s.Terms[0].Coef = s.Terms[0].Coef[:1]; return s }},
		{"no terms", func(t *testing.T) Spec { s := sleepSpec(t); s.Terms = nil; return s }},
		{"unknown family", func(t *testing.T) Spec { s := sleepSpec(t); s.Family = "gamma"; return s }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.spec(t)
			defer func() {
				r := recover()
				if msg, ok := r.(string); !ok || !strings.HasPrefix(msg, "mixed: ") {
					t.Errorf("panic %v, want a \"mixed: \" message", r)
				}
			}()
			Fit(s, Options{})
		})
	}
}

// TestFitWarnings: a singular fit (bin_slope: correlation at +1, as lme4) and a
// non-singular one; each warning has a code and says what to do.
func TestFitWarnings(t *testing.T) {
	res, err := Fit(glmmCase(t, "bin_slope").spec(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var codes []WarningCode
	for _, w := range res.Warnings {
		codes = append(codes, w.Code)
		if w.Message == "" || w.Code.String() == "" {
			t.Errorf("warning %+v lacks a message or code name", w)
		}
	}
	if !res.Singular || !containsCode(codes, WarnSingular) {
		t.Errorf("singular = %v, codes %v; want a singular warning", res.Singular, codes)
	}
	if c := res.Terms[0].Corr.At(1, 0); c < 0.999 {
		t.Errorf("correlation %g, want +1 at the boundary", c)
	}
	res, err = Fit(sleepSpec(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Singular || len(res.Warnings) != 0 {
		t.Errorf("sleepstudy: singular %v, warnings %v", res.Singular, res.Warnings)
	}
}

// glmmCase is the case of glmmCases with the given name.
func glmmCase(t testing.TB, name string) fitCase {
	for _, c := range glmmCases() {
		if c.name == name {
			return c
		}
	}
	t.Fatalf("no GLMM case %s", name)
	return fitCase{}
}

func containsCode(cs []WarningCode, c WarningCode) bool {
	for _, x := range cs {
		if x == c {
			return true
		}
	}
	return false
}
