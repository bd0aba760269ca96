package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/mcp"
)

func newMergeCmd(e *env) *cobra.Command {
	var out string // merged raw JSONL ledger; "-" for stdout
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
			if err := required("merge: --out", out); err != nil {
				return err
			}
			if len(args) == 0 {
				return usagef("merge: give the shard ledgers to merge")
			}
			if err := design.CheckMergeOutput(out, args); err != nil {
				return usagef("merge: %v", err)
			}
			n, kind, err := mcp.MergeAny(out, e.stdout, args)
			if err != nil || out == "-" {
				return err
			}
			fmt.Fprintf(e.stderr, "merged %d %s, %d episodes, into %s\n", len(args), kind, n, out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", `merged raw ledger to write (JSONL; "-" for stdout)`)
	return cmd
}
