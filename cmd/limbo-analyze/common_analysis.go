package main

// Shared flags of the analysis commands (rates, paired, shapley, model,
// tost): the query they pass to package analysis and the rendering of its
// result through package report.

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis"
	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/report"
)

// inputOptions are the flags every analysis command shares.
type inputOptions struct {
	In       string // ledger path
	InFormat string // ledger format: "" = from the extension
	Where    string
	Weight   string // column, "none", or "" for the command's default
	Format   string // output: text, json, csv, md or latex
	Strict   bool
}

func addInputFlags(c *cobra.Command, o *inputOptions, weightHelp string) {
	f := c.Flags()
	f.StringVar(&o.In, "in", "", "episode ledger: JSONL (raw or graded), CSV or Parquet (required)")
	f.StringVar(&o.InFormat, "in-format", "", "ledger format: jsonl, csv or parquet (default: from the file extension)")
	f.StringVar(&o.Where, "where", "", "keep only rows where this expression is true, e.g. 'fault_fired && condition == \"vanilla\"'")
	f.StringVar(&o.Weight, "weight", "", weightHelp)
	f.StringVar(&o.Format, "format", "text", "output format: text, json, csv, md (Markdown) or latex (booktabs)")
	f.BoolVar(&o.Strict, "strict", false, "treat ledger plausibility warnings as errors")
}

// validate checks the shared flags (usage errors).
func (o *inputOptions) validate() error {
	if o.In == "" {
		return usagef("--in is required")
	}
	if !slices.Contains(report.ResultFormats, o.Format) {
		return usagef("--format %q: want text, json, csv, md or latex", o.Format)
	}
	if _, err := formula.ParseWhere(o.Where); err != nil {
		return usagef("--where: %v", err)
	}
	return nil
}

// query is the engine's query of the flags; --weight none and the empty
// default are both unweighted here (rates resolves its own default).
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
			fmt.Fprintf(e.stderr, "limbo-analyze: warning: %s\n", m)
		}
		return out.Write(e.stdout, format)
	}
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

// analysisWarnings limits the ledger plausibility warnings of the commands
// that read a whole ledger for the paper's analysis (tables, hypotheses,
// figures, report) to a few lines and a count of the rest.
func analysisWarnings(e *env) *ledger.FirstWarnings {
	return ledger.NewFirstWarnings(e.stderr, 5, "limbo-analyze: ", "limbo-analyze: … and %d more warnings\n")
}
