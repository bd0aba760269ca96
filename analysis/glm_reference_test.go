package analysis

import (
	"math"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/testfile"
)

// glmRef holds the reference values of stats/testdata/glm/reference.csv
// (reference.R: R's glm and geepack's geeglm): case → kind → name → value.
func glmRef(t *testing.T) map[string]map[string]map[string]float64 {
	t.Helper()
	recs := testfile.ReadCSV(t, filepath.Join("..", "stats", "testdata", "glm", "reference.csv"))
	out := map[string]map[string]map[string]float64{}
	for _, r := range recs[1:] {
		v, err := strconv.ParseFloat(r[3], 64)
		if err != nil {
			t.Fatalf("%v: %v", r, err)
		}
		if out[r[0]] == nil {
			out[r[0]] = map[string]map[string]float64{}
		}
		if out[r[0]][r[1]] == nil {
			out[r[0]][r[1]] = map[string]float64{}
		}
		out[r[0]][r[1]][r[2]] = v
	}
	return out
}

// glmRefCases are the fits of reference.R, as ModelSpecs on its CSVs.
var glmRefCases = []struct {
	name, file string
	spec       ModelSpec
	terms      []string // coefficient names, in R's model.matrix order
}{
	{"warpbreaks_poisson", "warpbreaks.csv", ModelSpec{Family: "poisson", Formula: "breaks ~ wool*tension"},
		[]string{"(Intercept)", "wool[B]", "tension[L]", "tension[M]", "wool[B]:tension[L]", "wool[B]:tension[M]"}},
	{"warpbreaks_poisson_identity", "warpbreaks.csv", ModelSpec{Family: "poisson", Link: "identity", Formula: "breaks ~ wool + tension"}, nil},
	{"cbpp_logit", "cbpp.csv", ModelSpec{Fit: "glm", Family: "binomial", Formula: "cbind(incidence, size - incidence) ~ C(period)"},
		[]string{"(Intercept)", "period[2]", "period[3]", "period[4]"}},
	{"cbpp_probit", "cbpp.csv", ModelSpec{Link: "probit", Formula: "cbind(incidence, size - incidence) ~ C(period)"}, nil},
	{"cbpp_cloglog", "cbpp.csv", ModelSpec{Link: "cloglog", Formula: "cbind(incidence, size - incidence) ~ C(period)"}, nil},
	{"mtcars_gaussian", "mtcars.csv", ModelSpec{Family: "gaussian", Formula: "mpg ~ wt*C(cyl) + hp"},
		[]string{"(Intercept)", "wt", "cyl[6]", "cyl[8]", "hp", "wt:cyl[6]", "wt:cyl[8]"}},
	{"toothgrowth_gaussian", "toothgrowth.csv", ModelSpec{Family: "gaussian", Formula: "len ~ supp*dose"},
		[]string{"(Intercept)", "supp[VC]", "dose", "supp[VC]:dose"}},
	{"toothgrowth_gaussian_log", "toothgrowth.csv", ModelSpec{Family: "gaussian", Link: "log", Formula: "len ~ supp + dose"}, nil},
	{"ohio_probit", "ohio.csv", ModelSpec{Family: "binomial", Link: "probit", Formula: "resp ~ age*smoke"},
		[]string{"(Intercept)", "age", "smoke", "age:smoke"}},
	{"ohio_cloglog", "ohio.csv", ModelSpec{Family: "binomial", Link: "cloglog", Formula: "resp ~ age + smoke + age:smoke"}, nil},
	{"ohio_logit", "ohio.csv", ModelSpec{Fit: "glm", Formula: "resp ~ age*smoke"}, nil},
	{"generated_poisson_offset", "generated.csv", ModelSpec{Family: "poisson", Formula: "y ~ g*x + offset(log(t))"},
		[]string{"(Intercept)", "g[b]", "g[c]", "x", "g[b]:x", "g[c]:x"}},
	{"generated_cbind_expr", "generated.csv", ModelSpec{Formula: "cbind(k, n - k) ~ x + g"}, nil},
	{"ohio_gee_exch", "ohio.csv", ModelSpec{Fit: "gee", Group: "id", Corr: "exchangeable", Convention: "geepack", Formula: "resp ~ age*smoke"}, nil},
	{"ohio_gee_ind", "ohio.csv", ModelSpec{Fit: "gee", Group: "id", Corr: "independence", Convention: "geepack", Formula: "resp ~ age*smoke"}, nil},
	{"ohio_gee_ar1", "ohio.csv", ModelSpec{Family: "binomial", Group: "id", Corr: "ar1", Order: "age", Formula: "resp ~ age*smoke"}, nil},
	{"dietox_gee_ar1", "dietox.csv", ModelSpec{Family: "gaussian", Group: "Pig", Corr: "ar1", Order: "Time", Formula: "Weight ~ Time*C(Cu)"}, nil},
	{"dietox_gee_exch", "dietox.csv", ModelSpec{Family: "gaussian", Group: "Pig", Convention: "geepack", Formula: "Weight ~ Time + C(Cu)"}, nil},
	{"seizure_gee_ar1", "seizure.csv", ModelSpec{Family: "poisson", Group: "id", Corr: "ar1", Order: "period", Formula: "y ~ lbase*trt + age"}, nil},
	{"seizure_gee_exch", "seizure.csv", ModelSpec{Family: "poisson", Group: "id", Convention: "geepack", Formula: "y ~ lbase*trt + age"}, nil},
	{"generated_gee_ar1_offset", "generated.csv", ModelSpec{Family: "poisson", Group: "cl", Corr: "ar1", Order: "wave", Formula: "y ~ g + x + offset(log(t))"}, nil},
}

// TestGLMReference fits every case of reference.R through Model (formula,
// design, frame and stats.GLM / stats.GEEGLM) and compares the estimates
// (1e-6 relative), SEs (1e-5) and the fit's statistics with R's. A
// coefficient name R does not have fails: the names and their order are
// R's model.matrix columns.
func TestGLMReference(t *testing.T) {
	ref := glmRef(t)
	worst := map[string]float64{}
	for _, tc := range glmRefCases {
		t.Run(tc.name, func(t *testing.T) {
			want := ref[tc.name]
			if want == nil {
				t.Fatalf("no reference values for %s", tc.name)
			}
			q := Query{Source: &table.Files{Paths: []string{filepath.Join("..", "stats", "testdata", "glm", tc.file)}}}
			r, err := Model(q, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if !r.Converged {
				t.Errorf("not converged")
			}
			if len(r.Coefficients) != len(want["coef"]) {
				t.Fatalf("%d coefficients, R has %d", len(r.Coefficients), len(want["coef"]))
			}
			for k, c := range r.Coefficients {
				if tc.terms != nil && c.Term != tc.terms[k] {
					t.Errorf("coefficient %d is %s, R's is %s", k, c.Term, tc.terms[k])
				}
				b, ok := want["coef"][c.Term]
				if !ok {
					t.Errorf("coefficient %s: R has no such column", c.Term)
					continue
				}
				check := func(what string, got, want, tol float64) {
					d := math.Abs(got-want) / math.Max(math.Abs(want), 1e-300)
					worst[tc.name] = math.Max(worst[tc.name], d)
					if !(d <= tol) {
						t.Errorf("%s %s = %.12g, R %.12g (rel %.2g > %g)", c.Term, what, got, want, d, tol)
					}
				}
				check("estimate", c.Estimate, b, 1e-6)
				check("se", c.SE, want["se"][c.Term], 1e-5)
			}
			stat := func(name string, got float64, tol float64) {
				w, ok := want["stat"][name]
				if !ok {
					return
				}
				d := math.Abs(got-w) / math.Max(math.Abs(w), 1e-300)
				if !(d <= tol) {
					t.Errorf("%s = %.12g, R %.12g (rel %.2g)", name, got, w, d)
				}
			}
			stat("dispersion", r.Dispersion, 1e-6)
			stat("deviance", r.Deviance, 1e-7)
			stat("null_deviance", r.NullDeviance, 1e-7)
			stat("loglik", r.LogLik, 1e-8)
			stat("aic", r.AIC, 1e-8)
			stat("bic", r.BIC, 1e-8)
			stat("df_residual", r.DFResidual, 0)
			stat("alpha", r.Alpha, 1e-5)
			stat("scale", r.Dispersion, 1e-5)
		})
	}
	for _, tc := range glmRefCases {
		t.Logf("%-28s max relative difference to R %.2g", tc.name, worst[tc.name])
	}
}
