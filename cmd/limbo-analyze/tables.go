package main

import (
	"fmt"
	"io"
	"slices"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/report"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// tablesOptions are the flags of `tables`.
type tablesOptions struct {
	ledgerFlags
	table        int // 0 = all
	format       string
	comparePaper bool
	icc          paper.ICC // Table 3's ICC convention
	boot         analysis.BootstrapSpec
}

func newTablesCmd(e *env) *cobra.Command {
	var o tablesOptions
	cmd := &cobra.Command{
		Use:   "tables --in LEDGER [--table N] [--format text|md|latex|csv|json]",
		Short: "Compute the paper's Tables 3–13 from an episode ledger",
		Long: `tables computes the LIMBO paper's Tables 3–13 from an episode ledger (graded
JSONL, raw JSONL, CSV or Parquet) and prints them: aligned text for a terminal,
Markdown, LaTeX (booktabs), or CSV and JSON at full precision (undefined
numbers empty in CSV, null in JSON). Rates carry 95% Wilson intervals on
clustered effective sample sizes (ICC over task templates). A table whose
columns the ledger lacks is an error naming them; a cell that cannot be
computed is "–" with a warning under the table.

--compare-paper prints, for each table, the paper's published numbers beside
this ledger's and their difference.

--bootstrap N gives Tables 3 and 4 cluster-bootstrap intervals: N replicates
each draw the clusters of --cluster (default template, the tables' cluster)
with replacement and recompute the table; Table 3's rates show the BCa
interval (--interval percentile for the percentile one) instead of Wilson's,
Table 4's shares show it beside the share. Seeded by --seed and the
replicate index, so --jobs does not change them.

Examples:
  limbo-analyze simulate --out run.jsonl --episodes run.parquet
  limbo-analyze tables --in run.parquet
  limbo-analyze tables --in run.parquet --table 3 --format latex
  limbo-analyze tables --in run.parquet --table 13 --format csv
  limbo-analyze tables --in run.parquet --compare-paper
  limbo-analyze tables --in run.parquet --table 3 --bootstrap 1000 --cluster task --seed 7`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var table error
			if o.table != 0 && !slices.Contains(paper.TableNumbers, o.table) {
				table = usagef("tables: --table %d: the computed tables are 3–13", o.table)
			}
			if err := firstError(required("tables: --in", o.In), table,
				oneOf("tables: --format", o.format, report.Formats, "text, md, latex, csv or json"), checkICC("tables", o.icc), bootstrapOnly(cmd.Flags())); err != nil {
				return err
			}
			if cmd.Flags().Changed("cluster") && o.boot.Replicates == 0 {
				return usagef("tables: --cluster applies with --bootstrap N")
			}
			if err := o.boot.Check(); err != nil {
				return usageError{err}
			}
			return runTables(o, e)
		},
	}
	f := cmd.Flags()
	addLedgerFlags(f, &o.ledgerFlags, ledgerHelp, "the extension")
	f.IntVar(&o.table, "table", 0, "only table N (3–13)")
	f.StringVar(&o.format, "format", "text", "output format: text, md, latex, csv or json")
	f.BoolVar(&o.comparePaper, "compare-paper", false, "show the paper's published numbers beside this ledger's")
	addICCFlag(f, &o.icc)
	f.StringVar(&o.boot.Cluster, "cluster", "", "--bootstrap: resample the clusters of this column (default template)")
	addBootstrapFlags(f, &o.boot)
	return cmd
}

// addICCFlag binds --icc, Table 3's ICC convention (paper.Options.ICC).
func addICCFlag(f *pflag.FlagSet, icc *paper.ICC) {
	nameVar(f, icc, "icc", paper.DefaultICC, "Table 3's template ICC: per-column, or pooled (one ICC across its columns)")
}

// checkICC is the usage error of an unknown --icc of the command cmd.
func checkICC(cmd string, icc paper.ICC) error {
	return oneOf(cmd+": --icc", icc, paper.ICCConventions, "per-column or pooled")
}

// readAnalysisData reads the ledger's episodes for the analysis
// (paper.ReadData); ledger plausibility warnings go to stderr, at most
// a few lines of them.
func readAnalysisData(e *env, l ledgerFlags, cols []string) (*table.Data, error) {
	wl := analysisWarnings(e)
	defer wl.Flush()
	return paper.ReadData(l.In, ledger.ReadOptions{Format: l.InFormat, Columns: cols, Grader: grader(), Strict: l.Strict, Warn: wl.Warn})
}

func runTables(o tablesOptions, e *env) error {
	ns := paper.TableNumbers
	if o.table != 0 {
		ns = []int{o.table}
	}
	var d *table.Data
	if !(len(ns) == 1 && ns[0] == 11) {
		var err error
		cols := paper.Columns(ns)
		if c := o.boot.Cluster; c != "" && !slices.Contains(cols, c) {
			cols = append(cols, c) // the bootstrap's clusters
		}
		if d, err = readAnalysisData(e, o.ledgerFlags, cols); err != nil {
			return err
		}
	}
	tables, err := report.SelectTables(d, o.table, o.comparePaper, paper.Options{Tools: paper.NativeTools(), ICC: o.icc, Bootstrap: o.boot},
		func(msg string) { fmt.Fprintf(e.stderr, "limbo-analyze: %s\n", msg) })
	if err != nil {
		return err
	}
	return render(e, func(w io.Writer) error { return report.Tables(w, tables, o.format) })
}
