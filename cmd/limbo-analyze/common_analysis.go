package main

// Shared plumbing of the analysis commands (rates, paired, shapley, model,
// tost): reading a ledger through a --where filter into a frame, weights,
// warnings, and rendering tables as text, JSON or CSV.

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

// inputOptions are the flags every analysis command shares.
type inputOptions struct {
	In       string // ledger path
	InFormat string // ledger format: "" = from the extension
	Where    string
	Weight   string // column, "none", or "" for the command's default
	Format   string // output: text, json or csv
	Strict   bool
}

func addInputFlags(c *cobra.Command, o *inputOptions, weightHelp string) {
	f := c.Flags()
	f.StringVar(&o.In, "in", "", "episode ledger: JSONL (raw or graded), CSV or Parquet (required)")
	f.StringVar(&o.InFormat, "in-format", "", "ledger format: jsonl, csv or parquet (default: from the file extension)")
	f.StringVar(&o.Where, "where", "", "keep only rows where this expression is true, e.g. 'fault_fired && condition == \"vanilla\"'")
	f.StringVar(&o.Weight, "weight", "", weightHelp)
	f.StringVar(&o.Format, "format", "text", "output format: text, json or csv")
	f.BoolVar(&o.Strict, "strict", false, "treat ledger plausibility warnings as errors")
}

// validate checks the shared flags (usage errors).
func (o *inputOptions) validate() error {
	if o.In == "" {
		return usagef("--in is required")
	}
	switch o.Format {
	case "text", "json", "csv":
	default:
		return usagef("--format %q: want text, json or csv", o.Format)
	}
	if _, err := formula.ParseWhere(o.Where); err != nil {
		return usagef("--where: %v", err)
	}
	return nil
}

// weightColumn resolves --weight: "none" is unweighted (""), "" is def.
func (o *inputOptions) weightColumn(def string) string {
	switch o.Weight {
	case "none":
		return ""
	case "":
		return def
	}
	return o.Weight
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

// schemaKind reports the kind of a schema column.
func schemaKind(name string) (ledger.Kind, bool) {
	c, ok := ledger.LookupColumn(name)
	return c.Kind, ok
}

// readFrame streams the ledger through the --where filter into a frame
// built by spec. It returns an error naming the file when nothing is left.
func readFrame(e *env, o *inputOptions, spec frame.Spec, w *warnings) (*frame.Frame, error) {
	b := frame.NewBuilder(spec)
	if _, err := scanWhere(e, o, spec.Columns, spec.Outcome, spec.Weight, func(ep *ledger.Episode, _ int64) error { return b.Add(ep) }); err != nil {
		return nil, err
	}
	fr := b.Frame()
	for _, c := range slices.Sorted(maps.Keys(fr.Dropped)) {
		w.addf("%d row(s) with a missing %s left out", fr.Dropped[c], c)
	}
	if fr.Len() == 0 {
		return nil, fmt.Errorf("%s: no episode left after dropping rows with missing values", o.In)
	}
	return fr, nil
}

// scanWhere streams the ledger of o through its --where filter and calls
// add with each episode kept and its row (0-based, among all read). Only
// columns, outcome, weight and the columns --where names are decoded
// (Parquet); extra (user) columns are named too, so the reader keeps them.
// Errors name the file, the row or episode, or an unknown column with close
// matches; a ledger without episodes, or with none kept, is an error. It
// returns the number of episodes read. add must copy what it needs: the
// reader decodes every row into the same Episode.
func scanWhere(e *env, o *inputOptions, columns []string, outcome, weight string, add func(ep *ledger.Episode, row int64) error) (read int64, err error) {
	where, err := formula.ParseWhere(o.Where)
	if err != nil {
		return 0, usagef("--where: %v", err)
	}
	if err := where.Check(schemaKind); err != nil {
		return 0, usagef("--where: %v", err)
	}
	need := slices.Concat(columns, where.Columns(), []string{outcome, weight})
	var cols []string
	for _, c := range need {
		if c != "" && !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	var kept int64
	first := true
	opt := ledger.ReadOptions{
		Format:  o.InFormat,
		Columns: cols,
		Grader:  grader(),
		Strict:  o.Strict,
		Warn:    func(p ledger.Problem) { fmt.Fprintf(e.stderr, "limbo-analyze: %v\n", p) },
		// add copies the values it needs (frames, pairings), so one
		// Episode is decoded into again and again.
		Reuse: true,
	}
	err = ledger.ReadEpisodes(o.In, opt, func(ep *ledger.Episode) error {
		read++
		if first {
			first = false
			if err := frame.CheckColumns(ep, where.Columns()); err != nil {
				return fmt.Errorf("--where: %w", err)
			}
		}
		ok, err := where.Keep(ep)
		if err != nil {
			if ep.EpisodeID == "" { // not decoded (Parquet reads only the columns used)
				return fmt.Errorf("row %d: %w", read, err)
			}
			return fmt.Errorf("episode %q: %w", ep.EpisodeID, err)
		}
		if !ok {
			return nil
		}
		kept++
		return add(ep, read-1)
	})
	if err != nil {
		var pr ledger.Problem
		if errors.As(err, &pr) {
			if pr.Msg == "no such column" && pr.Line == 0 && slices.Contains(cols, pr.Field) {
				return read, unknownColumn(o, pr.Field)
			}
			return read, err
		}
		return read, fmt.Errorf("%s: %w", o.In, err)
	}
	if read == 0 {
		return read, fmt.Errorf("%s: the ledger has no episodes", o.In)
	}
	if kept == 0 {
		return read, fmt.Errorf("%s: no episode matches --where %q (%d read)", o.In, o.Where, read)
	}
	return read, nil
}

// unknownColumn names a column the ledger lacks, with close matches among
// the columns of its first episode.
func unknownColumn(o *inputOptions, name string) error {
	var first *ledger.Episode
	errStop := errors.New("stop")
	// Read only the columns the file has: a user's CSV need not carry the
	// whole schema.
	have, err := ledger.FileColumns(o.In, o.InFormat)
	if err != nil {
		return err
	}
	if have != nil { // CSV or Parquet: suggest only columns the file has
		return fmt.Errorf("%s: %w", o.In, &frame.UnknownColumnError{Name: name, Similar: frame.Similar(name, have)})
	}
	err = ledger.ReadEpisodes(o.In, ledger.ReadOptions{Format: o.InFormat, Columns: have, Grader: grader()}, func(ep *ledger.Episode) error {
		first = ep
		return errStop
	})
	if first == nil {
		if err != nil && err != errStop {
			return err
		}
		return fmt.Errorf("%s: unknown column %q", o.In, name)
	}
	return fmt.Errorf("%s: %w", o.In, frame.CheckColumns(first, []string{name}))
}

// checkWeights fails when every weight is zero (nothing can be estimated).
func checkWeights(fr *frame.Frame, col string) error {
	if !fr.HasWeight {
		return nil
	}
	if fr.Total().SumW == 0 {
		return fmt.Errorf("all weights (%s) are zero after --where; nothing can be estimated (use --weight none to ignore them)", col)
	}
	return nil
}

// warnings collects messages for the output's "warnings" and for stderr.
type warnings struct{ list []string }

func (w *warnings) addf(format string, args ...any) {
	w.list = append(w.list, fmt.Sprintf(format, args...))
}

func (w *warnings) add(msgs ...string) { w.list = append(w.list, msgs...) }

// items returns the warnings, never nil (JSON [] rather than null).
func (w *warnings) items() []string {
	if w.list == nil {
		return []string{}
	}
	return w.list
}

// flush prints the warnings to stderr.
func (w *warnings) flush(e *env) {
	for _, m := range w.list {
		fmt.Fprintf(e.stderr, "limbo-analyze: warning: %s\n", m)
	}
}

// num is a float that marshals NaN and ±Inf as JSON null.
type num float64

func (f num) MarshalJSON() ([]byte, error) {
	x := float64(f)
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(x)
}

// typedLevel renders a level of column c as a JSON value of its kind.
func typedLevel(c *frame.Column, level string) json.RawMessage {
	switch c.Kind {
	case ledger.KindBool, ledger.KindInt, ledger.KindFloat:
		if json.Valid([]byte(level)) {
			return json.RawMessage(level)
		}
	}
	b, _ := json.Marshal(level)
	return b
}

// orderedObject marshals keys and values in the given order.
type orderedObject struct {
	keys []string
	vals []json.RawMessage
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[i])
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeJSON writes v as indented JSON with a final newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// table is the text and CSV rendering of a result: CSV keeps full
// precision, text rounds for people.
type table struct {
	header []string
	rows   [][]any // string, int, int64, float64, bool or nil
	// digits is the number of significant digits of floats in text (4).
	digits int
}

func (t *table) add(cells ...any) { t.rows = append(t.rows, cells) }

func csvCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	case num:
		return csvCell(float64(x))
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

func textCell(v any, digits int) string {
	switch x := v.(type) {
	case nil:
		return "NA"
	case float64:
		if math.IsNaN(x) {
			return "NA"
		}
		switch ax := math.Abs(x); {
		case ax != 0 && ax < 1e-4:
			return strconv.FormatFloat(x, 'e', digits-1, 64)
		case ax >= 1e4:
			return strconv.FormatFloat(x, 'f', 1, 64)
		}
		return strconv.FormatFloat(x, 'g', digits, 64)
	case num:
		return textCell(float64(x), digits)
	}
	return csvCell(v)
}

func (t *table) writeCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.header); err != nil {
		return err
	}
	for _, r := range t.rows {
		rec := make([]string, len(r))
		for i, v := range r {
			rec[i] = csvCell(v)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeText aligns the columns: text left, numbers right.
func (t *table) writeText(w io.Writer) error {
	d := t.digits
	if d == 0 {
		d = 4
	}
	cells := [][]string{t.header}
	right := make([]bool, len(t.header))
	for _, r := range t.rows {
		row := make([]string, len(r))
		for i, v := range r {
			row[i] = textCell(v, d)
			switch v.(type) {
			case float64, num, int, int64:
				right[i] = true
			}
		}
		cells = append(cells, row)
	}
	width := make([]int, len(t.header))
	for _, r := range cells {
		for i, c := range r {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	var b strings.Builder
	for _, r := range cells {
		b.Reset()
		for i, c := range r {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if right[i] {
				b.WriteString(pad + c)
			} else if i < len(r)-1 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(c)
			}
		}
		if _, err := fmt.Fprintln(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

// render writes the result in the chosen format: JSON from v, CSV from t
// (full precision) and text from text, or from pre lines followed by t
// when text is nil. Warnings go to stderr in every format (and are in v).
func render(e *env, format string, v any, t *table, pre []string, w *warnings) error {
	return renderWith(e, format, v, t, textOf(pre, t), w)
}

func renderWith(e *env, format string, v any, t *table, text func(io.Writer) error, w *warnings) error {
	w.flush(e)
	switch format {
	case "json":
		return writeJSON(e.stdout, v)
	case "csv":
		return t.writeCSV(e.stdout)
	}
	return text(e.stdout)
}

// textOf renders lines, then tables separated by blank lines.
func textOf(pre []string, tables ...*table) func(io.Writer) error {
	return func(w io.Writer) error {
		for _, l := range pre {
			if _, err := fmt.Fprintln(w, l); err != nil {
				return err
			}
		}
		for i, t := range tables {
			if i > 0 {
				if _, err := fmt.Fprintln(w); err != nil {
					return err
				}
			}
			if err := t.writeText(w); err != nil {
				return err
			}
		}
		return nil
	}
}

// transpose turns a one-row table into a two-column field/value table,
// easier to read in a terminal.
func (t *table) transpose() *table {
	out := &table{header: []string{"field", "value"}, digits: t.digits}
	for j, h := range t.header {
		out.add(h, t.rows[0][j])
	}
	return out
}

// parseRefs parses --ref col=level flags.
func parseRefs(refs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, r := range refs {
		col, lvl, ok := strings.Cut(r, "=")
		if !ok || col == "" {
			return nil, usagef("--ref %q: want column=level", r)
		}
		if _, dup := out[col]; dup {
			return nil, usagef("--ref %s given twice", col)
		}
		out[col] = lvl
	}
	return out, nil
}

// termColumns returns the columns a formula's fixed terms and groups read.
func termColumns(f *formula.Formula) []string {
	return f.Columns()[1:]
}

// parseFormula parses --formula as a usage error on failure.
func parseFormula(s string) (*formula.Formula, error) {
	if s == "" {
		return nil, usagef("--formula is required, e.g. --formula \"eos ~ contract + fault_mode\"")
	}
	f, err := formula.Parse(s)
	if err != nil {
		return nil, usagef("--formula: %v", err)
	}
	return f, nil
}

// checkOutcome fails when the outcome is constant: no model can be fitted.
func checkOutcome(fr *frame.Frame, outcome string) error {
	t := fr.Total()
	switch t.Events {
	case 0:
		return fmt.Errorf("outcome %s is always false (0 of %d rows after --where); nothing to fit", outcome, t.N)
	case t.N:
		return fmt.Errorf("outcome %s is always true (%d of %d rows after --where); nothing to fit", outcome, t.N, t.N)
	}
	return nil
}
