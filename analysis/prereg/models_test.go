package prereg

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"
)

// TestModelEstimands checks coefficient estimands with families, an
// interaction and a random slope against R (testdata/models.R: glm, lm,
// lme4's glmer and lmer) on the committed CLI ledger, and the verdicts
// their rules give.
func TestModelEstimands(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "models.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref map[string]struct {
		Value, Lo, Hi, P float64
		N                int64
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	r := evaluateFile(t, "models.yaml")
	tests := []struct {
		id, stat string
		verdict  Verdict
	}{
		{"P", "glm_poisson_rr", Inconclusive},      // p = 0.92
		{"G", "glm_gaussian_coef", Inconclusive},   // the t interval spans 0
		{"B", "glm_binomial_coef", Supported},      // p < 0.001, above 0
		{"S", "glmm_poisson_rr", Inconclusive},     // below 1, p = 0.28
		{"ML", "glmm_gaussian_coef", Inconclusive}, // p = 0.60
	}
	if len(tests) != len(ref) {
		t.Fatalf("%d cases, models.json has %d", len(tests), len(ref))
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			v := verdict(t, r, tt.id)
			want, ok := ref[tt.id]
			if !ok {
				t.Fatalf("models.json has no %s", tt.id)
			}
			s := v.Parts[0].Estimate
			if s.Name != tt.stat {
				t.Errorf("estimate %q, want %q", s.Name, tt.stat)
			}
			// IRLS and the GLMM optimiser stop at their tolerances, as R's do.
			const tol = 1e-6
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"value", s.Value, want.Value}, {"lo", s.Lo, want.Lo}, {"hi", s.Hi, want.Hi}, {"p", s.P, want.P}} {
				if !within(c.got, c.want, tol) {
					t.Errorf("%s = %v, R %v", c.name, c.got, c.want)
				}
			}
			if s.N != want.N {
				t.Errorf("n = %d, R %d", s.N, want.N)
			}
			if v.Verdict != tt.verdict {
				t.Errorf("verdict %q, want %q (%s)", v.Verdict, tt.verdict, v.Reason)
			}
		})
	}
}

// TestModelChecks: what the engine would refuse in a model estimand is a
// file:line error of the check, naming the accepted values.
func TestModelChecks(t *testing.T) {
	const head = "prereg: 1\nhypotheses:\n  - id: H\n    statement: s\n    estimand:\n"
	tests := []struct {
		name, estimand, rule string
		want                 string // on the estimand's line (6), or the rule's (7)
	}{
		{"no fit", "kind: coefficient, distribution: poisson, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			"estimand.fit is required (glm, gee or glmm)"},
		{"bad fit", "kind: coefficient, fit: lm, distribution: poisson, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			`estimand.fit "lm": want glm, gee or glmm`},
		{"no distribution", "kind: coefficient, fit: glm, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			"estimand.distribution is required (binomial, poisson or gaussian)"},
		{"bad distribution", "kind: coefficient, fit: glm, distribution: poison, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			`estimand.distribution "poison": want binomial, poisson or gaussian (did you mean poisson?)`},
		{"family is the multiplicity family", "kind: coefficient, fit: glm, family: poisson, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			"estimand.distribution is required"},
		{"bad link", "kind: coefficient, fit: glm, distribution: poisson, link: sqrt, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			`estimand.link "sqrt": want logit, probit, cloglog, log or identity`},
		{"link of another distribution", "kind: coefficient, fit: glm, distribution: poisson, link: logit, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			"estimand.link logit does not apply to distribution poisson (want log or identity)"},
		{"bad scale", "kind: coefficient, fit: glm, distribution: poisson, scale: log, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			`estimand.scale "log": want ratio or difference`},
		{"ratio of an identity link", "kind: coefficient, fit: glm, distribution: gaussian, scale: ratio, formula: \"agent_time_s ~ contract\", term: \"contract[native]\"", "",
			"estimand.scale ratio reads exp(β), which is no ratio under the identity link"},
		{"interaction not in the formula", "kind: coefficient, fit: glm, distribution: poisson, formula: \"tool_calls ~ condition + contract\", term: \"condition[guard]:contract[native]\"", "",
			`estimand.term "condition[guard]:contract[native]" is a coefficient of the interaction condition:contract, which "tool_calls ~ condition + contract" does not have (its terms: condition, contract; condition*contract or condition:contract adds it)`},
		{"interaction in the other order", "kind: coefficient, fit: glm, distribution: poisson, formula: \"tool_calls ~ condition * contract\", term: \"contract[native]:condition[guard]\"", "",
			"is a coefficient of the interaction contract:condition"},
		{"statsmodels' name of a level", "kind: coefficient, fit: glm, distribution: poisson, formula: \"tool_calls ~ condition * contract\", term: \"condition[T.guard]:contract[T.native]\"", "",
			`estimand.term "condition[T.guard]:contract[T.native]": the engine names this coefficient "condition[guard]:contract[native]"`},
		{"R's name of a level", "kind: odds_ratio, model: logit, formula: \"duplicated ~ contract\", term: contractnative", "",
			`estimand.term "contractnative": the engine names this coefficient "contract[native]"`},
		{"random slope under glm", "kind: coefficient, fit: glm, distribution: poisson, formula: \"tool_calls ~ contract + (contract | template)\", term: \"contract[native]\"", "",
			"the formula has a random term (1 + contract | template), which only fit glmm fits"},
		{"random slope under gee", "kind: coefficient, fit: gee, group: template, distribution: poisson, formula: \"tool_calls ~ contract + (contract || template)\", term: \"contract[native]\"", "",
			"which only fit glmm fits"},
		{"random slope under model logit", "kind: odds_ratio, model: logit, formula: \"duplicated ~ contract + (contract | template)\", term: \"contract[native]\"", "",
			"which only model glmm fits"},
		{"glmm without random term", "kind: coefficient, fit: glmm, distribution: poisson, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			"fit glmm needs a random term such as (1|template) in the formula"},
		{"order without ar1", "kind: coefficient, fit: gee, group: template, order: instance, distribution: poisson, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			"estimand.order orders a cluster's rows for corr ar1; corr is exchangeable"},
		{"ar1 without order", "kind: coefficient, fit: gee, group: template, corr: ar1, distribution: poisson, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			"corr ar1 needs estimand.order"},
		{"order under glm", "kind: coefficient, fit: glm, order: instance, distribution: poisson, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			"estimand.order applies only to fit gee with corr ar1"},
		{"bad corr", "kind: coefficient, fit: gee, group: template, corr: exchangable, distribution: poisson, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			`estimand.corr "exchangable": want independence, exchangeable or ar1 (did you mean exchangeable?)`},
		{"bad corr of a model gee", "kind: odds_ratio, model: gee, group: template, corr: ar2, formula: \"duplicated ~ contract\", term: \"contract[native]\"", "",
			`estimand.corr "ar2": want independence, exchangeable or ar1`},
		{"bad fallback", "kind: odds_ratio, model: gee, group: template, fallback: ar1, formula: \"duplicated ~ contract\", term: \"contract[native]\"", "",
			`estimand.fallback "ar1": want independence or exchangeable`},
		{"fallback is corr", "kind: odds_ratio, model: gee, group: template, corr: independence, fallback: independence, formula: \"duplicated ~ contract\", term: \"contract[native]\"", "",
			"estimand.fallback independence is the working correlation it falls back from"},
		{"bad cov", "kind: coefficient, fit: gee, group: template, cov: sandwich, distribution: poisson, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			`estimand.cov "sandwich": want robust, bias-reduced, kc or naive`},
		{"cov under glmm", "kind: odds_ratio, model: glmm, cov: kc, formula: \"duplicated ~ contract + (1|template)\", term: \"contract[native]\"", "",
			"estimand.cov applies only to model gee"},
		{"gee without group", "kind: coefficient, fit: gee, distribution: poisson, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "",
			"a gee needs estimand.group (its clusters)"},
		{"group under glmm", "kind: coefficient, fit: glmm, group: template, distribution: poisson, formula: \"tool_calls ~ contract + (1|template)\", term: \"contract[native]\"", "",
			"group, corr and fallback apply only to fit gee"},
		{"reml under glm", "kind: coefficient, fit: glm, reml: false, distribution: gaussian, formula: \"agent_time_s ~ contract\", term: \"contract[native]\"", "",
			"estimand.reml applies to a gaussian glmm (REML or ML), not a glm gaussian"},
		{"reml not a boolean", "kind: coefficient, fit: glmm, reml: ml, distribution: gaussian, formula: \"agent_time_s ~ contract + (1|template)\", term: \"contract[native]\"", "",
			`estimand.reml: want true or false, found "ml"`},
		{"model and fit", "kind: odds_ratio, model: gee, fit: gee, group: template, formula: \"duplicated ~ contract\", term: \"contract[native]\"", "",
			"estimand.model and estimand.fit both name the fit: give one"},
		{"odds ratio without model", "kind: odds_ratio, formula: \"duplicated ~ contract\", term: \"contract[native]\"", "",
			"estimand.model is required (logit, gee or glmm; or estimand.fit glm, gee or glmm)"},
		{"odds ratio takes no distribution", "kind: odds_ratio, fit: glm, distribution: poisson, formula: \"duplicated ~ contract\", term: \"contract[native]\"", "",
			"estimand.distribution does not apply to a odds_ratio"},
		{"ratio bound not positive", "kind: coefficient, fit: glm, distribution: poisson, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "{direction: above, bound: 0, use: interval}",
			"rule.bound 0: a ratio is positive"},
		{"test against another bound", "kind: coefficient, fit: glm, distribution: gaussian, formula: \"agent_time_s ~ contract\", term: \"contract[native]\"", "{direction: above, bound: 1}",
			"the test's p-value is against 0, so rule.bound 1 contradicts use test"},
		{"ratio test against 1", "kind: coefficient, fit: glm, distribution: poisson, formula: \"tool_calls ~ contract\", term: \"contract[native]\"", "{direction: above, bound: 0.5}",
			"the test's p-value is against 1, so rule.bound 0.5 contradicts use test"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rule := tt.rule
			if rule == "" {
				rule = "{direction: above}"
			}
			src := head + "      {" + tt.estimand + "}\n    rule: " + rule + "\n"
			_, err := Parse("h.yaml", []byte(src))
			if err == nil {
				t.Fatalf("no error for\n%s", src)
			}
			wantLine := 6
			if tt.rule != "" {
				wantLine = 7
			}
			for _, e := range err.(ErrorList) {
				if e.Line == wantLine && strings.Contains(e.Msg, tt.want) {
					return
				}
			}
			t.Errorf("no error at line %d containing %q; got:\n%v", wantLine, tt.want, err)
		})
	}
}

// TestOddsRatioFitIsModel: an odds_ratio's fit (glm, gee, glmm: the
// binomial logit model with families) estimates what its model (logit,
// gee, glmm: the logistic models of before families) does.
func TestOddsRatioFitIsModel(t *testing.T) {
	eps := ledgertest.ReadEpisodes(t, cliCSV)
	// tol: glm and gee are the same code on the same data, to rounding;
	// model: glmm keeps FitLogit's optimiser and finite-difference Hessian
	// (the paper's frozen numbers) while fit: glmm takes the general
	// fitter's quasi-Newton stage and gradient-difference Hessian, so
	// their intervals agree to those approximations (1e-7), not to rounding.
	tests := []struct {
		model, fit, rest string
		tol              float64
	}{
		{"logit", "glm", `formula: "duplicated ~ contract * condition", term: "contract[native]:condition[guard]"`, 1e-12},
		{"gee", "gee", `formula: "duplicated ~ contract", group: template, term: "contract[native]"`, 1e-12},
		{"glmm", "glmm", `formula: "duplicated ~ contract + (1|template)", term: "contract[native]"`, 1e-6},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			var got [2]Stat
			for i, key := range []string{"model: " + tt.model, "fit: " + tt.fit} {
				src := "prereg: 1\nhypotheses:\n  - id: H\n    statement: s\n    population: fault_fired\n    estimand: {kind: odds_ratio, " + key + ", " + tt.rest + "}\n    rule: {direction: above}\n"
				pr := evaluate(t, "h.yaml", []byte(src), eps).Verdicts[0].Parts[0]
				if pr.Reason != "" {
					t.Fatalf("%s: %s", key, pr.Reason)
				}
				got[i] = pr.Estimate
			}
			m, f := got[0], got[1]
			if m.Name != tt.model+"_or" || f.Name != tt.fit+"_or" {
				t.Errorf("names %q, %q", m.Name, f.Name)
			}
			for _, c := range []struct {
				name string
				m, f float64
			}{{"value", m.Value, f.Value}, {"lo", m.Lo, f.Lo}, {"hi", m.Hi, f.Hi}, {"p", m.P, f.P}} {
				if !within(c.f, c.m, tt.tol) {
					t.Errorf("%s: model %s %v, fit %s %v", c.name, tt.model, c.m, tt.fit, c.f)
				}
			}
			if m.N != f.N {
				t.Errorf("n: %d, %d", m.N, f.N)
			}
		})
	}
}

// TestFitWarningCodes: a fit's warnings keep their code and field when
// the part names the fit in their text ("GEE: only 8 clusters: …").
func TestFitWarningCodes(t *testing.T) {
	eps := ledgertest.ReadEpisodes(t, cliCSV)
	src := "prereg: 1\nhypotheses:\n  - id: H\n    statement: s\n    population: fault_fired\n    estimand: {kind: odds_ratio, model: gee, formula: \"duplicated ~ contract\", group: template, term: \"contract[native]\"}\n    rule: {direction: above}\n"
	pr := evaluate(t, "h.yaml", []byte(src), eps).Verdicts[0].Parts[0]
	var found bool
	for _, w := range pr.Warnings {
		found = found || w.Code == analysis.WarnFewClusters && w.Field == "Cov" && strings.HasPrefix(w.Msg, "GEE: only ")
	}
	if !found {
		t.Errorf("warnings %+v, want GEE's few-clusters warning", pr.Warnings)
	}
}
