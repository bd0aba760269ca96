package main

import (
	"fmt"
	"io"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/report"
	"github.com/spf13/cobra"
)

// hypothesesOptions are the flags of `hypotheses`.
type hypothesesOptions struct {
	ledgerFlags
	format        string
	prereg        string // a preregistration file to evaluate instead of H1–H6
	ledgerCreated string // when the ledger was created (RFC 3339), for the lock's order
}

func newHypothesesCmd(e *env) *cobra.Command {
	var o hypothesesOptions
	cmd := &cobra.Command{
		Use:   "hypotheses --in LEDGER [--format text|md|csv|json]",
		Short: "Test the paper's preregistered hypotheses H1–H6 on an episode ledger",
		Long: `hypotheses evaluates the LIMBO paper's preregistered hypotheses H1–H6 on an
episode ledger and prints, for each, the prediction, the statistic, the
preregistered decision rule and the verdict it gives (supported, not
supported, inconclusive, partly supported, or not computable):

  H1  GEE (exchangeable, clusters = template) and mixed-effects odds ratios of
      duplication, eventual/missing vs keyed/strong writes, committed faults
  H2  Shapley shares of McFadden's R² (contract vs model; harness)
  H3  verified resolvable committed faults: eventual vs strong, GEE p
  H4  TOST (±5 pp) on blind re-issue, irreversible vs reversible writes
  H5  share of duplicate episodes reported completed without uncertainty
  H6  guard duplicates ≤ 2% in every harness with ≤ 3 pp TS loss

The hypotheses are the paper's preregistration, embedded in the toolkit as
data ('prereg init --paper' writes it); this command evaluates its primary
analyses and lays them out as Table 12. --format csv or json gives every
statistic at full precision.

--prereg FILE evaluates your own preregistration instead (docs/prereg.md),
with verdicts, warnings and provenance: whether FILE.lock matches the file
and predates the ledger. The ledger's creation time comes from
--ledger-created, else the LEDGER.created.json that drive and serve write,
else a Parquet file's created_utc metadata; a simulated ledger is "not
applicable" (it is reproduced from its seed).

Examples:
  limbo-analyze hypotheses --in run.parquet
  limbo-analyze hypotheses --in run.parquet --format json
  limbo-analyze hypotheses --prereg study.yaml --in run.parquet`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := firstError(required("hypotheses: --in", o.In),
				oneOf("hypotheses: --format", o.format, []string{"text", "md", "csv", "json"}, "text, md, csv or json"),
				checkCreated("hypotheses", o.ledgerCreated, o.prereg != "", "--prereg")); err != nil {
				return err
			}
			if o.prereg != "" {
				return runPreregHypotheses(o, e)
			}
			return runHypotheses(o, e)
		},
	}
	f := cmd.Flags()
	addLedgerFlags(f, &o.ledgerFlags, ledgerHelp, "the extension")
	f.StringVar(&o.format, "format", "text", "output format: text, md, csv or json")
	f.StringVar(&o.prereg, "prereg", "", "evaluate this preregistration file (docs/prereg.md) instead of the paper's H1–H6")
	f.StringVar(&o.ledgerCreated, "ledger-created", "", "with --prereg: when the ledger was created (RFC 3339, e.g. 2026-03-01T12:00:00Z), to say whether the lock predates it")
	return cmd
}

func runHypotheses(o hypothesesOptions, e *env) error {
	d, err := readAnalysisData(e, o.ledgerFlags, paper.Columns([]int{4, 12}))
	if err != nil {
		return err
	}
	hs, err := paper.Hypotheses(d)
	if err != nil {
		return err
	}
	if err := render(e, func(w io.Writer) error { return report.Hypotheses(w, hs, o.format) }); err != nil {
		return err
	}
	for _, h := range hs {
		if h.Verdict == prereg.NotComputable {
			fmt.Fprintf(e.stderr, "limbo-analyze: %s not computable on this ledger\n", h.ID)
		}
	}
	return nil
}

// checkCreated checks --ledger-created of the command cmd: it needs the
// flags needs names (ok says whether they are given) and an RFC 3339 time.
func checkCreated(cmd, created string, ok bool, needs string) error {
	if created == "" {
		return nil
	}
	if !ok {
		return usagef("%s: --ledger-created goes with %s", cmd, needs)
	}
	if _, err := prereg.ParseCreated(created); err != nil {
		return usagef("%s: --ledger-created: %v", cmd, err)
	}
	return nil
}
