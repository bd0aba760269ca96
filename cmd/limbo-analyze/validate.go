package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/report"
)

func newValidateCmd(e *env) *cobra.Command {
	var summary bool
	var format string // summary format: text or json
	opt := ledger.ReadOptions{Grader: grader()}
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check episode ledgers (JSONL, CSV, Parquet) against the schema",
		Long: `validate reads each ledger and reports every problem as

  file:line: field: message

on stdout (line is the row for Parquet), and exits 1 if there is any error.
Errors are wrong types, unknown values of the enumerations that grading relies
on, empty identifiers, out-of-range numbers (weight must be finite and > 0),
duplicate episode_id, calls or effects of an unknown episode (X.calls.parquet and
X.effects.parquet beside X.parquet), and eos without task_success or with
duplicated. What is merely implausible for the paper's sandbox (a harness, tool
or condition it does not have, a late mode with no delay) is a warning on
stderr; --strict makes warnings, and extra CSV columns, errors.

A raw JSONL ledger (calls and effects nested) is graded on read when a grader
is available, otherwise its design fields, calls, effects and final reports are
checked as they are. The format follows the extension: .jsonl/.ndjson, .csv,
.parquet.

--summary prints, per file, the row count, the number of true values of each
boolean column and the number of distinct values of each string column
(--format json gives one JSON object per file, for scripts).

Examples:
  limbo-analyze validate testdata/ledger/sample.csv
  limbo-analyze validate --strict testdata/ledger/sample.csv
  limbo-analyze validate --summary --format json testdata/ledger/sample.csv`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("validate: name at least one ledger file (see 'limbo-analyze validate --help')")
			}
			if format != "text" && format != "json" {
				return usagef("validate: --format must be text or json, not %q", format)
			}
			if cmd.Flags().Changed("format") && !summary {
				return usagef("validate: --format applies to --summary")
			}
			return runValidate(e, args, opt, summary, format)
		},
	}
	cmd.Flags().BoolVar(&opt.Strict, "strict", false, "treat plausibility warnings and extra CSV columns as errors")
	cmd.Flags().BoolVar(&summary, "summary", false, "print row count, boolean sums and distinct string values per file")
	cmd.Flags().StringVar(&format, "format", "text", "summary format: text or json")
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// runValidate checks the ledger files read with opt, with a summary of
// each in format if asked.
func runValidate(e *env, files []string, opt ledger.ReadOptions, summary bool, format string) error {
	defer limitWarnings(e, &opt)()
	return ledger.CheckFiles(files, opt, summary, func(err error) { fmt.Fprintln(e.stdout, fieldtext.Rename(err, specFlags)) },
		func(path string, c ledger.FileCheck) error {
			fmt.Fprintf(e.stderr, "%s: %d %s, no errors\n", path, c.Rows, ledger.Plural(c.Rows, "episode", "episodes"))
			if c.Summary == nil {
				return nil
			}
			return report.Summary(e.stdout, c.Summary, format)
		})
}
