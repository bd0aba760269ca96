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
	})
}
