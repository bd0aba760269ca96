package main

import (
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/ledger"
)

type simulateOptions struct {
	design   string // "paper" or a manifest file
	seed     uint64
	out      string // raw JSONL ledger; "-" for stdout
	episodes string // graded episode table (.parquet, .csv, .jsonl); "" for none
	jobs     int
	shard    string // "I/N", 1 ≤ I ≤ N
	profiles string // profile file; "" for the embedded one
}

func newSimulateCmd(e *env) *cobra.Command {
	var o simulateOptions
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
(the embedded reference decomposition R5, 25,930 episodes) or a manifest file
of the same shape (see docs/simulation.md); --profiles replaces the embedded
model profiles.

Examples:
  limbo-analyze simulate --out paper.jsonl
  limbo-analyze simulate --design paper --seed 7 --out run.jsonl --episodes run.parquet --jobs 2
  limbo-analyze simulate --out part2.jsonl --shard 2/4
  limbo-analyze simulate --design my-grid.json --profiles my-models.json --out mine.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.out == "" {
				return usagef("simulate: --out is required")
			}
			if o.jobs < 0 {
				return usagef("simulate: --jobs must be ≥ 0")
			}
			if _, _, err := design.ParseShard(o.shard); err != nil {
				return usagef("simulate: --shard: %v", err)
			}
			if o.out != "-" && !ledger.IsJSONLName(o.out) {
				return usagef("simulate: --out %s: the raw ledger is JSONL; name it .jsonl (or - for stdout)", o.out)
			}
			if ext := strings.ToLower(filepath.Ext(o.episodes)); o.episodes != "" && !slices.Contains([]string{".parquet", ".csv", ".jsonl", ".ndjson"}, ext) {
				return usagef("simulate: --episodes %s: want a .parquet, .csv or .jsonl name", o.episodes)
			}
			outs := map[string]string{"--out": o.out, "--episodes": o.episodes}
			if o.out != "-" {
				outs["the sidecar"] = design.MetaPath(o.out)
			}
			if err := checkOutputsDistinct("simulate", outs); err != nil {
				return err
			}
			ins := []string{o.profiles}
			if o.design != "paper" {
				ins = append(ins, o.design)
			}
			if err := checkOutputs("simulate", []string{o.out, o.episodes, design.MetaPath(o.out)}, ins); err != nil {
				return err
			}
			return runSimulate(o, e)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.design, "design", "paper", `experiment design: "paper" or a manifest file`)
	f.Uint64Var(&o.seed, "seed", 1, "run seed")
	f.StringVar(&o.out, "out", "", `raw ledger to write (JSONL; "-" for stdout)`)
	f.StringVar(&o.episodes, "episodes", "", "also write the graded episode table (.parquet, .csv or .jsonl)")
	f.IntVar(&o.jobs, "jobs", 0, "parallel workers (0 = number of CPUs)")
	f.StringVar(&o.shard, "shard", "", "write only shard I of N (I/N, 1-based) of the design's episodes")
	f.StringVar(&o.profiles, "profiles", "", "model profile file (default: the embedded paper profiles)")
	return cmd
}

func runSimulate(o simulateOptions, e *env) error {
	sim, err := design.LoadSimulator(o.design, o.profiles, o.seed)
	if err != nil {
		return err
	}
	jobs := o.jobs
	if jobs == 0 {
		jobs = runtime.GOMAXPROCS(0)
	}
	ro := design.RunOptions{Design: o.design, Profiles: o.profiles, Out: o.out, Stdout: e.stdout,
		Episodes: o.episodes, Jobs: jobs, Shard: o.shard, Toolkit: version}
	si, sn, _ := design.ParseShard(o.shard)
	lo, hi := design.ShardRange(sim.Plan.Len(), si, sn)
	bar := progressBar(e, hi-lo, "simulate")
	if bar != nil {
		ro.Progress = func(n int) { bar.Add(n) }
	}
	if err := design.Run(sim, ro); err != nil {
		return err
	}
	if bar != nil {
		bar.Finish()
	}
	return nil
}
