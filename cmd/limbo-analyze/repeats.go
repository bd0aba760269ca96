package main

import (
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/report"
)

func newRepeatsCmd(e *env) *cobra.Command {
	var o inputOptions
	var spec analysis.RepeatsSpec
	c := &cobra.Command{
		Use:   "repeats --in LEDGER [--outcome task_success,eos] [--k 1,2,4] [--by COL] [--consistency]",
		Short: "pass^k, exactly-once^k and consistency over repeated runs of the same worlds",
		Long: `repeats reads a ledger in which the same worlds were run several times
(Inspect's --epochs, a plan that lists a world more than once; docs/ledger.md,
"Repeated runs") and estimates how reliably the agent does the same thing
again. Runs are repeats of one another when they agree on --repeat-by
(default experiment, harness, contract, condition, cue and pair_key: the same
world under the same arm).

For each --outcome (default task_success and eos) and each k of --k (default
1 up to the most runs of a world, at most 8), pass^k is the probability that
k runs of a world all have the outcome; pass^k of eos is exactly-once^k. Each
world with n runs, c of them with the outcome, contributes the unbiased
C(c, k)/C(n, k); the estimate is their mean over the worlds with at least k
runs, with a cluster-robust 95% t interval (--level) over the clusters of
--cluster (default task; worlds must be nested in them), clipped to [0, 1].
--by reports each group of its columns (constant within a world) apart.

--consistency adds, per group, the probability that two runs of a world call
the same set of tools (same_tools), the same tools in the same order
(same_order), and send the focal write with the same arguments (compared as
canonical JSON, less the idempotency key a run draws afresh;
same_focal_args), each the mean over worlds of the share of
agreeing pairs of runs. It reads the calls: a raw JSONL ledger, or a Parquet
episode table with its .calls.parquet beside it.

Examples:
  limbo-analyze repeats --in testdata/repeats/epochs.jsonl --by condition --cluster pair_key --consistency
  limbo-analyze repeats --in testdata/repeats/epochs.jsonl --outcome eos --k 1,2,4 --format csv`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkLevel(spec.Level); err != nil {
				return err
			}
			r, err := analysis.Repeats(o.query(e), spec)
			if r != nil {
				renameWarnings(r.Warnings)
			}
			return emit(e, o.Format, report.Repeats)(r, err)
		},
	}
	addInputFlags(c, &o, `unused: pass^k is unweighted`)
	f := c.Flags()
	f.StringSliceVar(&spec.Outcomes, "outcome", nil, "binary outcomes (default task_success,eos: pass^k and exactly-once^k)")
	f.IntSliceVar(&spec.K, "k", nil, "the k of pass^k (default 1 up to the most runs of a world, at most 8)")
	f.StringSliceVar(&spec.RepeatBy, "repeat-by", nil, "columns that identify a world and its arm (default experiment,harness,contract,condition,cue,pair_key)")
	f.StringSliceVar(&spec.By, "by", nil, "report by the groups of these columns")
	f.StringVar(&spec.Cluster, "cluster", "task", "cluster of the intervals; worlds are nested in it")
	f.Float64Var(&spec.Level, "level", 0.95, "confidence level of the intervals")
	f.BoolVar(&spec.Consistency, "consistency", false, "also the consistency of the tool calls across runs (reads the calls)")
	return c
}
