package main

import "testing"

// Hand checks of the goldens (R 4.2.2, sandwich 3.0.2, on testdata/cli/episodes.csv):
//   - means_cluster.json, keys-everywhere: lm(tool_calls ~ 1, weights = weight)
//     = 4.2035714285714247, vcovCL(cluster = ~task, type = "HC1") SE
//     0.085700629291798627, G = 8, lo = 4.0009216421712743 (qt(0.975, 7)).
//   - means_by.json, aware: weighted mean 34.443850267379688, vcovHC HC1
//     SE 1.3520234223425165.
//   - means_unweighted.csv, aware: t.test(agent_time_s) interval
//     [31.789895779466487, 36.720742518405856].
func TestMeansCLI(t *testing.T) {
	runCLICases(t, []cliCase{
		{name: "means_by", args: []string{"means", "--in", "DATA", "--outcome", "agent_time_s", "--by", "condition", "--format", "json"}},
		{name: "means_by_text", args: []string{"means", "--in", "DATA", "--outcome", "agent_time_s", "--by", "condition"}},
		{name: "means_unweighted", args: []string{"means", "--in", "DATA", "--outcome", "agent_time_s", "--by", "condition", "--weight", "none", "--format", "csv"}},
		{name: "means_cluster", args: []string{"means", "--in", "DATA", "--outcome", "tool_calls", "--by", "contract", "--cluster", "task", "--format", "json"}},
		{name: "means_cluster_md", args: []string{"means", "--in", "DATA", "--outcome", "tool_calls", "--by", "contract", "--cluster", "task", "--where", `model != "m2"`, "--format", "md"}},
		{name: "means_all", args: []string{"means", "--in", "DATA", "--outcome", "focal_commits", "--weight", "w_alt", "--level", "0.9"}},
		// One episode in a group: SD and interval undefined (null), a warning.
		{name: "means_one_row", args: []string{"means", "--in", "DATA", "--outcome", "tool_calls", "--by", "episode_id", "--where", `episode_id in ("ep0001", "ep0002")`, "--format", "json"},
			stderr: []string{"group episode_id=ep0001: one row; the SD and the interval are undefined"}},
		// Bad input.
		{args: []string{"means", "--in", "DATA", "--outcome", "team"}, exit: 1, stderr: []string{`episodes.csv:2: team: value "red" is not a number`}},
		{args: []string{"means", "--in", "DATA", "--outcome", "model"}, exit: 2, stderr: []string{"--outcome: model is a text column, not a number"}},
		{args: []string{"means", "--in", "DATA"}, exit: 2, stderr: []string{"--outcome: a numeric column is required"}},
		{args: []string{"means", "--in", "DATA", "--outcome", "tool_calls", "--by", "contract,contract"}, exit: 2, stderr: []string{"--by: lists contract twice"}},
		{args: []string{"means", "--in", "DATA", "--outcome", "tool_calls", "--by", "tool_calls"}, exit: 2, stderr: []string{"--outcome: tool_calls is also a By column"}},
		{args: []string{"means", "--in", "DATA", "--outcome", "tool_calls", "--level", "1.5"}, exit: 2, stderr: []string{"--level: 1.5: want a confidence level"}},
		{args: []string{"means", "--in", "DATA", "--outcome", "tool_calls", "--by", "condtion"}, exit: 1, stderr: []string{`unknown column "condtion"`}},
		{args: []string{"means", "--in", "DATA", "--outcome", "cost_usd"}, exit: 1, stderr: []string{"no episode left after dropping rows with missing values"}},
	})
}
