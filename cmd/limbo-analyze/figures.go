package main

import (
	"fmt"
	"slices"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
	"github.com/limbo-toolkit/limbo/plots"
	"github.com/spf13/cobra"
)

// figuresOptions are the flags of `figures`.
type figuresOptions struct {
	ledgerFlags
	out     string
	formats []string
}

func newFiguresCmd(e *env) *cobra.Command {
	var o figuresOptions
	var formats string
	cmd := &cobra.Command{
		Use:   "figures --in LEDGER --out DIR [--format png,svg,pdf]",
		Short: "Draw the paper's Figures 1–6 from an episode ledger",
		Long: `figures draws the LIMBO paper's Figures 1–6 into DIR as figureN.png (300 dpi),
figureN.svg and/or figureN.pdf, sized for a 3.3 in column or a 6.9 in page,
in the Okabe–Ito colour-blind-safe palette.

  Figure 1  timelines of W_absent and W_late under verify-then-retry, with and
            without a reused idempotency key (actual sandbox traces)
  Figure 2  duplicate rate (%) by model and fault mode (E1 with E1s), heat map
  Figure 3  duplicate rate under committed faults by contract class and model,
            with 95% Wilson intervals (E1, E1s)
  Figure 4  EOS against mean agent-visible time: wait-then-verify vs keys
            (Table 6; fixed and heavy-tailed delay)
  Figure 5  EOS against mean tool calls per condition and model, marker area
            proportional to the duplicate rate (Table 7, E2)
  Figure 6  first move after the focal timeout (read back, wait, re-issue) by
            model, not-executed and committed worlds, with Fisher's exact
            test of the two per model (E1)

Every plotted number is a cell of the matching table or figure-data table
(limbo-analyze tables; report). A figure the ledger cannot support is skipped
with a warning; files are written atomically.

Examples:
  limbo-analyze simulate --out run.jsonl --episodes run.parquet
  limbo-analyze figures --in run.parquet --out figs
  limbo-analyze figures --in run.parquet --out figs --format svg,pdf`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := firstError(required("figures: --in", o.In), required("figures: --out", o.out)); err != nil {
				return err
			}
			o.formats = splitList(formats)
			if len(o.formats) == 0 {
				return usagef("figures: --format is empty: want png, svg and/or pdf")
			}
			for _, f := range o.formats {
				if !slices.Contains(plots.Formats, f) {
					return usagef("figures: --format %q: want png, svg and/or pdf", f)
				}
			}
			if err := firstError(checkOutDir("figures", o.out), checkOutputs("figures", []string{o.out}, ledger.Files(o.In))); err != nil {
				return err
			}
			return runFigures(o, e)
		},
	}
	f := cmd.Flags()
	addLedgerFlags(f, &o.ledgerFlags, ledgerHelp, "the extension")
	f.StringVar(&o.out, "out", "", "directory to write the figures into (created if missing; required)")
	f.StringVar(&formats, "format", "png", "comma-separated output formats: png, svg, pdf")
	return cmd
}

func runFigures(o figuresOptions, e *env) error {
	d, err := readAnalysisData(e, o.ledgerFlags, slices.Concat(paper.Columns(paper.TableNumbers), paper.FigureColumns()))
	if err != nil {
		return err
	}
	res := paper.Analyze(d, paper.Options{})
	// The figures are one unit: all appear, or none.
	u := outfile.NewUnit(ledger.Files(o.In)...)
	defer u.Abort() // no-op after Commit
	files, skipped, err := plots.RenderTo(u, res, o.out, o.formats)
	for _, s := range skipped {
		fmt.Fprintf(e.stderr, "limbo-analyze: warning: %s\n", s)
	}
	if err != nil {
		return err
	}
	if err := u.Commit(); err != nil {
		return err
	}
	for _, f := range files {
		fmt.Fprintln(e.stdout, f.Path)
	}
	return nil
}
