package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/ledger"
)

func newGradeCmd(e *env) *cobra.Command {
	var out, format string
	var strict bool
	cmd := &cobra.Command{
		Use:   "grade IN --out OUT",
		Short: "Grade a raw ledger into an episode table",
		Long: `grade reads a raw JSONL ledger (one episode per line with its calls, effects and
final report, as written by simulate or by the MCP server) and writes the graded
episode table: the design columns plus expected_commits, focal_commits,
duplicated, task_success, eos, overclaim, recovery and the rest (docs/ledger.md).
Lines that are already graded pass through unchanged. The output format follows
OUT's extension (.parquet, .csv, .jsonl) unless --format is given.

Examples:
  limbo-analyze grade paper.jsonl --out paper.parquet
  limbo-analyze grade run.jsonl --out run.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := required("grade: --out", out); err != nil {
				return err
			}
			if !ledger.IsFormat(format) {
				return usagef("grade: --format %q: want parquet, csv or jsonl", format)
			}
			if format == "" && !ledger.IsLedgerName(out) {
				return usagef("grade: --out %s: name it .parquet, .csv or .jsonl, or give --format", out)
			}
			if err := checkOutputs("grade", ledger.Files(out), ledger.Files(args[0])); err != nil {
				return err
			}
			// Plausibility warnings can repeat for every row of a user's
			// ledger: show the first few and count the rest.
			wl := ledger.NewFirstWarnings(e.stderr, 10, "limbo-analyze: warning: ", "limbo-analyze: %d more warnings not shown\n")
			defer wl.Flush()
			return ledger.Convert(args[0], out, format, ledger.ReadOptions{Grader: grader(), Strict: strict, Warn: wl.Warn}, version)
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "episode table to write (.parquet, .csv or .jsonl)")
	cmd.Flags().StringVar(&format, "format", "", "output format: parquet, csv or jsonl (default: by extension)")
	cmd.Flags().BoolVar(&strict, "strict", false, "treat plausibility warnings as errors")
	return cmd
}
