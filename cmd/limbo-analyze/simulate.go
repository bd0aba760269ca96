package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/design"
)

func newSimulateCmd(e *env) *cobra.Command {
	var o design.RunOptions
	var seed uint64
	cmd := &cobra.Command{
		Use:   "simulate --out LEDGER.jsonl",
		Short: "Regenerate episode ledgers with simulated agents in the sandbox",
		Long: `simulate runs an experiment design (the paper's by default) with simulated
agents against the LIMBO sandbox and writes the raw ledger: one JSON line per
episode, in design order, with its calls and committed effects nested. Run
metadata (design, seed, shard, versions, counts) goes in a sidecar
LEDGER.meta.json beside it. With --episodes it also writes the graded episode
table (Parquet, CSV or graded JSONL, by extension).

The same seed gives the same bytes whatever --jobs; the shards of a run
(--shard 1/4 … 4/4) concatenated equal the whole run. --design takes "paper"
(the embedded reference decomposition R5, 25,930 episodes), "replay" (the
agent-side design: crashes, retried runs, re-plans, delegation and two
workers, crossed with five guards; docs/simulation.md, Agent-side faults) or
a manifest file of the same shape (see docs/simulation.md); --profiles
replaces the embedded model profiles.

Examples:
  limbo-analyze simulate --out paper.jsonl
  limbo-analyze simulate --design paper --seed 7 --out run.jsonl --episodes run.parquet --jobs 2
  limbo-analyze simulate --design replay --out replay.jsonl --episodes replay.parquet
  limbo-analyze simulate --out part2.jsonl --shard 2/4
  limbo-analyze simulate --design my-grid.json --profiles my-models.json --out mine.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.Check(); err != nil {
				return usagef("simulate: %w", err)
			}
			return runSimulate(e, o, seed)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.Design, "design", "paper", `experiment design: "paper", "replay" or a manifest file`)
	f.Uint64Var(&seed, "seed", 1, "run seed")
	f.StringVar(&o.Out, "out", "", `raw ledger to write (JSONL; "-" for stdout)`)
	f.StringVar(&o.Episodes, "episodes", "", "also write the graded episode table (.parquet, .csv or .jsonl)")
	f.IntVar(&o.Jobs, "jobs", 0, "parallel workers (0 = number of CPUs)")
	f.StringVar(&o.Shard, "shard", "", "write only shard I of N (I/N, 1-based) of the design's episodes")
	f.StringVar(&o.Profiles, "profiles", "", "model profile file (default: the embedded paper profiles)")
	return cmd
}

func runSimulate(e *env, o design.RunOptions, seed uint64) error {
	sim, err := design.LoadSimulator(o.Design, o.Profiles, seed)
	if err != nil {
		return err
	}
	o.Stdout, o.Toolkit = e.stdout, version
	si, sn, _ := design.ParseShard(o.Shard) // checked
	lo, hi := design.ShardRange(sim.Plan.Len(), si, sn)
	bar := progressBar(e, hi-lo, "simulate")
	if bar != nil {
		o.Progress = func(n int) { bar.Add(n) }
	}
	if err = design.Run(sim, o); err == nil && bar != nil {
		bar.Finish()
	}
	return err
}
