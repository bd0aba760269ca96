package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/report"
)

func newSchemaCmd(e *env) *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:   "schema [--format md|json]",
		Short: "Print the ledger schema: every column of the three tables with its type and meaning",
		Long: `schema prints the ledger schema (docs/ledger.md): the columns of the episodes, calls
and effects tables, each with its type, its Parquet type and what it means.
The meanings are the ones written into every Parquet file this toolkit writes
(key-value metadata limbo.columns) and shown in docs/ledger.md.

Examples:
  limbo-analyze schema
  limbo-analyze schema --format json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("schema: unexpected argument %q", args[0])
			}
			if format == "md" || format == "json" {
				return report.Schema(e.stdout, ledger.Schema(), format)
			}
			return usagef("schema: --format must be md or json, not %q", format)
		},
	}
	cmd.Flags().StringVar(&format, "format", "md", "output format: md or json")
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"md", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}
