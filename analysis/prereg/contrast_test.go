package prereg

import (
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"
)

// A coefficient that names a contrast reads analysis.Contrast's average
// contrast of its level against the reference level: the difference in
// points for a binomial distribution, or the ratio, with the level means
// beside it (testdata/contrast.yaml).
func TestContrastEstimands(t *testing.T) {
	eps := ledgertest.ReadEpisodes(t, cliCSV)
	r := evaluateFile(t, "contrast.yaml")
	q := analysis.Query{Source: table.Episodes(eps)}
	for _, tc := range []struct {
		id    string
		spec  analysis.ContrastSpec
		ratio bool
	}{
		{"RD", analysis.ContrastSpec{Variable: "condition", Base: "vanilla", Levels: []string{"guard"},
			Model: analysis.ModelSpec{Fit: "gee", Family: "binomial", Formula: "eos ~ condition + contract", Group: "task", Refs: map[string]string{"condition": "vanilla"}}}, false},
		{"RR", analysis.ContrastSpec{Variable: "condition", Base: "vanilla", Levels: []string{"guard"},
			Model: analysis.ModelSpec{Fit: "gee", Family: "binomial", Formula: "eos ~ condition + contract", Group: "task", Refs: map[string]string{"condition": "vanilla"}}}, true},
		{"MARGINAL", analysis.ContrastSpec{Variable: "condition", Base: "vanilla", Levels: []string{"guard"}, RandomEffects: analysis.RandomMarginal,
			Model: analysis.ModelSpec{Fit: "glmm", Family: "binomial", Formula: "eos ~ condition + (1 | task)", Refs: map[string]string{"condition": "vanilla"}}}, false},
	} {
		t.Run(tc.id, func(t *testing.T) {
			want, err := analysis.Contrast(q, tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			c := want.Contrasts[0]
			v := verdict(t, r, tc.id).Parts[0]
			s := v.Estimate
			exp := [4]float64{100 * c.Diff, 100 * c.DiffLo, 100 * c.DiffHi, c.DiffP}
			if tc.ratio {
				exp = [4]float64{c.Ratio, c.RatioLo, c.RatioHi, c.RatioP}
			}
			for i, g := range [4]float64{s.Value, s.Lo, s.Hi, s.P} {
				if !within(g, exp[i], 1e-12) {
					t.Errorf("statistic %s: [value lo hi p][%d] = %v, want %v", s.Name, i, g, exp[i])
				}
			}
			if s.N != c.N || !strings.Contains(s.Name, "_contrast_") {
				t.Errorf("n %d name %q; want %d, a contrast", s.N, s.Name, c.N)
			}
			if len(v.Extra) != 2 || v.Extra[0].Name != "mean_vanilla" || v.Extra[1].Name != "mean_guard" {
				t.Errorf("extra %+v, want the two level means", v.Extra)
			}
		})
	}
}

// The contrast key's mistakes are found when the file is read.
func TestContrastKeyErrors(t *testing.T) {
	for _, tc := range []struct{ estimand, want string }{
		{`{kind: coefficient, fit: glm, distribution: binomial, formula: "eos ~ condition", contrast: guard}`, `estimand.contrast "guard": want col[level]`},
		{`{kind: coefficient, fit: glm, distribution: binomial, formula: "eos ~ condition", contrast: "model[m1]"}`, "model is not a column of the formula's fixed part"},
		{`{kind: coefficient, fit: glm, distribution: binomial, formula: "eos ~ condition", refs: {condition: guard}, contrast: "condition[guard]"}`, "guard is the reference level of condition"},
		{`{kind: coefficient, fit: gee, group: task, distribution: binomial, formula: "eos ~ condition", contrast: "condition[guard]", random_effects: marginal}`, "estimand.random_effects applies to fit glmm"},
		{`{kind: coefficient, fit: glmm, distribution: binomial, formula: "eos ~ condition + (1|task)", contrast: "condition[guard]", random_effects: both}`, `estimand.random_effects "both": want zero or marginal`},
		{`{kind: odds_ratio, model: logit, formula: "eos ~ condition", contrast: "condition[guard]"}`, "contrast"},
	} {
		src := "prereg: 1\ntitle: keys\nhypotheses:\n  - id: K\n    statement: keys\n    estimand: " + tc.estimand + "\n    rule: {direction: above}\n"
		_, err := Parse("keys.yaml", []byte(src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.estimand, err, tc.want)
		}
	}
}
