package main

// Shared flags of the analysis commands (rates, means, paired, shapley,
// model, tost, gate): the query they pass to package analysis and the
// rendering of its result through package report.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/report"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// ledgerFlags are the flags of a command that reads one ledger.
type ledgerFlags struct {
	In       string // ledger path
	InFormat string // ledger format: "" = from the extension
	Strict   bool
}

// ledgerHelp is the help of --in for a required ledger of any format.
const ledgerHelp = "episode ledger: JSONL (raw or graded), CSV or Parquet (required)"

// addLedgerFlags binds --in (with the help in), --in-format (whose
// default is the format of from) and --strict.
func addLedgerFlags(f *pflag.FlagSet, o *ledgerFlags, in, from string) {
	f.StringVar(&o.In, "in", "", in)
	f.StringVar(&o.InFormat, "in-format", "", "ledger format: jsonl, csv or parquet (default: from "+from+")")
	f.BoolVar(&o.Strict, "strict", false, "treat ledger plausibility warnings as errors")
}

// inputOptions are the flags every analysis command shares.
type inputOptions struct {
	ledgerFlags
	Where  string
	Weight string // column, "none", or "" for the command's default
	Format string // output: text, json, csv, md or latex
}

// addInputFlags binds the shared flags of an analysis command, which
// checks them before it runs (validate).
func addInputFlags(c *cobra.Command, o *inputOptions, weightHelp string) {
	f := c.Flags()
	addLedgerFlags(f, &o.ledgerFlags, ledgerHelp, "the file extension")
	f.StringVar(&o.Where, "where", "", "keep only rows where this expression is true, e.g. 'fault_fired && condition == \"vanilla\"'")
	f.StringVar(&o.Weight, "weight", "", weightHelp)
	f.StringVar(&o.Format, "format", "text", "output format: text, json, csv, md (Markdown) or latex (booktabs)")
	c.PreRunE = func(*cobra.Command, []string) error { return o.validate() }
}

// validate checks the shared flags (usage errors).
func (o *inputOptions) validate() error {
	_, err := formula.ParseWhere(o.Where)
	if err != nil {
		err = usagef("--where: %v", err)
	}
	return firstError(required("--in", o.In), oneOf("--format", o.Format, report.ResultFormats, "text, json, csv, md or latex"), err)
}

// query is the engine's query of the flags; --weight none and the empty
// default are both unweighted here (rates and means resolve their own
// default).
func (o *inputOptions) query(e *env) analysis.Query {
	q := analysis.Query{Source: o.files(e, o.In), Where: o.Where}
	if o.Weight != "none" {
		q.Weight = o.Weight
	}
	return q
}

// files is the engine's source of the ledger at path, read as the flags say.
func (o *inputOptions) files(e *env, path string) *table.Files {
	return &table.Files{Paths: []string{path}, Format: o.InFormat, Strict: o.Strict, Grader: grader(),
		Warn: func(p ledger.Problem) { fmt.Fprintf(e.stderr, "limbo-analyze: %v\n", p) }}
}

// emit returns the step after an engine call: a spec error becomes a
// usage error; otherwise the result is laid out, its warnings go to stderr
// and it is rendered on stdout in format.
func emit[R any](e *env, format string, layout func(R) *report.Output) func(R, error) error {
	return func(r R, err error) error {
		var se *analysis.SpecError
		if errors.As(err, &se) {
			return usageError{err}
		}
		if err != nil {
			return err
		}
		out := layout(r)
		for _, m := range out.Warnings {
			fmt.Fprintf(e.stderr, "limbo-analyze: warning: %s\n", report.PrintableLines(m))
		}
		return out.Write(e.stdout, format)
	}
}

// nameValue is a flag holding one of the engine's named-value types (a
// link, a test, an adjustment), so that a command binds the spec field
// without naming the numerics' types: the engine checks the value and its
// error lists the accepted ones. Its type reads "string" in the help.
type nameValue[T ~string] struct{ p *T }

func (v nameValue[T]) String() string     { return string(*v.p) }
func (v nameValue[T]) Set(s string) error { *v.p = T(s); return nil }
func (v nameValue[T]) Type() string       { return "string" }

// nameVar binds the flag name, with default value, to the spec field p.
func nameVar[T ~string](f *pflag.FlagSet, p *T, name string, value T, usage string) {
	*p = value
	f.Var(nameValue[T]{p}, name, usage)
}

// parseRefs parses the repeated --ref flags, "column=level", into the map
// ModelSpec.Refs and ShapleySpec.Refs take. An item without "=" or a
// column, or a column named twice, is an error about the field Refs
// (which run renames to --ref).
func parseRefs(refs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, r := range refs {
		col, lvl, ok := strings.Cut(r, "=")
		if !ok || col == "" {
			return nil, usageError{fieldtext.New("Refs", "{Refs} %q: want column=level", r)}
		}
		if _, dup := out[col]; dup {
			return nil, usageError{fieldtext.New("Refs", "{Refs} %s given twice", col)}
		}
		out[col] = lvl
	}
	return out, nil
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// grader returns the grader that raw JSONL ledgers are graded with on read:
// the paper's (package sandbox). Every command that reads ledgers gets it
// from here, so there is one place to change it.
func grader() ledger.Grader { return sandbox.Grade }

// analysisWarnings limits the ledger plausibility warnings of the commands
// that read a whole ledger for the paper's analysis (tables, hypotheses,
// figures, report) to a few lines and a count of the rest.
func analysisWarnings(e *env) *ledger.FirstWarnings {
	return ledger.NewFirstWarnings(e.stderr, 5, "limbo-analyze: ", "limbo-analyze: … and %d more warnings\n")
}

// required is the usage error of a required flag (what) left empty.
func required(what, v string) error {
	if v == "" {
		return usagef("%s is required", what)
	}
	return nil
}

// oneOf is the usage error of a flag (what) whose value v is not one of
// allowed, which want lists for the reader.
func oneOf[T ~string](what string, v T, allowed []T, want string) error {
	if !slices.Contains(allowed, v) {
		return usagef("%s %q: want %s", what, string(v), want)
	}
	return nil
}

// firstError is the first of errs that is not nil: a command's
// independent checks, in the order it reports them.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkLevel refuses --level 0, which the engine would read as its default.
func checkLevel(level float64) error {
	if level == 0 {
		return usagef("--level 0: want a confidence level in (0, 1)")
	}
	return nil
}

// addBootstrapFlags binds the bootstrap's flags but --cluster, which a
// command binds itself (rates' --cluster is also its design effect's).
func addBootstrapFlags(f *pflag.FlagSet, b *analysis.BootstrapSpec) {
	f.IntVar(&b.Replicates, "bootstrap", 0, "bootstrap replicates (0: none); resamples the clusters of --cluster (a GLMM: parametric)")
	f.Uint64Var(&b.Seed, "seed", 1, "seed of the bootstrap replicates")
	nameVar(f, &b.Interval, "interval", analysis.BootBCa, "bootstrap interval shown: bca or percentile (CSV and JSON carry both)")
	f.IntVar(&b.Jobs, "jobs", 0, "parallel workers of the bootstrap (0 = number of CPUs)")
}

// bootstrapOnly is the usage error of bootstrap flags given without
// --bootstrap.
func bootstrapOnly(f *pflag.FlagSet) error {
	if f.Changed("bootstrap") {
		return nil
	}
	for _, n := range []string{"seed", "interval", "jobs"} {
		if f.Changed(n) {
			return usagef("--%s applies with --bootstrap N", n)
		}
	}
	return nil
}

// renameWarnings makes the advice of a result's warnings name this
// command's flags.
func renameWarnings(ws []analysis.Warning) {
	for i, w := range ws {
		ws[i] = w.Renamed(specFlags)
	}
}
