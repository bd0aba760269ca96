package main

import "testing"

// model --contrast: average contrasts on the response scale (the numbers
// are checked against marginaleffects, emmeans and lme4 in package
// analysis; these pin the layouts and the flags).
func TestContrastCLI(t *testing.T) {
	const clustered = "../../testdata/contrast/clustered.csv"
	runCLICases(t, []cliCase{
		{name: "contrast_text", args: []string{"model", "--in", clustered, "--formula", "duplicated ~ condition + model + x", "--contrast", "condition", "--base", "vanilla"}},
		{name: "contrast_by_json", args: []string{"model", "--in", clustered, "--formula", "duplicated ~ condition * model + x", "--contrast", "condition", "--base", "vanilla", "--by", "model", "--adjust", "holm", "--format", "json"}},
		{name: "contrast_gee_md", args: []string{"model", "--in", clustered, "--fit", "gee", "--group", "task", "--formula", "duplicated ~ condition + model + x", "--contrast", "condition", "--levels", "guard", "--base", "vanilla", "--format", "md"}},
		{name: "contrast_poisson_csv", args: []string{"model", "--in", clustered, "--family", "poisson", "--formula", "tool_calls ~ condition + x + offset(log(exposure))", "--contrast", "condition", "--base", "vanilla", "--format", "csv"}},
		{name: "contrast_boot_text", args: []string{"model", "--in", clustered, "--formula", "duplicated ~ condition + model + x", "--contrast", "condition", "--base", "vanilla",
			"--bootstrap", "200", "--cluster", "task", "--seed", "7", "--interval", "percentile"}},
		{name: "contrast_boot_csv", args: []string{"model", "--in", clustered, "--fit", "gee", "--group", "task", "--formula", "duplicated ~ condition + x", "--contrast", "condition", "--base", "vanilla",
			"--bootstrap", "200", "--cluster", "task", "--seed", "7", "--format", "csv"}},
		{name: "contrast_glmm_marginal_json", args: []string{"model", "--in", clustered, "--formula", "duplicated ~ condition + x + (1 | task)", "--contrast", "condition", "--base", "vanilla",
			"--random-effects", "marginal", "--format", "json"}, tol: 1e-4},
		// Bad input.
		{args: []string{"model", "--in", clustered, "--formula", "duplicated ~ condition", "--base", "vanilla"}, exit: 2, stderr: []string{"--base applies with --contrast COL"}},
		{args: []string{"model", "--in", clustered, "--formula", "duplicated ~ condition", "--contrast", "model"}, exit: 2, stderr: []string{"--contrast model is not a column of the formula's fixed part"}},
		{args: []string{"model", "--in", clustered, "--formula", "duplicated ~ condition", "--contrast", "condition", "--base", "nope"}, exit: 2, stderr: []string{`--base "nope": condition has no such level`, "aware, guard, vanilla"}},
		{args: []string{"model", "--in", clustered, "--formula", "duplicated ~ condition", "--contrast", "condition", "--random-effects", "marginal"}, exit: 2, stderr: []string{"--random-effects marginal applies to a GLMM"}},
		{args: []string{"model", "--in", clustered, "--formula", "duplicated ~ condition", "--contrast", "condition", "--random-effects", "both"}, exit: 2, stderr: []string{`--random-effects: "both": want zero or marginal`}},
		{args: []string{"model", "--in", clustered, "--formula", "duplicated ~ condition", "--contrast", "condition", "--bootstrap", "100"}, exit: 2, stderr: []string{"needs the column whose clusters it resamples (--cluster)"}},
		{args: []string{"model", "--in", clustered, "--formula", "duplicated ~ condition", "--contrast", "condition", "--bootstrap", "10", "--cluster", "task"}, exit: 2, stderr: []string{"--bootstrap 10: too few"}},
		{args: []string{"model", "--in", clustered, "--formula", "duplicated ~ condition", "--contrast", "condition", "--seed", "3"}, exit: 2, stderr: []string{"--seed applies with --bootstrap N"}},
		{args: []string{"model", "--in", clustered, "--fit", "gee", "--group", "task", "--formula", "duplicated ~ condition", "--contrast", "condition", "--bootstrap", "100", "--cluster", "model"}, exit: 2,
			stderr: []string{"--cluster model: the model's groups task = T01 span several clusters"}},
	})
}
