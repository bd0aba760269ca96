package main

import (
	"encoding/json"
	"fmt"
	"hash/maphash"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/ledger"
)

type validateOptions struct {
	files   []string
	strict  bool
	summary bool
	format  string // summary format: text or json
}

func newValidateCmd(e *env) *cobra.Command {
	var o validateOptions
	cmd := &cobra.Command{
		Use:   "validate FILE...",
		Short: "Check episode ledgers (JSONL, CSV, Parquet) against the schema",
		Long: `validate reads each ledger and reports every problem as

  file:line: field: message

on stdout (line is the row for Parquet), and exits 1 if there is any error.
Errors are wrong types, unknown values of the enumerations that grading relies
on, empty identifiers, out-of-range numbers (weight must be finite and > 0),
duplicate episode_id, calls or effects of an unknown episode (X.calls.parquet and
X.effects.parquet beside X.parquet), and eos without task_success or with
duplicated. What is merely implausible for the paper's sandbox (a harness, tool
or condition it does not have, a late mode with no delay) is a warning on
stderr; --strict makes warnings, and extra CSV columns, errors.

A raw JSONL ledger (calls and effects nested) is graded on read when a grader
is available, otherwise its design fields, calls, effects and final reports are
checked as they are. The format follows the extension: .jsonl/.ndjson, .csv,
.parquet.

--summary prints, per file, the row count, the number of true values of each
boolean column and the number of distinct values of each string column
(--format json gives one JSON object per file, for scripts).

Examples:
  limbo-analyze validate testdata/ledger/sample.csv
  limbo-analyze validate --strict testdata/ledger/sample.csv
  limbo-analyze validate --summary --format json testdata/ledger/sample.csv`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usagef("validate: name at least one ledger file (see 'limbo-analyze validate --help')")
			}
			o.files = args
			if o.format != "text" && o.format != "json" {
				return usagef("validate: --format must be text or json, not %q", o.format)
			}
			if cmd.Flags().Changed("format") && !o.summary {
				return usagef("validate: --format applies to --summary")
			}
			return runValidate(o, e)
		},
	}
	cmd.Flags().BoolVar(&o.strict, "strict", false, "treat plausibility warnings and extra CSV columns as errors")
	cmd.Flags().BoolVar(&o.summary, "summary", false, "print row count, boolean sums and distinct string values per file")
	cmd.Flags().StringVar(&o.format, "format", "text", "summary format: text or json")
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"text", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// warnPrinter prints warnings to w, at most perKind of each (field,
// message) and a count of the rest, so that a million-row ledger from
// another harness does not flood the terminal.
type warnPrinter struct {
	w       io.Writer
	perKind int
	counts  map[string]int
	order   []string
	total   int
}

func newWarnPrinter(w io.Writer) *warnPrinter {
	return &warnPrinter{w: w, perKind: 5, counts: map[string]int{}}
}

func (wp *warnPrinter) warn(p ledger.Problem) {
	wp.total++
	k := p.File + "\x00" + p.Field + "\x00" + p.Msg
	n := wp.counts[k]
	if n == 0 {
		wp.order = append(wp.order, k)
	}
	wp.counts[k] = n + 1
	if n < wp.perKind {
		fmt.Fprintln(wp.w, p.Error())
	}
}

// flush reports how many warnings of each kind were not printed.
func (wp *warnPrinter) flush() {
	for _, k := range wp.order {
		if n := wp.counts[k]; n > wp.perKind {
			parts := strings.SplitN(k, "\x00", 3)
			fmt.Fprintf(wp.w, "%s: %s: warning: %s (and %d more like this)\n", parts[0], parts[1], parts[2], n-wp.perKind)
		}
	}
}

// summary is what --summary reports for one file; the DuckDB interop check
// compares it with DuckDB's own counts.
type summary struct {
	File     string         `json:"file"`
	Rows     int64          `json:"rows"`
	BoolSums map[string]int `json:"bool_sums"`
	Distinct map[string]int `json:"distinct"`

	seed maphash.Seed
	sets map[string]map[uint64]struct{}
}

func newSummary(file string) *summary {
	return &summary{File: file, BoolSums: map[string]int{}, Distinct: map[string]int{}, seed: maphash.MakeSeed(), sets: map[string]map[uint64]struct{}{}}
}

func (s *summary) distinct(col, v string) {
	set := s.sets[col]
	if set == nil {
		set = map[uint64]struct{}{}
		s.sets[col] = set
	}
	set[maphash.String(s.seed, v)] = struct{}{}
}

func (s *summary) add(e *ledger.Episode) {
	s.Rows++
	for _, c := range ledger.EpisodeColumns {
		v, _ := e.Get(c.Name)
		switch c.Kind {
		case ledger.KindBool:
			if v.Bool {
				s.BoolSums[c.Name]++
			} else if _, ok := s.BoolSums[c.Name]; !ok {
				s.BoolSums[c.Name] = 0
			}
		case ledger.KindString:
			s.distinct(c.Name, v.Str)
		}
	}
	for k, v := range e.Extra {
		s.distinct(k, v)
	}
}

func (s *summary) finish() {
	for k, set := range s.sets {
		s.Distinct[k] = len(set)
	}
}

func (s *summary) writeText(w io.Writer) {
	fmt.Fprintf(w, "%s: %d rows\n", s.File, s.Rows)
	keys := func(m map[string]int) []string {
		ks := make([]string, 0, len(m))
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	for _, k := range keys(s.BoolSums) {
		fmt.Fprintf(w, "  true  %-20s %d\n", k, s.BoolSums[k])
	}
	for _, k := range keys(s.Distinct) {
		fmt.Fprintf(w, "  distinct %-17s %d\n", k, s.Distinct[k])
	}
}

func runValidate(o validateOptions, e *env) error {
	wp := newWarnPrinter(e.stderr)
	defer wp.flush()
	nerr, bad := 0, 0
	g := grader()
	for _, path := range o.files {
		fileErrs := 0
		opt := ledger.ReadOptions{
			Grader: g,
			Strict: o.strict,
			Reuse:  true, // rows are counted and summarised, never kept
			Warn:   wp.warn,
			Errors: func(p ledger.Problem) {
				fileErrs++
				fmt.Fprintln(e.stdout, p.Error())
			},
		}
		var sum *summary
		if o.summary {
			sum = newSummary(path)
		}
		rows := 0
		each := func(ep *ledger.Episode) error {
			rows++
			if sum != nil {
				sum.add(ep)
			}
			return nil
		}
		var err error
		if g == nil && isJSONL(path) {
			// Without a grader, raw lines are checked as they are.
			err = ledger.ReadRaw(path, opt, func(r *ledger.RawEpisode) error { return each(&r.Episode) })
		} else {
			err = ledger.ReadEpisodes(path, opt, each)
		}
		if err != nil {
			fileErrs++
			fmt.Fprintln(e.stdout, err.Error())
		}
		if fileErrs > 0 {
			bad++
			nerr += fileErrs
			continue
		}
		fmt.Fprintf(e.stderr, "%s: %d %s, no errors\n", path, rows, plural(rows, "episode", "episodes"))
		if sum != nil {
			sum.finish()
			if o.format == "json" {
				b, err := json.Marshal(sum)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "%s\n", b)
			} else {
				sum.writeText(e.stdout)
			}
		}
	}
	if nerr > 0 {
		return fmt.Errorf("%d %s in %d of %d %s", nerr, plural(nerr, "error", "errors"), bad, len(o.files), plural(len(o.files), "file", "files"))
	}
	return nil
}

func isJSONL(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".ndjson")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
