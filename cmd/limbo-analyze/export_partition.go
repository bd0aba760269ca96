package main

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/ledger"
)

// runExportPartitioned is export --partition-by: the episode table as a
// Hive-style dataset OUT/col=value/…/part-K.parquet written in one pass by
// ledger.PartitionedWriter, and the calls and effects of raw lines in the
// same partitions of OUT.calls and OUT.effects. Memory is bounded by the
// writer (at most ledger.DefaultMaxOpenPartitions files open, each
// buffering only its own rows) and the partition count by --max-partitions.
func runExportPartitioned(o exportOptions, e *env) error {
	var extra []string
	if !o.strict {
		var err error
		if extra, err = ledger.ExtraColumns(o.in, ""); err != nil {
			return err
		}
	}
	w, err := ledger.CreatePartitioned(o.out, o.partitionBy, o.format, extra)
	if err != nil {
		return err
	}
	defer w.Abort() // no-op after Close
	w.MaxPartitions = o.maxPartitions

	wp := newWarnPrinter(e.stderr)
	defer wp.flush()
	n, droppedNested := 0, false
	nested := o.format == "" || o.format == "parquet"
	opt := ledger.ReadOptions{Grader: grader(), Strict: o.strict, Warn: wp.warn, Reuse: true} // rows are written, never kept
	err = ledger.ReadGraded(o.in, opt, func(ep *ledger.Episode, raw *ledger.RawEpisode) error {
		n++
		if raw == nil {
			return w.Write(ep)
		}
		if !nested {
			droppedNested = true
			return w.Write(ep)
		}
		return w.WriteNested(ep, raw.Calls, raw.Effects)
	})
	if err != nil {
		return err
	}
	parts := w.Partitions()
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %d %s in %d %s to %s\n", n, plural(n, "episode", "episodes"),
		parts, plural(parts, "partition", "partitions"), o.out)
	if w.Nested() {
		calls, effects := ledger.PartitionSiblings(o.out)
		fmt.Fprintf(e.stderr, "wrote the calls and effects of the raw lines to %s and %s, partitioned the same way\n", calls, effects)
	}
	if droppedNested {
		fmt.Fprintf(e.stderr, "note: calls and effects of the raw lines are kept only in Parquet output; %s has the graded episodes\n", o.out)
	}
	return nil
}
