package main

import "testing"

// Hand checks of the goldens (R 4.2.2 on testdata/cli/episodes.csv, the
// pairs built as paired does: within pair_key, vanilla and the other arm
// sorted by episode_id, k-th with k-th; d = vanilla − other):
//   - paired_t.json, vanilla − aware on agent_time_s: 138 pairs,
//     t.test(d): mean 0.88405797101449279, t 0.49347416811214218,
//     p 0.62246773113801634, interval [-2.658506034031086, 4.4266219760600718].
//   - paired_wilcoxon.json on tool_calls: wilcox.test(d) V 2700.5,
//     p 0.92423759134433503 (aware), V 3251.5, p 0.94182143091413562 (guard):
//     ties and zeros, the normal approximation.
func TestPairedNumericCLI(t *testing.T) {
	runCLICases(t, []cliCase{
		{name: "paired_t", args: []string{"paired", "--in", "DATA", "--outcome", "agent_time_s", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key", "--format", "json"},
			stderr: []string{"3 vanilla and 3 aware episode(s) without a partner dropped"}},
		{name: "paired_t_text", args: []string{"paired", "--in", "DATA", "--outcome", "agent_time_s", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key"}},
		{name: "paired_wilcoxon", args: []string{"paired", "--in", "DATA", "--outcome", "tool_calls", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key", "--test", "wilcoxon", "--format", "json"},
			stderr: []string{"34 zero difference(s) dropped by the signed-rank test"}},
		{name: "paired_wilcoxon_csv", args: []string{"paired", "--in", "DATA", "--outcome", "tool_calls", "--arm", "condition", "--base", "guard", "--pair-by", "pair_key,contract", "--levels", "aware", "--test", "wilcoxon", "--adjust", "none", "--where", `model != "m3"`, "--format", "csv"}},
		// A binary-valued outcome is McNemar's unless --test t asks.
		{name: "paired_t_forced", args: []string{"paired", "--in", "DATA", "--outcome", "eos", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key", "--test", "t", "--format", "md"}},
		// Bad input.
		{args: []string{"paired", "--in", "DATA", "--outcome", "team", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key", "--test", "t"}, exit: 1, stderr: []string{`episodes.csv:2: team: value "red" is not a number`}},
		{args: []string{"paired", "--in", "DATA", "--outcome", "tool_calls", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key", "--weight", "weight"}, exit: 2, stderr: []string{"--weight: the paired t and Wilcoxon tests are unweighted"}},
		{args: []string{"paired", "--in", "DATA", "--outcome", "tool_calls", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key", "--test", "sign"}, exit: 2, stderr: []string{`--test: "sign": want exact, midp, chi2 or chi2cc (a binary outcome), t or wilcoxon`}},
		{args: []string{"paired", "--in", "DATA", "--outcome", "tool_calls", "--arm", "condition", "--base", "vanila", "--pair-by", "pair_key"}, exit: 1, stderr: []string{`no episode has condition = "vanila"`}},
	})
}
