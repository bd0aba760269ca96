package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// version is the toolkit version, written into Parquet metadata and reports.
// Release builds may override it with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the toolkit and ledger schema versions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintf(e.stdout, "limbo-analyze %s (ledger schema %s, %s)\n", version, ledgerSchemaVersion(), runtime.Version())
			return err
		},
	}
}
