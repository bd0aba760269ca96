package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/mcp"
)

type mergeOptions struct {
	out    string // merged raw JSONL ledger; "-" for stdout
	shards []string
}

func newMergeCmd(e *env) *cobra.Command {
	var o mergeOptions
	cmd := &cobra.Command{
		Use:   "merge --out LEDGER.jsonl SHARD.jsonl...",
		Short: "Combine the shards of a simulate --shard run into the whole run",
		Long: `merge combines the raw JSONL ledgers written by 'simulate --shard I/N'
into the ledger of the whole run, byte for byte the one a serial run with the
same design and seed writes, with its LEDGER.meta.json sidecar.

Each shard is read with its sidecar (SHARD.meta.json beside SHARD.jsonl).
Before anything is written merge checks that the shards belong together
(same design, design and profile hashes, seed, toolkit and schema versions,
same N), that every shard 1…N is present exactly once, and that each file
holds exactly the episodes its sidecar declares. Shards may be given in any
order; they are concatenated in design order. The output appears atomically.

Shards of 'drive --shard I/N' are merged the same way: one plan (by its
SHA-256), every shard once, and every planned episode exactly once (in any
order within a shard); the merged ledger lists them in plan order.

Examples:
  for i in 1 2 3 4; do limbo-analyze simulate --seed 7 --shard $i/4 --out part-$i.jsonl; done
  limbo-analyze merge --out run.jsonl part-*.jsonl
  limbo-analyze merge --out - part-1.jsonl part-2.jsonl | wc -l`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.out == "" {
				return usagef("merge: --out is required")
			}
			if len(args) == 0 {
				return usagef("merge: give the shard ledgers to merge")
			}
			if err := design.CheckMergeOutput(o.out, args); err != nil {
				return usagef("merge: %v", err)
			}
			o.shards = args
			return runMerge(o, e)
		},
	}
	cmd.Flags().StringVar(&o.out, "out", "", `merged raw ledger to write (JSONL; "-" for stdout)`)
	return cmd
}

func runMerge(o mergeOptions, e *env) error {
	n, kind, err := mcp.MergeAny(o.out, e.stdout, o.shards)
	if err != nil || o.out == "-" {
		return err
	}
	fmt.Fprintf(e.stderr, "merged %d %s, %d episodes, into %s\n", len(o.shards), kind, n, o.out)
	return nil
}
