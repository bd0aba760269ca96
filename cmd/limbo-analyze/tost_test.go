package main

import "testing"

func TestTOSTCLI(t *testing.T) {
	runCLICases(t, []cliCase{
		{name: "tost_indep", args: []string{"tost", "--in", "DATA", "--outcome", "eos", "--arm", "contract", "--a", "native", "--b", "keys-everywhere", "--margin", "0.1", "--format", "json"}},
		{name: "tost_indep_text", args: []string{"tost", "--in", "DATA", "--outcome", "eos", "--arm", "contract", "--a", "native", "--b", "keys-everywhere", "--margin", "0.1"}},
		{name: "tost_score_csv", args: []string{"tost", "--in", "DATA", "--outcome", "task_success", "--arm", "condition", "--a", "aware", "--b", "vanilla", "--method", "score", "--format", "csv"}},
		{name: "tost_paired_latex", args: []string{"tost", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--a", "vanilla", "--b", "guard", "--paired-by", "pair_key,contract", "--format", "latex"}},
		{name: "tost_paired", args: []string{"tost", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--a", "vanilla", "--b", "guard", "--paired-by", "pair_key,contract", "--format", "json"}},
		// Bad input.
		{args: []string{"tost", "--in", "DATA", "--outcome", "eos", "--arm", "contract", "--a", "native", "--b", "native"}, exit: 2, stderr: []string{"the same level"}},
		{args: []string{"tost", "--in", "DATA", "--outcome", "eos", "--arm", "contract", "--a", "native", "--b", "other"}, exit: 1, stderr: []string{`no episode has contract = "other"`}},
		{args: []string{"tost", "--in", "DATA", "--outcome", "eos", "--arm", "contract", "--a", "native", "--b", "keys-everywhere", "--margin", "2"}, exit: 2, stderr: []string{"--margin 2"}},
		{args: []string{"tost", "--in", "DATA", "--outcome", "eos", "--arm", "contract", "--a", "native", "--b", "keys-everywhere", "--weight", "weight"}, exit: 2, stderr: []string{"tost is unweighted"}},
	})
}
