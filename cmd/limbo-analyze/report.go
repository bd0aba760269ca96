package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
	"github.com/limbo-toolkit/limbo/report"
)

// reportOptions are the flags of `report`.
type reportOptions struct {
	in, inFormat string
	seed         uint64
	out          string
	strict       bool
	prereg       string // also evaluate this preregistration (prereg.md, .csv, .json)
	icc          string // Table 3's ICC convention (paper.Options.ICC)
	created      string // with --prereg: when the ledger was created (RFC 3339)
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
(default 1, as simulate), so one command regenerates the whole study. The
report holds no timestamps: the same ledger or seed gives the same bytes.
The report is written as one unit: it is built in a staging directory beside
DIR that replaces DIR whole once every file is written, so DIR holds exactly
this run's files (none an earlier report left), and a failure (a full disk, a
file-size limit) leaves DIR as it was — and no DIR at all if this run would
have created it. A DIR holding files a report does not write is refused
(exit 2) and left alone.

Examples:
  limbo-analyze report --out out/report
  limbo-analyze report --seed 7 --out out/report-seed7
  limbo-analyze report --in run.parquet --out out/report-run`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.out == "" {
				return usagef("report: --out is required")
			}
			if o.in != "" && cmd.Flags().Changed("seed") {
				return usagef("report: --seed simulates; it cannot be combined with --in")
			}
			if !slices.Contains(paper.ICCConventions, paper.ICC(o.icc)) {
				return usagef("report: --icc %q: want per-column or pooled", o.icc)
			}
			if o.created != "" {
				if o.prereg == "" || o.in == "" {
					return usagef("report: --ledger-created goes with --prereg and --in")
				}
				if _, err := prereg.ParseCreated(o.created); err != nil {
					return usagef("report: --ledger-created: %v", err)
				}
			}
			if err := checkOutDir("report", o.out); err != nil {
				return err
			}
			if o.in != "" {
				if err := checkOutputs("report", []string{o.out}, ledger.Files(o.in)); err != nil {
					return err
				}
			}
			if foreign, err := report.ForeignFiles(o.out); err == nil && len(foreign) > 0 {
				return usageError{fmt.Errorf("report: --out %w", &report.ForeignError{Dir: o.out, Files: foreign})}
			}
			return runReport(o, e)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.in, "in", "", "episode ledger to report on (default: simulate the paper design)")
	f.StringVar(&o.inFormat, "in-format", "", "ledger format: jsonl, csv or parquet (default: from the extension)")
	f.Uint64Var(&o.seed, "seed", defaultSeed, "run seed of the simulation (without --in)")
	f.StringVar(&o.out, "out", "", "output directory (required)")
	f.BoolVar(&o.strict, "strict", false, "treat ledger plausibility warnings as errors")
	f.StringVar(&o.prereg, "prereg", "", "also evaluate this preregistration file into prereg.md, prereg.csv and prereg.json")
	f.StringVar(&o.created, "ledger-created", "", "with --prereg and --in: when the ledger was created (RFC 3339), to say whether the lock predates it")
	f.StringVar(&o.icc, "icc", paper.DefaultICC.String(), "Table 3's template ICC: per-column, or pooled (one ICC across its columns)")
	return cmd
}

// simulatePaper is report's simulation without --in (a variable so that
// tests can substitute a small ledger).
var simulatePaper = paper.Simulate

func runReport(o reportOptions, e *env) error {
	job := report.Job{In: o.in, Seed: o.seed, Out: o.out, Simulate: simulatePaper,
		Meta: report.Meta{Toolkit: version, Schema: ledger.SchemaVersion, Go: runtime.Version()},
		Analyze: func(d *table.Data) *paper.Results {
			return paper.Analyze(d, paper.Options{Tools: paper.NativeTools(), ICC: paper.ICC(o.icc)})
		},
		Warn: func(msg string) { fmt.Fprintf(e.stderr, "limbo-analyze: warning: %s\n", msg) },
	}
	wl := analysisWarnings(e)
	job.Read = ledger.ReadOptions{Format: o.inFormat, Grader: grader(), Strict: o.strict, Warn: wl.Warn}
	job.ReadDone = wl.Flush
	if o.prereg != "" {
		pf, err := readPrereg(e, o.prereg)
		if err != nil {
			return err
		}
		job.Extra = func(u *outfile.Unit, dir string, d *table.Data) ([]string, error) {
			seed := ""
			if o.in == "" {
				seed = strconv.FormatUint(o.seed, 10) // the simulation in process
			}
			pres, err := evalPrereg(e, o.prereg, pf, d, o.in, o.inFormat, o.created, seed)
			if err != nil {
				return nil, err
			}
			return report.PreregFiles(u, dir, pres)
		}
	}
	w, err := report.Generate(job)
	if err != nil {
		return err
	}
	figWord := "figures"
	if w.Figures == 1 {
		figWord = "figure"
	}
	fmt.Fprintf(e.stderr, "limbo-analyze: wrote %d files and %d %s to %s (%d episodes)\n", w.Files, w.Figures, figWord, o.out, w.Episodes)
	return nil
}

// runSeed is the run seed of the ledger at in (paper.RunSeed).
func runSeed(in string, d *table.Data) string { return paper.RunSeed(in, d) }

// checkOutDir rejects an output directory path that is an existing file,
// before any work is done.
func checkOutDir(cmd, dir string) error {
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return usagef("%s: --out %s is a file; want a directory", cmd, dir)
	}
	return nil
}
