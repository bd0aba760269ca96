package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp"
	"github.com/limbo-toolkit/limbo/outfile"
	"github.com/limbo-toolkit/limbo/report"
)

func newPreregCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prereg",
		Short: "Write, check and lock a preregistration (hypotheses, estimands, decision rules)",
		Long: `prereg works with preregistration files: YAML documents that state each
hypothesis, its population, its estimand and the rule that turns the estimate
into a verdict (docs/prereg.md is the reference). Evaluate one with
'hypotheses --prereg FILE --in LEDGER'.

Examples:
  limbo-analyze prereg init --paper --out study.yaml
  limbo-analyze prereg check study.yaml --in pilot.jsonl
  limbo-analyze prereg lock study.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return usagef("prereg: name a subcommand: init, check or lock (see 'limbo-analyze prereg --help')")
		},
	}
	cmd.AddCommand(newPreregInitCmd(e), newPreregCheckCmd(e), newPreregLockCmd(e))
	return cmd
}

// oneFile accepts exactly one FILE argument; anything else is a usage
// error (exit 2).
func oneFile(c *cobra.Command, args []string) error {
	if len(args) != 1 {
		return usagef("prereg %s: want one FILE, got %d argument(s) (see '%s --help')", c.Name(), len(args), c.CommandPath())
	}
	return nil
}

func newPreregInitCmd(e *env) *cobra.Command {
	var paper, force bool
	var out string
	cmd := &cobra.Command{
		Use:   "init [--paper] [--out FILE]",
		Short: "Write a starting preregistration (--paper: the paper's H1–H6)",
		Args: func(c *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("prereg init takes no arguments (use --out FILE)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			data := prereg.SkeletonBytes()
			if paper {
				data = prereg.PaperBytes()
			}
			if out == "" || out == "-" {
				_, err := e.stdout.Write(data)
				return err
			}
			if _, err := os.Stat(out); err == nil && !force {
				return fmt.Errorf("%s exists (use --force to overwrite it)", out)
			}
			if err := outfile.WriteFile(out, data); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "limbo-analyze: wrote %s\n", out)
			return nil
		},
	}
	cmd.Flags().BoolVar(&paper, "paper", false, "write the paper's H1–H6 (the embedded file)")
	cmd.Flags().StringVar(&out, "out", "", "file to write (default: stdout)")
	cmd.Flags().BoolVar(&force, "force", false, "overwrite an existing --out file")
	return cmd
}

// readPrereg reads and parses a preregistration, printing every problem
// as file:line: message.
func readPrereg(e *env, path string) (*prereg.File, error) {
	f, err := prereg.ReadFile(path)
	return f, reportProblems(e, path, err)
}

// reportProblems prints an ErrorList one problem a line and returns a
// one-line summary; other errors pass through.
func reportProblems(e *env, path string, err error) error {
	var list prereg.ErrorList
	if !errors.As(err, &list) {
		return err
	}
	for _, p := range list {
		fmt.Fprintf(e.stderr, "%v\n", p)
	}
	return fmt.Errorf("%s: %d problem(s)", path, len(list))
}

func newPreregCheckCmd(e *env) *cobra.Command {
	var l ledgerFlags
	cmd := &cobra.Command{
		Use:   "check FILE [--in LEDGER]",
		Short: "Validate a preregistration, and with --in its columns and levels against a ledger",
		Args:  oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := readPrereg(e, args[0])
			if err != nil {
				return err
			}
			if l.In != "" {
				d, err := readAnalysisData(e, l, f.ReadColumns(l.In, l.InFormat))
				if err != nil {
					return err
				}
				cols, err := ledger.FileColumns(l.In, l.InFormat)
				if err != nil {
					return err
				}
				errs, warns, err := f.CheckLedgerAll(d, cols)
				if err != nil {
					return err
				}
				for _, w := range warns {
					fmt.Fprintf(e.stderr, "%v\n", w)
				}
				if len(errs) > 0 {
					return reportProblems(e, args[0], errs)
				}
			}
			fmt.Fprintf(e.stdout, "%s: ok (%d hypotheses, sha256 %s)\n", args[0], len(f.Hypotheses), f.SHA256)
			return nil
		},
	}
	cmd.Flags().StringVar(&l.In, "in", "", "episode ledger to check columns and levels against")
	cmd.Flags().StringVar(&l.InFormat, "in-format", "", "ledger format: jsonl, csv or parquet (default: from the extension)")
	return cmd
}

func newPreregLockCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "lock FILE",
		Short: "Write FILE.lock: the file's SHA-256, the UTC time and the toolkit version (tamper evidence, not security)",
		Args:  oneFile,
		RunE: func(cmd *cobra.Command, args []string) error {
			l, err := prereg.Lock(args[0], time.Now(), version)
			if err != nil {
				return reportProblems(e, args[0], err)
			}
			fmt.Fprintf(e.stdout, "%s: sha256 %s, locked %s\n", prereg.LockPath(args[0]), l.SHA256, l.LockedAt)
			return nil
		},
	}
}

// runPreregHypotheses evaluates a preregistration on a ledger
// (`hypotheses --prereg`).
func runPreregHypotheses(o hypothesesOptions, e *env) error {
	f, err := readPrereg(e, o.prereg)
	if err != nil {
		return err
	}
	d, err := readAnalysisData(e, o.ledgerFlags, f.ReadColumns(o.In, o.InFormat))
	if err != nil {
		return err
	}
	res, err := evalPrereg(e, o.prereg, f, d, o.ledgerFlags, o.ledgerCreated, "")
	if err != nil {
		return err
	}
	return render(e, func(w io.Writer) error { return report.Prereg(w, res, o.format) })
}

// evalPrereg runs f on d's episodes with the provenance of the ledger l.In
// ("" for a simulation in process, whose seed is given) and prints its
// warnings on stderr. created is --ledger-created ("" for none); seed ""
// is the ledger's own (paper.RunSeed).
func evalPrereg(e *env, path string, f *prereg.File, d *table.Data, l ledgerFlags, created, seed string) (*prereg.Result, error) {
	if seed == "" {
		seed = paper.RunSeed(l.In, d)
	}
	origin, err := ledgerOrigin(l.In, l.InFormat, created, seed)
	if err != nil {
		return nil, err
	}
	res, err := f.RunWith(path, d, prereg.RunOptions{In: l.In, Seed: seed, Version: version, Origin: origin})
	if err != nil {
		return nil, err
	}
	for _, w := range res.Warnings() {
		fmt.Fprintf(e.stderr, "limbo-analyze: %s\n", w)
	}
	return res, nil
}

// ledgerOrigin says when the ledger at in was created, for the question
// whether a lock predates it (docs/prereg.md, "Locking"). In order: the
// --ledger-created flag; the LEDGER.created.json that drive and serve
// write; a Parquet file's created_utc metadata. Without any, a simulated
// ledger (in process, or with simulate's sidecar) is "not applicable":
// it is reproduced from its seed at any time. Anything else is unknown.
func ledgerOrigin(in, inFormat, created, seed string) (prereg.Origin, error) {
	if created != "" {
		t, err := prereg.ParseCreated(created)
		if err != nil {
			return prereg.Origin{}, usagef("--ledger-created: %v", err)
		}
		return prereg.Origin{Created: t, From: "--ledger-created"}, nil
	}
	if in == "" {
		return prereg.Origin{SimulatedSeed: seed}, nil
	}
	t, sidecar, ok, err := mcp.ReadCreated(in)
	if err != nil {
		return prereg.Origin{}, err
	}
	if ok {
		return prereg.Origin{Created: t, From: sidecar}, nil
	}
	if fi, err := os.Stat(in); err == nil && fi.Mode().IsRegular() && (inFormat == "parquet" || inFormat == "" && strings.EqualFold(filepath.Ext(in), ".parquet")) {
		t, ok, err := prereg.ParquetCreated(in)
		if err != nil {
			return prereg.Origin{}, err
		}
		if ok {
			return prereg.Origin{Created: t, From: in + " (Parquet metadata " + prereg.CreatedKey + ")"}, nil
		}
	}
	return prereg.Origin{SimulatedSeed: design.SidecarSeed(in)}, nil
}
