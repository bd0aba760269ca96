package main

import (
	"errors"
	"io"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis/power"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/outfile"
	"github.com/limbo-toolkit/limbo/plots"
	"github.com/limbo-toolkit/limbo/report"
)

func newPowerCmd(e *env) *cobra.Command {
	var o power.Options
	var pre, des, pilot, sizes, format, out string
	cmd := &cobra.Command{
		Use:   "power [--prereg FILE] [--design paper|FILE | --pilot LEDGER] [--sizes LIST]",
		Short: "Power of a preregistration by simulation, with closed-form approximations",
		Long: `power regenerates the design --reps times at every size of --sizes, evaluates
the preregistration (--prereg; default the paper's H1–H6) on each replication in
memory, and reports per hypothesis the share of replications whose verdict is
"supported" (its power) with a 95% Wilson interval for the Monte Carlo error,
the share "not computable", and the smallest size reaching --target. Closed
forms (two proportions with design effect 1 + (m − 1)ρ, McNemar, TOST) are
shown beside, with their assumptions; "n/a" where an estimand has none.

--sizes lists multipliers of the base design (1 = as given); --scale says what
they multiply:
  episodes   episodes per cell: ⌈f⌉ repeats of every cell, each under its own
             run seed, each keeping a seeded share f/⌈f⌉ of the cell's worlds
             (the same for every condition: pairs stay whole).
  seeds      whole runs of the design, each under its own run seed (sizes
             must be whole: 1,2,4); the same as episodes at whole sizes.
  instances  task instances per template in every block (new worlds); most
             templates have 3, so ×2 of the paper's E1 is an error.
--pilot LEDGER resamples a pilot instead (cluster bootstrap): templates drawn
with replacement, whole, and round(f·n) of each one's n worlds.

Replication r runs under SplitMix64(seed + r·γ) at every size (docs/power.md);
the same command gives the same bytes whatever --jobs. --out DIR writes
power.txt, power.csv, power.json, power.png and power.svg together.

Examples:
  limbo-analyze power --sizes 0.25,0.5,1 --reps 200
  limbo-analyze power --prereg analysis/power/testdata/pilot.yaml --pilot analysis/power/testdata/pilot.csv --sizes 1,2,4
  limbo-analyze power --prereg analysis/power/testdata/null.yaml --design analysis/power/testdata/small.json --sizes 1,4 --out /tmp/power`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if o.Sizes, err = power.ParseSizes(sizes); err != nil {
				return usagef("power: --sizes: %v", err)
			}
			if err := oneOf("power: --format", format, report.PowerFormats, "text, md, latex, csv or json"); err != nil {
				return err
			}
			if err := o.Check(); err != nil {
				return usageError{err}
			}
			if pilot != "" && (cmd.Flags().Changed("design") || cmd.Flags().Changed("scale")) {
				return usagef("power: --pilot resamples a ledger; --design and --scale do not apply")
			}
			if err := checkOutDir("power", out); out != "" && err != nil {
				return err
			}
			if o.Prereg, err = prereg.Paper(); pre != "paper" {
				o.Prereg, err = readPrereg(e, pre)
			}
			if err != nil {
				return err
			}
			if pilot != "" {
				d, err := readAnalysisData(e, ledgerFlags{In: pilot}, o.Prereg.ReadColumns(pilot, ""))
				if err != nil {
					return err
				}
				o.Pilot = d.Episodes()
			} else if o.Manifest, err = design.Load(des); err != nil {
				return err
			}
			if bar := progressBar(e, o.Reps*len(o.Sizes), "power"); bar != nil {
				o.Progress = func(n int) { bar.Add(n) }
				defer bar.Finish()
			}
			res, err := power.Run(o)
			if err != nil {
				var le *power.LimitError
				if errors.As(err, &le) {
					return usageError{err}
				}
				return err
			}
			if out != "" {
				return writePower(res, out, pre, des, pilot)
			}
			return render(e, func(w io.Writer) error { return report.Power(w, res, format) })
		},
	}
	f := cmd.Flags()
	f.StringVar(&pre, "prereg", "paper", `preregistration file ("paper": the paper's H1–H6)`)
	f.StringVar(&des, "design", "paper", `design to regenerate: "paper" or a manifest file`)
	f.StringVar(&pilot, "pilot", "", "pilot episode ledger to resample instead of simulating")
	nameVar(f, &o.Scale, "scale", design.ScaleEpisodes, "what a size multiplies: episodes, instances or seeds")
	f.StringVar(&sizes, "sizes", "0.5,1,2", "comma-separated multipliers of the base design")
	f.IntVar(&o.Reps, "reps", 100, "replications per size")
	f.Float64Var(&o.Target, "target", 0.8, "power to reach")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the replications")
	f.IntVar(&o.Jobs, "jobs", 0, "parallel workers (0 = number of CPUs)")
	f.StringVar(&format, "format", "text", "output format: text, md, latex, csv or json")
	f.StringVar(&out, "out", "", "directory to write power.{txt,csv,json,png,svg} into")
	return cmd
}

// writePower writes the tables and the figure into dir, all or none.
func writePower(res *power.Result, dir string, ins ...string) error {
	u := outfile.NewUnit(ins...)
	defer u.Abort() // no-op after Commit
	if _, err := report.PowerFiles(u, dir, res); err != nil {
		return err
	}
	if _, err := plots.RenderPower(u, res, dir); err != nil {
		return err
	}
	return u.Commit()
}
