package main

import "testing"

// Hand checks of the goldens (Python, independent of this code):
//   - rates_weight_none.csv: eos 309/423 unweighted; Wilson 95%
//     (z = 1.959963984540054) = [0.6862783303126381, 0.7705657647730617].
//   - rates_by.json, keys-everywhere/timeout_late: 8 of 72 duplicated,
//     weights 1 and 2 (model m3): p_w = 0.10416666666666667, Kish
//     n_eff = (Σw)²/Σw² = 64, Wilson = [0.05051260624482176, 0.20264810775781575].
//   - rates_cluster.json, keys-everywhere: ρ̂ = 0 over tasks, so n_eff is
//     Kish's: 70 rows of weight 1 per model m1, m2 and 70 of weight 2 (m3),
//     (Σw)²/Σw² = 280²/420 = 186.667 (before the engine, 210 = n: the
//     cluster option ignored the weights).
func TestRatesCLI(t *testing.T) {
	runCLICases(t, []cliCase{
		{name: "rates_by", args: []string{"rates", "--in", "DATA", "--outcome", "duplicated", "--by", "contract,fault_mode", "--format", "json"}},
		{name: "rates_by_text", args: []string{"rates", "--in", "DATA", "--outcome", "duplicated", "--by", "contract,fault_mode"}},
		{name: "rates_by_csv", args: []string{"rates", "--in", "DATA", "--outcome", "duplicated", "--by", "contract,fault_mode", "--format", "csv"}},
		{name: "rates_weight_none", args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--weight", "none", "--format", "csv"}},
		{name: "rates_where_extra", args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--by", "fault_fired,team", "--where", `model != "m2" && difficulty >= 2`, "--format", "json"}},
		{name: "rates_cluster", args: []string{"rates", "--in", "DATA", "--outcome", "duplicated", "--by", "contract", "--cluster", "task", "--format", "json"}},
		{name: "rates_cluster_iccby", args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--by", "condition", "--cluster", "task", "--icc-by", "contract"}},
		{name: "rates_weight_col", args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--by", "contract", "--weight", "w_alt", "--format", "csv"}},
		// A group whose weights are all zero: p, n_eff, lo, hi undefined
		// (null in JSON, empty in CSV) with a warning; the others are computed.
		{name: "rates_zero_group", args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--by", "team", "--weight", "w_alt", "--where", `w_alt == 0 || team == "red"`, "--format", "json"},
			stderr: []string{"group team=blue: all weights are zero"}},
		{name: "rates_zero_group_csv", args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--by", "team", "--weight", "w_alt", "--where", `w_alt == 0 || team == "red"`, "--format", "csv"}},
		// Markdown and LaTeX print the numbers as text does.
		{name: "rates_cluster_md", args: []string{"rates", "--in", "DATA", "--outcome", "duplicated", "--by", "contract", "--cluster", "task", "--format", "md"}},
		{name: "rates_by_latex", args: []string{"rates", "--in", "DATA", "--outcome", "duplicated", "--by", "contract,fault_mode", "--format", "latex"}},
		// Bad input.
		{args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--by", "condtion"}, exit: 1, stderr: []string{`unknown column "condtion" (did you mean condition`}},
		{args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--where", "difficulty == 9"}, exit: 1, stderr: []string{"no episode matches --where"}},
		{args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--where", "w_alt == 0", "--weight", "w_alt"}, exit: 1, stderr: []string{"all weights (w_alt) are zero"}},
		{args: []string{"rates", "--in", "DATA", "--outcome", "team"}, exit: 1, stderr: []string{`episodes.csv:2: team: outcome: value "red" is not binary`}},
		{args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--where", "condition == 3"}, exit: 2, stderr: []string{"cannot compare column condition (string) with 3"}},
		{args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--where", "fault_fired &"}, exit: 2, stderr: []string{"use && or ||"}},
		{args: []string{"rates", "--in", "DATA"}, exit: 2, stderr: []string{"--outcome is required"}},
		{args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--format", "xml"}, exit: 2, stderr: []string{"want text, json, csv, md or latex"}},
		{args: []string{"rates", "--in", "DATA", "--outcome", "eos", "--icc-by", "model"}, exit: 2, stderr: []string{"--icc-by needs --cluster"}},
		{args: []string{"rates", "--in", "../../testdata/cli/nope.csv", "--outcome", "eos"}, exit: 1, stderr: []string{"nope.csv"}},
		// The ICC of a constant outcome is undefined: a warning, Kish n_eff.
		{args: []string{"rates", "--in", "DATA", "--outcome", "duplicated", "--where", `fault_mode == "none"`, "--cluster", "task"}, stderr: []string{"ICC undefined", "falls back to Kish"}},
	})
}
