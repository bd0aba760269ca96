package main

import (
	"fmt"

	"github.com/limbo-toolkit/limbo/ledger"
)

// partitionsPerPass bounds the partition files export --partition-by keeps
// open: each open Parquet writer buffers a row group (about 50 MB with the
// full schema), so 16 keep a partitioned export near 1 GiB (measured:
// 1.0 GiB peak for 1M rows in 40 partitions). With more
// partitions the input is read once per group of partitionsPerPass, every
// partition still going to a single file. A variable so tests can lower it.
var partitionsPerPass = 16

// runExportPartitioned is export --partition-by: the episode table as a
// Hive-style dataset OUT/col=value/…/part-0.parquet (ledger.CreatePartitioned).
// A first pass lists the partitions; then one pass per group of them.
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
	w.MaxOpen = partitionsPerPass

	wp := newWarnPrinter(e.stderr)
	defer wp.flush()
	// Pass 0: validate everything (so nothing is written from a bad input)
	// and list the partitions in order of first appearance.
	var parts []string
	group := map[string]int{}
	n, droppedNested := 0, false
	opt := ledger.ReadOptions{Grader: grader(), Strict: o.strict, Warn: wp.warn, Reuse: true} // rows are written, never kept
	err = ledger.ReadGraded(o.in, opt, func(ep *ledger.Episode, raw *ledger.RawEpisode) error {
		n++
		droppedNested = droppedNested || raw != nil
		p, err := ledger.PartitionPath(ep, o.partitionBy)
		if err != nil {
			return err
		}
		if _, ok := group[p]; !ok {
			group[p] = len(parts) / partitionsPerPass
			parts = append(parts, p)
		}
		return nil
	})
	if err != nil {
		return err
	}
	passes := (len(parts) + partitionsPerPass - 1) / partitionsPerPass
	opt.Warn = nil // reported by pass 0
	for g := range passes {
		err := ledger.ReadGraded(o.in, opt, func(ep *ledger.Episode, _ *ledger.RawEpisode) error {
			p, err := ledger.PartitionPath(ep, o.partitionBy)
			if err != nil {
				return err
			}
			if group[p] != g {
				return nil
			}
			return w.Write(ep)
		})
		if err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "wrote %d %s in %d %s to %s\n", n, plural(n, "episode", "episodes"),
		len(parts), plural(len(parts), "partition", "partitions"), o.out)
	if droppedNested {
		fmt.Fprintf(e.stderr, "note: a partitioned export keeps the graded episodes only; export without --partition-by for the calls and effects\n")
	}
	return nil
}
