package main

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/ledger"
)

// runExportPartitioned is export --partition-by: the episode table as a
// Hive-style dataset OUT/col=value/…/part-K.parquet (ledger.CreatePartitioned).
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
	wp := newWarnPrinter(e.stderr)
	defer wp.flush()
	n, droppedNested := 0, false
	opt := ledger.ReadOptions{Grader: grader(), Strict: o.strict, Warn: wp.warn}
	err = ledger.ReadGraded(o.in, opt, func(ep *ledger.Episode, raw *ledger.RawEpisode) error {
		n++
		droppedNested = droppedNested || raw != nil
		return w.Write(ep)
	})
	if err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %d %s in %d %s to %s\n", n, plural(n, "episode", "episodes"),
		w.Partitions(), plural(w.Partitions(), "partition", "partitions"), o.out)
	if droppedNested {
		fmt.Fprintf(e.stderr, "note: a partitioned export keeps the graded episodes only; export without --partition-by for the calls and effects\n")
	}
	return nil
}
