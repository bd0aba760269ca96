package main

import "testing"

func TestShapleyCLI(t *testing.T) {
	runCLICases(t, []cliCase{
		{name: "shapley_mcfadden", args: []string{"shapley", "--in", "DATA", "--formula", "duplicated ~ contract + condition + model + team", "--format", "json"}},
		{name: "shapley_text", args: []string{"shapley", "--in", "DATA", "--formula", "duplicated ~ contract + condition + model + team"}},
		{name: "shapley_nagelkerke_csv", args: []string{"shapley", "--in", "DATA", "--formula", "eos ~ contract + condition + difficulty", "--r2", "nagelkerke", "--format", "csv"}},
		{name: "shapley_tjur_weighted", args: []string{"shapley", "--in", "DATA", "--formula", "eos ~ contract + condition", "--r2", "tjur", "--weight", "weight", "--format", "json"}},
		{name: "shapley_separation_md", args: []string{"shapley", "--in", "DATA", "--formula", "duplicated ~ contract + fault_mode", "--format", "md"}},
		{name: "shapley_separation", args: []string{"shapley", "--in", "DATA", "--formula", "duplicated ~ contract + fault_mode", "--format", "json"}, stderr: []string{"separation in"}},
		// Bad input.
		{args: []string{"shapley", "--in", "DATA", "--formula", "eos ~ contract + modle"}, exit: 1, stderr: []string{`unknown column "modle" (did you mean model`}},
		{args: []string{"shapley", "--in", "DATA", "--formula", "eos ~ 1"}, exit: 2, stderr: []string{"no terms"}},
		{args: []string{"shapley", "--in", "DATA", "--formula", "eos ~ contract", "--r2", "efron"}, exit: 2, stderr: []string{"want mcfadden"}},
		{args: []string{"shapley", "--in", "DATA", "--formula", "duplicated ~ contract", "--where", `fault_mode == "none"`}, exit: 1, stderr: []string{"always false"}},
	})
}
