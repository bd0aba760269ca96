package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/ledger"
)

type gradeOptions struct {
	in, out, format string
	strict          bool
}

func newGradeCmd(e *env) *cobra.Command {
	var o gradeOptions
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
			o.in = args[0]
			if o.out == "" {
				return usagef("grade: --out is required")
			}
			if !ledger.IsFormat(o.format) {
				return usagef("grade: --format %q: want parquet, csv or jsonl", o.format)
			}
			if o.format == "" && !ledger.IsLedgerName(o.out) {
				return usagef("grade: --out %s: name it .parquet, .csv or .jsonl, or give --format", o.out)
			}
			if err := checkOutputs("grade", ledger.Files(o.out), ledger.Files(o.in)); err != nil {
				return err
			}
			return runGrade(o, e)
		},
	}
	cmd.Flags().StringVar(&o.out, "out", "", "episode table to write (.parquet, .csv or .jsonl)")
	cmd.Flags().StringVar(&o.format, "format", "", "output format: parquet, csv or jsonl (default: by extension)")
	cmd.Flags().BoolVar(&o.strict, "strict", false, "treat plausibility warnings as errors")
	return cmd
}

func runGrade(o gradeOptions, e *env) error {
	// Plausibility warnings can repeat for every row of a user's ledger:
	// show the first few and count the rest.
	wl := ledger.NewFirstWarnings(e.stderr, 10, "limbo-analyze: warning: ", "limbo-analyze: %d more warnings not shown\n")
	defer wl.Flush()
	return ledger.Convert(o.in, o.out, o.format, ledger.ReadOptions{Grader: grader(), Strict: o.strict, Warn: wl.Warn}, version)
}
