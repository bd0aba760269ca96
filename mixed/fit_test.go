package mixed

import (
	"compress/gzip"
	"encoding/csv"
	"encoding/json"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"strconv"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/limbo-toolkit/limbo/stats"
)

// nums is a JSON number or array of numbers (jsonlite's auto_unbox writes
// length-one vectors as scalars).
type nums []float64

func (v *nums) UnmarshalJSON(b []byte) error {
	var x float64
	if err := json.Unmarshal(b, &x); err == nil {
		*v = nums{x}
		return nil
	}
	var xs []float64
	if err := json.Unmarshal(b, &xs); err != nil {
		return err
	}
	*v = xs
	return nil
}

// lme4Ref is one case of testdata/ref.json (made by testdata/make.R).
type lme4Ref struct {
	Beta, SE, Theta nums
	SERX            nums `json:"se_rx"`
	Sigma           float64
	Loglik          float64
	AIC, BIC        float64
	DF              int
	Nobs            int
	Remlcrit        *float64
	Singular        bool
	Ngrps           map[string]int
	Terms           []struct {
		Group string
		SD    nums
		Corr  nums
	}
}

func readRef(t testing.TB) map[string]lme4Ref { return readRefFile(t, "ref.json") }

func readRefFile(t testing.TB, name string) map[string]lme4Ref {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]lme4Ref
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// frame is a CSV file of testdata/ as string columns.
type frame map[string][]string

func readFrame(t testing.TB, name string) frame {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rd io.Reader = f
	if strings.HasSuffix(name, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		rd = gz
	}
	recs, err := csv.NewReader(rd).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	fr := frame{}
	for _, r := range recs[1:] {
		for j, h := range recs[0] {
			fr[h] = append(fr[h], r[j])
		}
	}
	return fr
}

func (f frame) rows() int {
	for _, c := range f {
		return len(c)
	}
	return 0
}

func (f frame) num(t testing.TB, col string) []float64 {
	t.Helper()
	s, ok := f[col]
	if !ok {
		t.Fatalf("no column %q", col)
	}
	out := make([]float64, len(s))
	for i, v := range s {
		x, err := strconv.ParseFloat(v, 64)
		if err != nil {
			t.Fatalf("column %s row %d: %v", col, i, err)
		}
		out[i] = x
	}
	return out
}

// codes returns level indices of the combination of cols (R's a:b) in
// order of first appearance, and the number of levels.
func (f frame) codes(cols ...string) ([]int, int) {
	n := f.rows()
	idx := make([]int, n)
	seen := map[string]int{}
	for i := 0; i < n; i++ {
		k := ""
		for _, c := range cols {
			k += f[c][i] + "\x00"
		}
		j, ok := seen[k]
		if !ok {
			j = len(seen)
			seen[k] = j
		}
		idx[i] = j
	}
	return idx, len(seen)
}

// design is an intercept, numeric columns and treatment-coded factors:
// "f=v" is the indicator of factor f at level v.
func (f frame) design(t testing.TB, cols ...string) *mat.Dense {
	n := f.rows()
	X := mat.NewDense(n, 1+len(cols), nil)
	for i := 0; i < n; i++ {
		X.Set(i, 0, 1)
	}
	for j, c := range cols {
		if name, val, ok := cut(c); ok {
			for i, v := range f[name] {
				if v == val {
					X.Set(i, j+1, 1)
				}
			}
			continue
		}
		for i, v := range f.num(t, c) {
			X.Set(i, j+1, v)
		}
	}
	return X
}

func cut(s string) (string, string, bool) {
	for i := range s {
		if s[i] == '=' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// term builds a Term: group columns (combined), slope columns (an
// intercept first unless noInt).
func (f frame) term(t testing.TB, name string, group []string, slopes []string, diag bool) Term {
	idx, nl := f.codes(group...)
	tm := Term{Name: name, Group: idx, Levels: nl, Coef: []string{"(Intercept)"}, Z: [][]float64{nil}, Diagonal: diag}
	for _, s := range slopes {
		tm.Coef = append(tm.Coef, s)
		tm.Z = append(tm.Z, f.num(t, s))
	}
	return tm
}

type fitCase struct {
	name string
	spec func(t testing.TB) Spec
	// rterms[k] lists the lme4 VarCorr terms whose SDs, concatenated, are
	// those of our term k.
	rterms [][]int
	// rx compares RX-based SEs (Options.RXSE) with lme4's
	// vcov(use.hessian = FALSE), where lme4's finite-difference Hessian
	// is off at its step (TestGLMMStandardErrors compares the Hessian SEs
	// of every case).
	rx bool
	// betaTol overrides the 1e-4 tolerance of β (see TestFitVerbAgg).
	betaTol float64
}

func lmmCases() []fitCase {
	sleep := func(reml, diag bool) func(t testing.TB) Spec {
		return func(t testing.TB) Spec {
			f := readFrame(t, "sleepstudy.csv")
			return Spec{X: f.design(t, "Days"), Y: f.num(t, "Reaction"), Family: stats.Gaussian, REML: reml,
				Terms: []Term{f.term(t, "Subject", []string{"Subject"}, []string{"Days"}, diag)}}
		}
	}
	pastes := func(reml bool) func(t testing.TB) Spec {
		return func(t testing.TB) Spec {
			f := readFrame(t, "pastes.csv")
			return Spec{X: f.design(t), Y: f.num(t, "strength"), Family: stats.Gaussian, REML: reml,
				Terms: []Term{f.term(t, "batch", []string{"batch"}, nil, false), f.term(t, "cask:batch", []string{"batch", "cask"}, nil, false)}}
		}
	}
	gen := func(t testing.TB) Spec {
		f := readFrame(t, "lmm_gen.csv")
		return Spec{X: f.design(t, "x", "z"), Y: f.num(t, "y"), Family: stats.Gaussian, REML: true,
			Terms: []Term{f.term(t, "g", []string{"g"}, []string{"x"}, false), f.term(t, "h", []string{"h"}, nil, false)}}
	}
	return []fitCase{
		{"sleep_reml", sleep(true, false), [][]int{{0}}, false, 0},
		{"sleep_ml", sleep(false, false), [][]int{{0}}, false, 0},
		{"sleep_diag", sleep(true, true), [][]int{{0, 1}}, false, 0},
		{"penicillin", func(t testing.TB) Spec {
			f := readFrame(t, "penicillin.csv")
			return Spec{X: f.design(t), Y: f.num(t, "diameter"), Family: stats.Gaussian, REML: true,
				Terms: []Term{f.term(t, "plate", []string{"plate"}, nil, false), f.term(t, "sample", []string{"sample"}, nil, false)}}
		}, [][]int{{0}, {1}}, false, 0},
		{"pastes", pastes(true), [][]int{{1}, {0}}, false, 0},
		{"pastes_ml", pastes(false), [][]int{{1}, {0}}, false, 0},
		{"gen_reml", gen, [][]int{{0}, {1}}, false, 0},
		{"gen_wo_ml", func(t testing.TB) Spec {
			s := gen(t)
			f := readFrame(t, "lmm_gen.csv")
			s.Weights, s.Offset, s.REML = f.num(t, "w"), f.num(t, "o"), false
			return s
		}, [][]int{{0}, {1}}, false, 0},
	}
}

// agreement is the largest relative differences from lme4 in one case.
type agreement struct{ beta, se, sd, corr, loglik float64 }

// compare checks res against lme4's ref: β 1e-4 relative (absolute below
// 1, as close), SEs 1e-4 relative (1e-3 for Hessian-based GLMM SEs: the
// finite-difference Hessian of a deviance computed to ~1e-10), SDs 5e-3
// relative, correlations 5e-3 absolute, σ 5e-3 relative, the
// log-likelihood no lower than lme4's by more than 0.01 (and not above it
// by more than 0.01), the REML criterion to 1e-3 (issue 26's targets).
func compare(t *testing.T, c fitCase, res *Fitted, ref lme4Ref) agreement {
	t.Helper()
	var a agreement
	rel := func(got, want float64) float64 { return math.Abs(got-want) / math.Max(math.Abs(want), 1e-12) }
	seTol := 1e-4
	if res.SEMethod == "Hessian" {
		seTol = 1e-3
	}
	btol := 1e-4
	if c.betaTol > 0 {
		btol = c.betaTol
	}
	for j, b := range ref.Beta {
		d := math.Abs(res.Coef[j]-b) / math.Max(math.Abs(b), 1)
		a.beta = math.Max(a.beta, d)
		if d > btol {
			t.Errorf("β[%d] = %.10g, lme4 %.10g", j, res.Coef[j], b)
		}
		se := ref.SE
		if c.rx {
			se = ref.SERX
		}
		d = rel(res.SE[j], se[j])
		a.se = math.Max(a.se, d)
		if d > seTol {
			t.Errorf("SE[%d] = %.10g, lme4 %.10g", j, res.SE[j], se[j])
		}
	}
	for k, rts := range c.rterms {
		var sds, corr []float64
		for _, r := range rts {
			sds = append(sds, ref.Terms[r].SD...)
			if len(ref.Terms[r].SD) > 1 {
				corr = ref.Terms[r].Corr
			}
		}
		tf := res.Terms[k]
		for j, sd := range sds {
			// An SD at 0 compares absolutely.
			d := math.Abs(tf.SD[j]-sd) / math.Max(sd, 1e-2)
			a.sd = math.Max(a.sd, d)
			if d > 5e-3 {
				t.Errorf("term %s SD[%d] = %.8g, lme4 %.8g", tf.Name, j, tf.SD[j], sd)
			}
		}
		if corr != nil {
			nc := len(tf.SD)
			for i := 0; i < nc; i++ {
				for j := 0; j < i; j++ {
					d := math.Abs(tf.Corr.At(i, j) - corr[i*nc+j])
					a.corr = math.Max(a.corr, d)
					if d > 5e-3 {
						t.Errorf("term %s corr[%d,%d] = %.6g, lme4 %.6g", tf.Name, i, j, tf.Corr.At(i, j), corr[i*nc+j])
					}
				}
			}
		}
		if want := ref.Ngrps[groupName(ref, rts[0])]; tf.NLevels != want {
			t.Errorf("term %s has %d levels, lme4 %d", tf.Name, tf.NLevels, want)
		}
	}
	if res.Family == stats.Gaussian && rel(res.Sigma, ref.Sigma) > 5e-3 {
		t.Errorf("σ = %.8g, lme4 %.8g", res.Sigma, ref.Sigma)
	}
	a.loglik = res.LogLik - ref.Loglik
	if a.loglik < -0.01 || a.loglik > 0.01 {
		t.Errorf("logLik = %.8f, lme4 %.8f", res.LogLik, ref.Loglik)
	}
	if ref.Remlcrit != nil && math.Abs(res.REMLCrit-*ref.Remlcrit) > 1e-3 {
		t.Errorf("REML criterion = %.8f, lme4 %.8f", res.REMLCrit, *ref.Remlcrit)
	}
	if res.NPar != ref.DF || res.N != ref.Nobs {
		t.Errorf("NPar, N = %d, %d; lme4 df %d, nobs %d", res.NPar, res.N, ref.DF, ref.Nobs)
	}
	if math.Abs(res.AIC-ref.AIC) > 0.02 || math.Abs(res.BIC-ref.BIC) > 0.02 {
		t.Errorf("AIC, BIC = %.6f, %.6f; lme4 %.6f, %.6f", res.AIC, res.BIC, ref.AIC, ref.BIC)
	}
	if res.Singular != ref.Singular {
		t.Errorf("singular = %v, lme4 %v", res.Singular, ref.Singular)
	}
	return a
}

// groupName is the grouping factor of lme4 term r without lme4's ".1"
// suffix for the second part of a || term.
func groupName(ref lme4Ref, r int) string {
	g := ref.Terms[r].Group
	if _, ok := ref.Ngrps[g]; ok {
		return g
	}
	for k := range ref.Ngrps {
		if len(g) > len(k) && g[:len(k)] == k && g[len(k)] == '.' {
			return k
		}
	}
	return g
}

func TestFitLMMLme4(t *testing.T) {
	ref := readRef(t)
	for _, c := range lmmCases() {
		t.Run(c.name, func(t *testing.T) {
			want, ok := ref[c.name]
			if !ok {
				t.Fatalf("no case %s in ref.json", c.name)
			}
			res, err := Fit(c.spec(t), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged {
				t.Errorf("not converged: %v", res.Warnings)
			}
			a := compare(t, c, res, want)
			t.Logf("max rel diff β %.1e, SE %.1e, SD %.1e, corr %.1e; logLik − lme4 %+.2e", a.beta, a.se, a.sd, a.corr, a.loglik)
		})
	}
}

func glmmCases() []fitCase {
	cbpp := func(link stats.Link) func(t testing.TB) Spec {
		return func(t testing.TB) Spec {
			f := readFrame(t, "cbpp_trials.csv")
			return Spec{X: f.design(t, "period=2", "period=3", "period=4"), Y: f.num(t, "incidence"), Trials: f.num(t, "size"),
				Family: stats.Binomial, Link: link, Terms: []Term{f.term(t, "herd", []string{"herd"}, nil, false)}}
		}
	}
	gen := func(t testing.TB) (frame, Spec) {
		f := readFrame(t, "glmm_gen.csv")
		return f, Spec{X: f.design(t, "x"), Terms: []Term{f.term(t, "g", []string{"g"}, []string{"x"}, false)}}
	}
	return []fitCase{
		{"cbpp_trials", cbpp(""), [][]int{{0}}, false, 0},
		{"cbpp_probit", cbpp(stats.LinkProbit), [][]int{{0}}, false, 0},
		{"cbpp_cloglog", cbpp(stats.LinkCloglog), [][]int{{0}}, false, 0},
		{"grouse", func(t testing.TB) Spec {
			f := readFrame(t, "grouseticks.csv")
			return Spec{X: f.design(t, "YEAR=96", "YEAR=97", "cHEIGHT"), Y: f.num(t, "TICKS"), Family: stats.Poisson,
				Terms: []Term{f.term(t, "BROOD", []string{"BROOD"}, nil, false), f.term(t, "LOCATION", []string{"LOCATION"}, nil, false)}}
		}, [][]int{{0}, {1}}, false, 0},
		{"pois_slope", func(t testing.TB) Spec {
			f, s := gen(t)
			s.Y, s.Family = f.num(t, "y"), stats.Poisson
			s.Offset = f.num(t, "e")
			for i, e := range s.Offset {
				s.Offset[i] = math.Log(e)
			}
			return s
		}, [][]int{{0}}, false, 0},
		{"pois_weights", func(t testing.TB) Spec {
			f, s := gen(t)
			s.Y, s.Family, s.Weights = f.num(t, "y"), stats.Poisson, f.num(t, "e")
			s.Terms[0] = f.term(t, "g", []string{"g"}, nil, false)
			return s
		}, [][]int{{0}}, true, 0},
		{"bin_slope", func(t testing.TB) Spec {
			f, s := gen(t)
			s.Y, s.Family = f.num(t, "yb"), stats.Binomial
			return s
		}, [][]int{{0}}, false, 0},
		{"bin_slope_diag", func(t testing.TB) Spec {
			f, s := gen(t)
			s.Y, s.Family = f.num(t, "yb"), stats.Binomial
			s.Terms[0].Diagonal = true
			return s
		}, [][]int{{0, 1}}, true, 0},
	}
}

// TestFitGLMMLme4 compares glmer fits (Laplace) with lme4's tight fits.
// Estimates, SDs and log-likelihoods agree to the targets of compare, and
// so do the standard errors from the Hessian (lme4's default), but for
// two cases whose RX SEs are compared (rx): Poisson with prior weights,
// where lme4's deviance has a kink at its step (TestGLMMStandardErrors),
// and (x || g), where lme4's Hessian is not positive definite and lme4
// itself falls back to RX.
func TestFitGLMMLme4(t *testing.T) {
	ref := readRef(t)
	for _, c := range glmmCases() {
		t.Run(c.name, func(t *testing.T) {
			want, ok := ref[c.name]
			if !ok {
				t.Fatalf("no case %s in ref.json", c.name)
			}
			res, err := Fit(c.spec(t), Options{RXSE: c.rx})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged && !want.Singular {
				t.Errorf("not converged: %v", res.Warnings)
			}
			a := compare(t, c, res, want)
			t.Logf("max rel diff β %.1e, SE %.1e, SD %.1e, corr %.1e; logLik − lme4 %+.2e; %d evaluations, SE %s", a.beta, a.se, a.sd, a.corr, a.loglik, res.Iter, res.SEMethod)
		})
	}
}

// obsLevelCases are the observation-level models of testdata/obslevel.R.
func obsLevelCases() []fitCase {
	return []fitCase{
		{name: "cbpp_obs", spec: func(t testing.TB) Spec {
			f := readFrame(t, "cbpp_obs.csv")
			return Spec{X: f.design(t, "period=2", "period=3", "period=4"), Y: f.num(t, "incidence"), Trials: f.num(t, "size"),
				Family: stats.Binomial, Terms: []Term{f.term(t, "herd", []string{"herd"}, nil, false), f.term(t, "obs", []string{"obs"}, nil, false)}}
		}, rterms: [][]int{{1}, {0}}},
		{name: "grouse_obs", spec: func(t testing.TB) Spec {
			f := readFrame(t, "grouseticks_obs.csv")
			return Spec{X: f.design(t, "YEAR=96", "YEAR=97", "sHEIGHT"), Y: f.num(t, "TICKS"), Family: stats.Poisson,
				Terms: []Term{f.term(t, "BROOD", []string{"BROOD"}, nil, false), f.term(t, "INDEX", []string{"INDEX"}, nil, false),
					f.term(t, "LOCATION", []string{"LOCATION"}, nil, false)}}
		}, rterms: [][]int{{1}, {0}, {2}}},
		// A 0/1 response (FitLogit's route): fitted, with the warning,
		// and singular, the obs SD at 0, as lme4 finds it.
		{name: "cbpp_bernoulli_obs", spec: func(t testing.TB) Spec {
			f := readFrame(t, filepath.Join("..", "..", "testdata", "mixed", "cbpp.csv"))
			for i := range f.rows() {
				f["obs"] = append(f["obs"], strconv.Itoa(i))
			}
			return Spec{X: f.design(t, "period=2", "period=3", "period=4"), Y: f.num(t, "y"),
				Family: stats.Binomial, Terms: []Term{f.term(t, "herd", []string{"herd"}, nil, false), f.term(t, "obs", []string{"obs"}, nil, false)}}
		}, rterms: [][]int{{1}, {0}}},
	}
}

// TestFitObsLevelLme4 fits observation-level random effects (one level
// per row), which lme4's glmer takes for binomial and Poisson models
// (testdata/obslevel.R, tight glmer): lme4's cbpp with
// (1 | herd) + (1 | obs) and its grouseticks model TICKS ~ YEAR +
// scale(HEIGHT) + (1 | BROOD) + (1 | INDEX) + (1 | LOCATION). Estimates
// 1e-4, SDs 5e-3, the log-likelihood 0.01, SEs 5e-3 (compare).
func TestFitObsLevelLme4(t *testing.T) {
	ref := readRefFile(t, "obslevel_ref.json")
	for _, c := range obsLevelCases() {
		t.Run(c.name, func(t *testing.T) {
			want, ok := ref[c.name]
			if !ok {
				t.Fatalf("no case %s in obslevel_ref.json", c.name)
			}
			res, err := Fit(c.spec(t), Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !res.Converged && !want.Singular {
				t.Errorf("not converged: %v", res.Warnings)
			}
			binary := c.name == "cbpp_bernoulli_obs"
			if got := slices.ContainsFunc(res.Warnings, func(w Warning) bool { return w.Code == WarnObsLevel && w.Term == "obs" }); got != binary {
				t.Errorf("observation-level warning %v, want %v: %v", got, binary, res.Warnings)
			}
			a := compare(t, c, res, want)
			t.Logf("max rel diff β %.1e, SE %.1e, SD %.1e; logLik − lme4 %+.2e; %d evaluations, SE %s", a.beta, a.se, a.sd, a.loglik, res.Iter, res.SEMethod)
		})
	}
}

// verbAggSpec is lme4's VerbAgg model r2 ~ Anger + Gender + btype + situ +
// (1 | id) + (1 | item) on copies copies of the data with distinct ids.
func verbAggSpec(t testing.TB, copies int) Spec {
	f := readFrame(t, "verbagg.csv.gz")
	if copies > 1 {
		g := frame{}
		for k := 0; k < copies; k++ {
			for c, col := range f {
				if c == "id" {
					for _, v := range col {
						g[c] = append(g[c], strconv.Itoa(k)+":"+v)
					}
					continue
				}
				g[c] = append(g[c], col...)
			}
		}
		f = g
	}
	return Spec{X: f.design(t, "Anger", "Gender=M", "btype=scold", "btype=shout", "situ=self"), Y: f.num(t, "r2"), Family: stats.Binomial,
		Terms: []Term{f.term(t, "id", []string{"id"}, nil, false), f.term(t, "item", []string{"item"}, nil, false)}}
}

// TestFitVerbAgg compares with tight glmer on VerbAgg (testdata/verbagg.R)
// and on ten copies of it (75,840 rows, 3,160 × 24 crossed levels; RX SEs
// above 10⁴ rows, as lme4's default). On the ten copies the deviance is so
// flat that tight lme4 stops 1.2e-7 below our log-likelihood with β 1.1e-4
// away (β_btypescold), so β is checked to 2e-4 there; the log-likelihood
// check (ours at least lme4's − 0.01) holds with a margin.
func TestFitVerbAgg(t *testing.T) {
	ref := readRefFile(t, "verbagg_ref.json")
	for _, c := range []struct {
		name   string
		copies int
	}{{"verbagg", 1}, {"verbagg10", 10}} {
		t.Run(c.name, func(t *testing.T) {
			if c.copies > 1 && testing.Short() {
				t.Skip("75,840 rows")
			}
			res, err := Fit(verbAggSpec(t, c.copies), Options{})
			if err != nil {
				t.Fatal(err)
			}
			fc := fitCase{name: c.name, rterms: [][]int{{0}, {1}}, rx: c.copies > 1}
			if c.copies > 1 {
				fc.betaTol = 2e-4
			}
			a := compare(t, fc, res, ref[c.name])
			t.Logf("max rel diff β %.1e, SE %.1e, SD %.1e; logLik − lme4 %+.2e; %d evaluations, SE %s", a.beta, a.se, a.sd, a.loglik, res.Iter, res.SEMethod)
		})
	}
}

// TestGLMMStandardErrors compares the standard errors of every GLMM
// reference (Laplace, the Hessian of the deviance over (θ, β) at lme4's
// step 1e-4) with lme4's vcov at tight settings (testdata/vcov.R,
// vcov_ref.json): 5e-3 relative, issue 35's target. Where lme4's own
// Hessian is not positive definite (fallback: it reports RX SEs), they
// are compared with 2H⁻¹ of lme4's deviance function differenced at step
// 1e-2, where it is smooth. The log shows how far lme4 at its default
// control (tolPwrss 1e-7) is from both: up to 1.3% on cbpp, whose
// deviance its PIRLS leaves rough at the 1e-4 step (docs/methods.md,
// "GLMM standard errors").
func TestGLMMStandardErrors(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "vcov_ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string]struct {
		SE        nums `json:"se"`
		SEDefault nums `json:"se_default"`
		SEH2      nums `json:"se_h2"`
		Fallback  bool `json:"fallback"`
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	cases := append(glmmCases(), obsLevelCases()...)
	cases = append(cases, fitCase{name: "verbagg", spec: func(t testing.TB) Spec { return verbAggSpec(t, 1) }})
	for _, c := range cases {
		want, ok := ref[c.name]
		if !ok {
			continue // cbpp_bernoulli_obs: singular, lme4 compared in TestFitObsLevelLme4
		}
		t.Run(c.name, func(t *testing.T) {
			res, err := Fit(c.spec(t), Options{HessianSE: true})
			if err != nil {
				t.Fatal(err)
			}
			if res.SEMethod != "Hessian" {
				t.Fatalf("SEs from %s: %v", res.SEMethod, res.Warnings)
			}
			se, what := want.SE, "vcov"
			if want.Fallback {
				se, what = want.SEH2, "2H⁻¹ at step 1e-2"
			}
			var worst, dflt float64
			for j, v := range res.SE {
				d := math.Abs(v/se[j] - 1)
				worst = math.Max(worst, d)
				dflt = math.Max(dflt, math.Abs(want.SEDefault[j]/se[j]-1))
				if d > 5e-3 {
					t.Errorf("SE[%d] = %.8g, lme4 %s %.8g", j, v, what, se[j])
				}
			}
			t.Logf("max rel diff of the SEs to lme4's %s %.1e (lme4 at its defaults: %.1e)", what, worst, dflt)
		})
	}
}

// TestFitAGQLme4 compares adaptive Gauss–Hermite fits (5 nodes) of the
// models FitLogit does not take, binomial with trials (logit, probit,
// cloglog) and Poisson with an offset, with tight glmer(nAGQ = 5)
// (testdata/agq.R). As in TestFitGLMMLme4, RX SEs are compared for the
// non-canonical links, whose Hessian SEs differ from lme4's. lme4's
// log-likelihood for nAGQ > 1 is ℓ − ℓ_sat (from deviance residuals; see
// agq.R), ours ℓ, as for the Laplace fits: the reference is shifted by
// ℓ_sat, AIC and BIC by −2ℓ_sat.
func TestFitAGQLme4(t *testing.T) {
	ref := readRefFile(t, "agq_ref.json")
	var sat map[string]struct {
		LoglikSat float64 `json:"loglik_sat"`
	}
	b, err := os.ReadFile(filepath.Join("testdata", "agq_ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &sat); err != nil {
		t.Fatal(err)
	}
	cases := map[string]fitCase{}
	for _, c := range glmmCases() {
		cases[c.name] = c
	}
	for _, c := range []struct {
		name, base string
	}{
		{"cbpp_logit_agq5", "cbpp_trials"},
		{"cbpp_probit_agq5", "cbpp_probit"},
		{"cbpp_cloglog_agq5", "cbpp_cloglog"},
		{"pois_agq5", "pois_weights"},
	} {
		t.Run(c.name, func(t *testing.T) {
			want, ok := ref[c.name]
			if !ok {
				t.Fatalf("no case %s in agq_ref.json", c.name)
			}
			ls := sat[c.name].LoglikSat
			want.Loglik += ls
			want.AIC -= 2 * ls
			want.BIC -= 2 * ls
			fc := cases[c.base]
			fc.name = c.name
			s := fc.spec(t)
			if c.name == "pois_agq5" {
				// glmer(y ~ x + (1 | g), offset = log(e), family = poisson)
				f := readFrame(t, "glmm_gen.csv")
				s.Weights, s.Offset = nil, f.num(t, "e")
				for i, e := range s.Offset {
					s.Offset[i] = math.Log(e)
				}
				fc.rx = false
			}
			res, err := Fit(s, Options{NAGQ: 5, RXSE: fc.rx})
			if err != nil {
				t.Fatal(err)
			}
			if res.NAGQ != 5 {
				t.Errorf("NAGQ = %d, want 5", res.NAGQ)
			}
			if !res.Converged {
				t.Errorf("not converged: %v", res.Warnings)
			}
			a := compare(t, fc, res, want)
			t.Logf("max rel diff β %.1e, SE %.1e, SD %.1e; logLik − lme4 %+.2e; %d evaluations, SE %s", a.beta, a.se, a.sd, a.loglik, res.Iter, res.SEMethod)
		})
	}
}
