package main

import (
	"testing"
)

// Hand check of paired_exact.json (Python): vanilla vs guard has b = 26,
// c = 5; exact McNemar p = 2·P(X ≤ 5), X ~ Bin(31, ½) = 0.00019219517707824707;
// Holm over the two comparisons doubles the smaller p.
func TestPairedCLI(t *testing.T) {
	runCLICases(t, []cliCase{
		{name: "paired_exact", args: []string{"paired", "--in", "DATA", "--outcome", "duplicated", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key,contract", "--format", "json"},
			stderr: []string{"3 vanilla and 3 aware episode(s) without a partner dropped"}},
		{name: "paired_text", args: []string{"paired", "--in", "DATA", "--outcome", "duplicated", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key,contract"}},
		{name: "paired_midp_bh", args: []string{"paired", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--base", "guard", "--pair-by", "pair_key,contract", "--test", "midp", "--adjust", "bh", "--format", "csv"}},
		{name: "paired_levels_chi2", args: []string{"paired", "--in", "DATA", "--outcome", "duplicated", "--arm", "contract", "--base", "keys-everywhere", "--pair-by", "pair_key,condition", "--levels", "native", "--test", "chi2cc", "--format", "json"}},
		{name: "paired_weighted", args: []string{"paired", "--in", "DATA", "--outcome", "duplicated", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key,contract", "--weight", "weight", "--format", "json"}},
		{name: "paired_md", args: []string{"paired", "--in", "DATA", "--outcome", "duplicated", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key,contract", "--format", "md"}},
		{name: "paired_latex", args: []string{"paired", "--in", "DATA", "--outcome", "duplicated", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key,contract", "--format", "latex"}},
		// Bad input.
		{args: []string{"paired", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--base", "vanila", "--pair-by", "pair_key"}, exit: 1, stderr: []string{`no episode has condition = "vanila"`, "levels present: aware, guard, vanilla"}},
		{args: []string{"paired", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key", "--where", `condition == "vanilla"`}, exit: 1, stderr: []string{"only the base level"}},
		{args: []string{"paired", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--base", "vanilla"}, exit: 2, stderr: []string{"--pair-by is required"}},
		{args: []string{"paired", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key", "--test", "fisher"}, exit: 2, stderr: []string{"want exact, midp, chi2 or chi2cc"}},
		// No pairs at all: pairing on episode_id matches nothing across arms.
		// (Undefined numbers: null in JSON, empty in CSV.)
		{name: "paired_nopairs", args: []string{"paired", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--base", "vanilla", "--pair-by", "episode_id", "--format", "json"}, stderr: []string{"no matched pairs"}},
		{name: "paired_nopairs_csv", args: []string{"paired", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--base", "vanilla", "--pair-by", "episode_id", "--format", "csv"}},
	})
}
