package analysis

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/stats"
)

// TestFittedModel checks that every fit leaves the fitted model its
// numbers came from (ModelResult.Fitted, what contrasts are built on):
// Coef and √diag(Cov) are the reported estimates and SEs, the design has
// a row per frame row and a column per coefficient, the offsets a value
// per row, the family and link are the model's, and a GLMM's random
// terms hold their variances (the reported SDs squared) and a mode per
// level. A layout of before families (Fit "") carries the same.
func TestFittedModel(t *testing.T) {
	q := Query{Source: &table.Files{Paths: []string{cliLedger}}}
	for _, tc := range []struct {
		name string
		spec ModelSpec
		fit  ModelFit
		fam  stats.Family
		link stats.Link
	}{
		{"logit", ModelSpec{Formula: "eos ~ contract + condition"}, FitGLM, stats.Binomial, stats.LinkLogit},
		{"probit", ModelSpec{Link: stats.LinkProbit, Formula: "eos ~ contract + condition"}, FitGLM, stats.Binomial, stats.LinkProbit},
		{"poisson offset", ModelSpec{Family: stats.Poisson, Formula: "tool_calls ~ contract + offset(log(difficulty))"}, FitGLM, stats.Poisson, stats.LinkLog},
		{"gee", ModelSpec{Family: FamilyGEE, Group: "task", Cov: stats.BiasReduced, Formula: "eos ~ contract"}, FitGEE, stats.Binomial, stats.LinkLogit},
		{"gee poisson", ModelSpec{Fit: FitGEE, Family: stats.Poisson, Group: "task", Formula: "tool_calls ~ contract"}, FitGEE, stats.Poisson, stats.LinkLog},
		{"glmm", ModelSpec{Family: FamilyGLMM, Formula: "eos ~ contract + (1|task)"}, FitGLMM, stats.Binomial, stats.LinkLogit},
		{"lmm slope", ModelSpec{Family: stats.Gaussian, Formula: "agent_time_s ~ difficulty + (difficulty | model)"}, FitGLMM, stats.Gaussian, stats.LinkIdentity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Model(q, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			m := r.Fitted
			if m == nil {
				t.Fatal("no fitted model")
			}
			if m.Fit != tc.fit || m.Family != tc.fam || m.Link != tc.link || r.Family != tc.fam || r.Link != tc.link {
				t.Errorf("fitted %s %s %s, result %s %s; want %s %s %s", m.Fit, m.Family, m.Link, r.Family, r.Link, tc.fit, tc.fam, tc.link)
			}
			rows, cols := m.Design.X.Dims()
			if rows != m.Frame.Len() || cols != len(r.Coefficients) || len(m.Coef) != cols || len(m.Design.Names) != cols {
				t.Fatalf("design %d×%d, frame %d rows, %d coefficients", rows, cols, m.Frame.Len(), len(r.Coefficients))
			}
			if m.Offset != nil && len(m.Offset) != rows {
				t.Errorf("%d offsets for %d rows", len(m.Offset), rows)
			}
			for j, c := range r.Coefficients {
				se := math.Sqrt(m.Cov.At(j, j))
				if m.Design.Names[j] != c.Term || m.Coef[j] != c.Estimate || math.Abs(se-c.SE) > 1e-12*c.SE {
					t.Errorf("%s: fitted %s %v ± %v, reported %v ± %v", c.Term, m.Design.Names[j], m.Coef[j], se, c.Estimate, c.SE)
				}
			}
			if tc.fit != FitGLMM {
				if len(m.Terms) != 0 {
					t.Errorf("%d random terms", len(m.Terms))
				}
				return
			}
			k := 0
			for _, term := range m.Terms {
				for j := range term.Coef {
					sd := r.Random[k].SD
					if math.Abs(term.Cov.At(j, j)-sd*sd) > 1e-12*math.Max(sd*sd, 1) {
						t.Errorf("%s %s: variance %v, SD %v", term.Group, term.Coef[j], term.Cov.At(j, j), sd)
					}
					k++
				}
				if len(term.Modes) != len(term.Levels) {
					t.Errorf("%s: %d modes for %d levels", term.Group, len(term.Modes), len(term.Levels))
				}
			}
			if k != len(r.Random) {
				t.Errorf("%d random coefficients, %d reported", k, len(r.Random))
			}
		})
	}
}

// TestLegacyTranslation checks the edge where a logistic model of before
// families becomes the spec it is: which specs keep their layout (Fit ""
// and Spec.Family the model's name) and which fit and family each gets.
func TestLegacyTranslation(t *testing.T) {
	q := Query{Source: &table.Files{Paths: []string{cliLedger}}}
	for _, tc := range []struct {
		name    string
		spec    ModelSpec
		layout  stats.Family // "" for the layout of families
		fit     ModelFit
		fam     stats.Family
		wantErr string
	}{
		{"nothing named", ModelSpec{Formula: "eos ~ contract"}, FamilyLogit, FitGLM, stats.Binomial, ""},
		{"a group", ModelSpec{Group: "task", Formula: "eos ~ contract"}, FamilyGEE, FitGEE, stats.Binomial, ""},
		{"a random term", ModelSpec{Formula: "eos ~ contract + (1|task)"}, FamilyGLMM, FitGLMM, stats.Binomial, ""},
		{"family glmm", ModelSpec{Family: FamilyGLMM, Formula: "eos ~ contract + (1|task)"}, FamilyGLMM, FitGLMM, stats.Binomial, ""},
		{"family glmm, a slope", ModelSpec{Family: FamilyGLMM, Formula: "eos ~ contract + (difficulty|task)"}, "", FitGLMM, stats.Binomial, ""},
		{"family gee, ar1", ModelSpec{Family: FamilyGEE, Group: "id", Corr: stats.AR1, Order: "age", Formula: "resp ~ age*smoke"}, "", FitGEE, stats.Binomial, ""},
		{"family logit, an offset", ModelSpec{Family: FamilyLogit, Formula: "eos ~ contract + offset(difficulty)"}, "", FitGLM, stats.Binomial, ""},
		{"a link", ModelSpec{Link: stats.LinkLogit, Formula: "eos ~ contract"}, "", FitGLM, stats.Binomial, ""},
		{"fit and family agree", ModelSpec{Fit: FitGLMM, Family: FamilyGLMM, Formula: "eos ~ contract + (1|task)"}, "", FitGLMM, stats.Binomial, ""},
		{"family logit with fit gee", ModelSpec{Fit: FitGEE, Family: FamilyLogit, Group: "task", Formula: "eos ~ contract"}, "", FitGEE, stats.Binomial, ""},
		{"fit contradicts family", ModelSpec{Fit: FitGLMM, Family: FamilyGEE, Group: "task", Formula: "eos ~ contract"}, "", "", "", "Fit: glmm contradicts Family gee"},
		{"family poisson", ModelSpec{Family: stats.Poisson, Formula: "tool_calls ~ contract"}, "", FitGLM, stats.Poisson, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := q
			if tc.spec.Group == "id" {
				q.Source = &table.Files{Paths: []string{filepath.Join("..", "stats", "testdata", "glm", "ohio.csv")}}
			}
			r, err := Model(q, tc.spec)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			legacy := ""
			if r.Fit == "" {
				legacy = string(r.Spec.Family)
			}
			if legacy != string(tc.layout) || r.Fitted.Fit != tc.fit || r.Family != tc.fam {
				t.Errorf("layout %q, fit %s, family %s; want %q, %s, %s", legacy, r.Fitted.Fit, r.Family, tc.layout, tc.fit, tc.fam)
			}
		})
	}
}
