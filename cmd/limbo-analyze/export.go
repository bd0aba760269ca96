package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/report/interop"
)

func newExportCmd(e *env) *cobra.Command {
	var in, out, to string
	o := ledger.ExportOptions{Read: ledger.ReadOptions{Grader: grader()}, ToolkitVersion: version}
	cmd := &cobra.Command{
		Use:   "export --in FILE --out FILE",
		Short: "Convert an episode ledger between JSONL, CSV and Parquet",
		Long: `export reads a ledger, validates every row as validate does, and writes it in
another format: JSONL (graded rows), CSV, or Parquet (zstd; booleans BOOLEAN,
integers INT64, floats DOUBLE, strings dictionary-encoded UTF8; key-value
metadata with the toolkit and ledger schema versions). Formats follow the file
extensions (.jsonl/.ndjson, .csv, .parquet); --format sets the output's.

A user's extra columns (CSV columns outside the schema) are carried through
as strings; --strict rejects them. A raw JSONL ledger is graded on the way;
exported to X.parquet its calls and effects go to X.calls.parquet and
X.effects.parquet beside it. Nothing is written unless the whole input is
valid: outputs appear atomically when the export succeeds. --in may also be a
directory (such as a partitioned export) or a quoted glob of ledger files,
read as one ledger.

--to inspect-log writes the ledger as an Inspect AI evaluation log (OUT.eval)
that inspect view and inspect_ai.analysis.samples_df open: one sample per
episode (an id ending in /epoch-N is that sample's epoch N), its scores the
graded outcomes (eos, task_success, no_duplicate, duplicated, overclaim, as
the Inspect task scores them), its metadata the graded row, its transcript
the calls (from a raw JSONL ledger, or X.calls.parquet beside an export).
The same ledger gives the same bytes.

--to hf-dataset writes a Hugging Face dataset folder OUT (new or empty):
data/episodes.parquet (and the calls and effects tables beside it, from a
raw ledger) as export writes Parquet, categoricals dictionary-encoded, and a
README.md dataset card generated from the schema, whose YAML declares every
column's type and each categorical as a class label named by its levels, so
that datasets.load_dataset(OUT) reads them as such.

--partition-by writes a Hive-style dataset OUT/col=value/…/part-K.parquet
that DuckDB, polars, Spark and every limbo-analyze command (--in OUT) read as
one table, and the calls and effects of raw lines to OUT.calls and
OUT.effects, partitioned the same way. Partition values must read back as
written: string and integer columns only, never an empty value nor a string
that readers type as a number, boolean, date or NULL; such a value is an
error naming its row. More than --max-partitions partitions is an error.

Examples:
  limbo-analyze export --in testdata/ledger/sample.csv --out /tmp/sample.parquet
  limbo-analyze export --in /tmp/sample.parquet --out /tmp/sample.jsonl
  limbo-analyze export --in testdata/ledger/sample.csv --out /tmp/sample.data --format csv
  limbo-analyze export --in testdata/ledger/sample.csv --out /tmp/sample-ds --partition-by experiment,model
  limbo-analyze export --in testdata/ledger/sample.csv --out /tmp/sample.eval --to inspect-log
  limbo-analyze export --in testdata/ledger/sample.csv --out /tmp/sample-hf --to hf-dataset`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("export: unexpected argument %q; name files with --in and --out", args[0])
			}
			if in == "" || out == "" {
				return usagef("export: --in and --out are required")
			}
			switch to {
			case "ledger":
			case "inspect-log":
				if !strings.HasSuffix(out, ".eval") {
					return usagef("export: --to inspect-log writes an Inspect log: name --out X.eval, not %q", out)
				}
				if o.Format != "" || len(o.PartitionBy) > 0 {
					return usagef("export: --to inspect-log takes neither --format nor --partition-by")
				}
				if err := checkOutputs("export", []string{out}, ledger.Files(in)); err != nil {
					return err
				}
				defer limitWarnings(e, &o.Read)()
				return interop.ExportInspectLog(in, out, o.Read, version)
			case "hf-dataset":
				if o.Format != "" || len(o.PartitionBy) > 0 {
					return usagef("export: --to hf-dataset takes neither --format nor --partition-by")
				}
				if ents, err := os.ReadDir(out); err == nil && len(ents) > 0 {
					return usagef("export: --to hf-dataset: %s exists and is not empty; name a new folder", out)
				}
				if err := checkOutputs("export", []string{out}, ledger.Files(in)); err != nil {
					return err
				}
				defer limitWarnings(e, &o.Read)()
				return interop.ExportHFDataset(in, out, o)
			default:
				return usagef("export: --to %q: want ledger, inspect-log or hf-dataset", to)
			}
			switch o.Format {
			case "", "jsonl", "csv", "parquet":
			default:
				return usagef("export: --format must be jsonl, csv or parquet, not %q", o.Format)
			}
			if o.MaxPartitions < 1 {
				return usagef("export: --max-partitions must be at least 1")
			}
			for i, c := range o.PartitionBy {
				if slices.Contains(o.PartitionBy[:i], c) {
					return usagef("export: --partition-by %s: column %s given twice", strings.Join(o.PartitionBy, ","), c)
				}
			}
			if o.Format == "" && len(o.PartitionBy) == 0 && !ledger.IsLedgerName(out) {
				return usagef("export: cannot tell the output format from %q; give --format", out)
			}
			if err := checkOutputs("export", ledger.Files(out), ledger.Files(in)); err != nil {
				return err
			}
			return runExport(e, in, out, o)
		},
	}
	cmd.Flags().StringVar(&in, "in", "", "ledger to read (.jsonl, .ndjson, .csv or .parquet)")
	cmd.Flags().StringVar(&out, "out", "", "ledger to write (format from the extension unless --format)")
	cmd.Flags().StringVar(&to, "to", "ledger", "what to write: ledger (JSONL, CSV or Parquet), inspect-log (an Inspect .eval log) or hf-dataset (a Hugging Face dataset folder)")
	cmd.Flags().StringVar(&o.Format, "format", "", "output format: jsonl, csv or parquet (default: by extension)")
	cmd.Flags().BoolVar(&o.Read.Strict, "strict", false, "treat plausibility warnings and extra columns as errors")
	cmd.Flags().StringSliceVar(&o.PartitionBy, "partition-by", nil, "write a Hive-style dataset OUT/col=value/…/part-0.parquet partitioned by these columns, e.g. experiment,model")
	cmd.Flags().IntVar(&o.MaxPartitions, "max-partitions", ledger.DefaultMaxPartitions, "with --partition-by: fail if the dataset would have more partitions than this")
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"jsonl", "csv", "parquet"}, cobra.ShellCompDirectiveNoFileComp))
	cmd.MarkFlagFilename("in", "jsonl", "ndjson", "csv", "parquet")
	cmd.MarkFlagFilename("out", "jsonl", "ndjson", "csv", "parquet")
	return cmd
}

func runExport(e *env, in, out string, o ledger.ExportOptions) error {
	defer limitWarnings(e, &o.Read)()
	st, err := ledger.Export(in, out, o)
	if err != nil {
		return err
	}
	for _, n := range st.Notes(out, len(o.PartitionBy) > 0) {
		fmt.Fprintln(e.stderr, n)
	}
	return nil
}

// limitWarnings sends the reader's warnings to stderr through a limiter;
// the function it returns flushes it.
func limitWarnings(e *env, opt *ledger.ReadOptions) (flush func()) {
	wl := ledger.NewWarnLimiter(e.stderr)
	opt.Warn = wl.Warn
	return wl.Flush
}
