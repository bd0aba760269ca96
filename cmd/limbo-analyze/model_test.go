package main

import "testing"

func TestModelCLI(t *testing.T) {
	runCLICases(t, []cliCase{
		{name: "model_logit", args: []string{"model", "--in", "DATA", "--family", "logit", "--formula", "eos ~ contract + condition + difficulty", "--format", "json"}},
		{name: "model_logit_text", args: []string{"model", "--in", "DATA", "--formula", "eos ~ contract + condition + difficulty"}},
		{name: "model_logit_csv", args: []string{"model", "--in", "DATA", "--formula", "eos ~ C(difficulty) + team", "--ref", "difficulty=2", "--format", "csv"}},
		{name: "model_logit_weighted", args: []string{"model", "--in", "DATA", "--formula", "eos ~ contract + model", "--weight", "weight", "--format", "json"}},
		{name: "model_separation", args: []string{"model", "--in", "DATA", "--formula", "duplicated ~ contract + fault_mode", "--format", "json"},
			stderr: []string{"separat", "fault_mode[none] (all 0)", "--firth"}},
		{name: "model_firth", args: []string{"model", "--in", "DATA", "--formula", "duplicated ~ contract + fault_mode", "--firth", "--format", "json"}},
		{name: "model_gee", args: []string{"model", "--in", "DATA", "--family", "gee", "--group", "task", "--formula", "eos ~ contract + condition", "--format", "json"}},
		{name: "model_gee_csv", args: []string{"model", "--in", "DATA", "--family", "gee", "--group", "task", "--corr", "independence", "--cov", "kc", "--formula", "eos ~ contract + difficulty", "--format", "csv"}},
		{name: "model_gee_br_text", args: []string{"model", "--in", "DATA", "--family", "gee", "--group", "task", "--cov", "bias-reduced", "--formula", "eos ~ contract + condition"}},
		{name: "model_glmm", args: []string{"model", "--in", "DATA", "--family", "glmm", "--formula", "duplicated ~ contract + condition + (1|model) + (1|template)", "--format", "json"},
			stderr: []string{"singular"}, tol: 1e-4}, // SEs from a finite-difference Hessian (issue #6: 1e-4)
		{name: "model_gee_md", args: []string{"model", "--in", "DATA", "--family", "gee", "--group", "task", "--formula", "eos ~ contract + condition", "--format", "md"}},
		{name: "model_glmm_latex", args: []string{"model", "--in", "DATA", "--family", "glmm", "--formula", "duplicated ~ contract + condition + (1|model) + (1|template)", "--format", "latex"}, tol: 1e-4},
		{name: "model_glmm_agq_csv", args: []string{"model", "--in", "DATA", "--family", "glmm", "--nagq", "5", "--formula", "eos ~ contract + (1|task)", "--format", "csv"}, tol: 1e-4},
		// Bad input.
		{args: []string{"model", "--in", "DATA", "--formula", "eos ~ contrct + condition"}, exit: 1, stderr: []string{`unknown column "contrct" (did you mean contract`}},
		{args: []string{"model", "--in", "DATA", "--formula", "eos ~ contract", "--where", `fault_mode == "none" && !task_success`}, exit: 1, stderr: []string{"outcome eos is always false"}},
		{args: []string{"model", "--in", "DATA", "--formula", "eos ~ contract + model", "--where", `model == "m1"`, "--format", "json"}, stderr: []string{"term model has a single level (m1)"}},
		{args: []string{"model", "--in", "DATA", "--formula", "eos ~ template + task"}, exit: 1, stderr: []string{"rank deficient"}},
		{args: []string{"model", "--in", "DATA", "--family", "logit", "--formula", "eos ~ contract + (1|model)"}, exit: 2, stderr: []string{"need --family glmm"}},
		{args: []string{"model", "--in", "DATA", "--family", "glmm", "--formula", "eos ~ contract"}, exit: 2, stderr: []string{"at least one random intercept"}},
		{args: []string{"model", "--in", "DATA", "--family", "glmm", "--formula", "eos ~ contract + (1|model) + (1|task)", "--nagq", "3"}, exit: 2, stderr: []string{"single random intercept"}},
		{args: []string{"model", "--in", "DATA", "--family", "glmm", "--formula", "eos ~ contract + (1|model)", "--where", `model == "m1"`}, exit: 1, stderr: []string{"1 level(s)"}},
		{args: []string{"model", "--in", "DATA", "--family", "gee", "--formula", "eos ~ contract"}, exit: 2, stderr: []string{"needs --group"}},
		{args: []string{"model", "--in", "DATA", "--formula", "eos ~ contract +"}, exit: 2, stderr: []string{"expected a term"}},
		{args: []string{"model", "--in", "DATA", "--formula", "eos ~ contract", "--ref", "contract=nope"}, exit: 1, stderr: []string{"levels are keys-everywhere, native"}},
		// Families (issue 26): outputs, then bad input.
		{name: "model_poisson_text", args: []string{"model", "--in", "DATA", "--family", "poisson", "--formula", "tool_calls ~ contract*condition"}},
		{name: "model_poisson_json", args: []string{"model", "--in", "DATA", "--fit", "glm", "--family", "poisson", "--formula", "tool_calls ~ contract + condition + offset(log(difficulty))", "--format", "json"}},
		{name: "model_gaussian_csv", args: []string{"model", "--in", "DATA", "--family", "gaussian", "--formula", "agent_time_s ~ contract/condition + difficulty", "--format", "csv"}},
		{name: "model_gee_ar1_json", args: []string{"model", "--in", "../../stats/testdata/glm/ohio.csv", "--family", "binomial", "--group", "id", "--corr", "ar1", "--order", "age", "--formula", "resp ~ age*smoke", "--format", "json"}},
		{name: "model_gee_poisson_text", args: []string{"model", "--in", "DATA", "--fit", "gee", "--family", "poisson", "--group", "task", "--formula", "tool_calls ~ contract", "--cov", "bias-reduced"}},
		{name: "model_cbind_probit_text", args: []string{"model", "--in", "../../stats/testdata/glm/cbpp.csv", "--link", "probit", "--formula", "cbind(incidence, size - incidence) ~ C(period)"}},
		{args: []string{"model", "--in", "FAM/family_counts.csv", "--family", "binomial", "--formula", "y ~ x"}, exit: 1, stderr: []string{"family_counts.csv:4: y: outcome: value \"3\" is not binary"}},
		{args: []string{"model", "--in", "FAM/family_negative.csv", "--family", "poisson", "--formula", "y ~ x"}, exit: 1, stderr: []string{"family_negative.csv:2: y: poisson response: value -1 is a negative count"}},
		{args: []string{"model", "--in", "FAM/family_cbind_bad.csv", "--formula", "cbind(k, n - k) ~ x"}, exit: 1, stderr: []string{"family_cbind_bad.csv:4: n: cbind failures n - k = -2 is negative"}},
		{args: []string{"model", "--in", "FAM/family_ties.csv", "--family", "poisson", "--group", "g", "--corr", "ar1", "--order", "w", "--formula", "y ~ x"}, exit: 1, stderr: []string{"order column w: cluster g = a has two rows with w = 1"}},
		{args: []string{"model", "--in", "FAM/family_ties.csv", "--family", "poisson", "--group", "g", "--corr", "ar1", "--formula", "y ~ x"}, exit: 2, stderr: []string{"--order: the ar1 working correlation needs"}},
		{args: []string{"model", "--in", "FAM/family_ties.csv", "--family", "poisson", "--group", "g", "--corr", "ar2", "--formula", "y ~ x"}, exit: 2, stderr: []string{`--corr: "ar2": want independence, exchangeable or ar1`}},
		{args: []string{"model", "--in", "FAM/family_ties.csv", "--family", "poisson", "--link", "probit", "--formula", "y ~ x"}, exit: 2, stderr: []string{"--link: probit does not apply to family poisson"}},
		{args: []string{"model", "--in", "FAM/family_ties.csv", "--family", "negbin", "--formula", "y ~ x"}, exit: 2, stderr: []string{`--family: "negbin": want binomial, poisson or gaussian`}},
		{args: []string{"model", "--in", "FAM/family_ties.csv", "--family", "poisson", "--formula", "cbind(y, w) ~ x"}, exit: 2, stderr: []string{"cbind(successes, failures) response is binomial"}},
		{args: []string{"model", "--in", "FAM/family_counts.csv", "--family", "poisson", "--formula", "y ~ x + offset(log(x - 1))"}, exit: 1, stderr: []string{"family_counts.csv:2: x: offset(log(x - 1)) = NaN is not a finite number"}},
		{args: []string{"model", "--in", "FAM/family_counts.csv", "--family", "gaussian", "--formula", "y ~ x*g"}, stderr: []string{"no residual degrees of freedom"}},
		{args: []string{"model", "--in", "DATA", "--formula", "eos ~ contract*condition + contract:condition"}},
		{args: []string{"model", "--in", "DATA", "--reml", "--ml", "--formula", "eos ~ contract"}, exit: 2, stderr: []string{"exclude each other"}},
	})
}
