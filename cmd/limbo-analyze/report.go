package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/replay"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
	"github.com/limbo-toolkit/limbo/report"
)

// reportOptions are the flags of `report`.
type reportOptions struct {
	ledgerFlags
	design  string // paper or replay
	seed    uint64
	out     string
	prereg  string    // also evaluate this preregistration (prereg.md, .csv, .json)
	icc     paper.ICC // Table 3's ICC convention
	created string    // with --prereg: when the ledger was created (RFC 3339)
}

// defaultSeed is the seed `report` simulates with when given no ledger (the
// same default as `simulate`).
const defaultSeed = 1

func newReportCmd(e *env) *cobra.Command {
	var o reportOptions
	cmd := &cobra.Command{
		Use:   "report --out DIR [--in LEDGER | --seed N]",
		Short: "Write the full reproduction report: every table, hypothesis and comparison",
		Long: `report writes the complete LIMBO reproduction into DIR:

  report.md      a "## Table N — title" section per table (Tables 3–13), the
                 hypotheses H1–H6 with verdicts, and the paper-vs-run comparison
  report.html    the same, self-contained (figures inline when available),
                 with the seed and the versions that made it
  tables/        every table as .txt, .md, .tex, .csv and .json, and the
                 paper comparison as tableN.paper.txt/.csv
  hypotheses.*   H1–H6 as text, Markdown, CSV and JSON
  figures/       Figures 1–6 as PNG and SVG (limbo-analyze figures)
  figure-data/   the numbers behind the figures, as CSV and JSON

Without --in it first simulates the paper's design in-process with --seed
(default 1, as simulate), so one command regenerates the whole study.

With --design replay it reports the agent-side study instead (simulate
--design replay; docs/simulation.md, Agent-side faults): report.md with
Tables R1–R3 (agent-side faults, service faults and models, each under the
five guards), the figure, and the hypotheses R1–R9 of the embedded
preregistration (also as prereg.md, .csv and .json); tables/, figures/ and
figure-data/ as for the paper. Without --in it simulates the replay design. The
report holds no timestamps: the same ledger or seed gives the same bytes.
The report is written as one unit: it is built in a staging directory beside
DIR that replaces DIR whole once every file is written, so DIR holds exactly
this run's files (none an earlier report left), and a failure (a full disk, a
file-size limit) leaves DIR as it was — and no DIR at all if this run would
have created it. DIR carries a manifest of the files the report wrote
(.limbo-manifest); a DIR holding any other file, at any depth, is refused
(exit 2) and left alone (without a manifest, from an earlier version: any
file whose name a report does not write).

Examples:
  limbo-analyze report --out out/report
  limbo-analyze report --seed 7 --out out/report-seed7
  limbo-analyze report --in run.parquet --out out/report-run
  limbo-analyze report --design replay --out out/replay`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var seed error
			if o.In != "" && cmd.Flags().Changed("seed") {
				seed = usagef("report: --seed simulates; it cannot be combined with --in")
			}
			var design error
			switch {
			case o.design != "paper" && o.design != "replay":
				design = usagef("report: --design %q: want paper or replay", o.design)
			case o.design == "replay" && o.prereg != "":
				design = usagef("report: --prereg applies to --design paper (the replay report evaluates its own preregistration)")
			}
			if err := firstError(required("report: --out", o.out), seed, design, checkICC("report", o.icc),
				checkCreated("report", o.created, o.prereg != "" && o.In != "", "--prereg and --in"), checkOutDir("report", o.out)); err != nil {
				return err
			}
			if o.In != "" {
				if err := checkOutputs("report", []string{o.out}, ledger.Files(o.In)); err != nil {
					return err
				}
			}
			if err := report.CheckOut(o.out); err != nil {
				return ownedError("report", err)
			}
			return runReport(o, e)
		},
	}
	f := cmd.Flags()
	addLedgerFlags(f, &o.ledgerFlags, "episode ledger to report on (default: simulate the paper design)", "the extension")
	f.StringVar(&o.design, "design", "paper", `the study to report: "paper" or "replay" (the agent-side design)`)
	f.Uint64Var(&o.seed, "seed", defaultSeed, "run seed of the simulation (without --in)")
	f.StringVar(&o.out, "out", "", "output directory (required)")
	f.StringVar(&o.prereg, "prereg", "", "also evaluate this preregistration file into prereg.md, prereg.csv and prereg.json")
	f.StringVar(&o.created, "ledger-created", "", "with --prereg and --in: when the ledger was created (RFC 3339), to say whether the lock predates it")
	addICCFlag(f, &o.icc)
	return cmd
}

// simulatePaper is report's simulation without --in (a variable so that
// tests can substitute a small ledger).
var simulatePaper = paper.Simulate

// simulateReplay is report --design replay's simulation without --in.
var simulateReplay = replay.Simulate

func runReport(o reportOptions, e *env) error {
	if o.design == "replay" {
		return runReplayReport(o, e)
	}
	job := report.Job{In: o.In, Seed: o.seed, Out: o.out, Simulate: simulatePaper,
		Meta: report.Meta{Toolkit: version, Schema: ledger.SchemaVersion, Go: runtime.Version()},
		Analyze: func(d *table.Data) *paper.Results {
			return paper.Analyze(d, paper.Options{Tools: paper.NativeTools(), ICC: o.icc})
		},
		Warn: func(msg string) { fmt.Fprintf(e.stderr, "limbo-analyze: warning: %s\n", msg) },
	}
	wl := analysisWarnings(e)
	job.Read = ledger.ReadOptions{Format: o.InFormat, Grader: grader(), Strict: o.Strict, Warn: wl.Warn}
	job.ReadDone = wl.Flush
	if o.prereg != "" {
		pf, err := readPrereg(e, o.prereg)
		if err != nil {
			return err
		}
		job.Extra = func(u *outfile.Unit, dir string, d *table.Data) ([]string, error) {
			seed := ""
			if o.In == "" {
				seed = strconv.FormatUint(o.seed, 10) // the simulation in process
			}
			pres, err := evalPrereg(e, o.prereg, pf, d, o.ledgerFlags, o.created, seed)
			if err != nil {
				return nil, err
			}
			return report.PreregFiles(u, dir, pres)
		}
	}
	w, err := report.Generate(job)
	if err != nil {
		return ownedError("report", err)
	}
	fmt.Fprintf(e.stderr, "limbo-analyze: wrote %d files and %d %s to %s (%d episodes)\n",
		w.Files, w.Figures, ledger.Plural(w.Figures, "figure", "figures"), o.out, w.Episodes)
	return nil
}

// ownedError is err of a command writing an owned directory (a report,
// a site): a directory holding files the command did not write is a bad
// --out, a usage error (exit 2); anything else is as it is.
func ownedError(cmd string, err error) error {
	var fe *outfile.ForeignError
	if errors.As(err, &fe) {
		return usageError{fmt.Errorf("%s: --out %w", cmd, fe)}
	}
	return err
}

// runReplayReport is report --design replay.
func runReplayReport(o reportOptions, e *env) error {
	wl := analysisWarnings(e)
	job := report.ReplayJob{In: o.In, Seed: o.seed, Out: o.out, Simulate: simulateReplay,
		Read:     ledger.ReadOptions{Format: o.InFormat, Grader: grader(), Strict: o.Strict, Warn: wl.Warn},
		ReadDone: wl.Flush,
		Meta:     report.Meta{Toolkit: version, Schema: ledger.SchemaVersion, Go: runtime.Version()},
		Warn:     func(msg string) { fmt.Fprintf(e.stderr, "limbo-analyze: warning: %s\n", msg) },
	}
	w, err := report.GenerateReplay(job)
	if err != nil {
		return ownedError("report", err)
	}
	fmt.Fprintf(e.stderr, "limbo-analyze: wrote %d files and %d %s to %s (%d episodes)\n",
		w.Files, w.Figures, ledger.Plural(w.Figures, "figure", "figures"), o.out, w.Episodes)
	return nil
}

// checkOutDir rejects an output directory path that is an existing file,
// before any work is done.
func checkOutDir(cmd, dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return usagef("%s: --out %s is a file; want a directory", cmd, dir)
	}
	return nil
}
