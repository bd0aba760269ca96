package analysis

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Query names the episodes an analysis reads: one or more ledgers (JSONL,
// raw or graded, CSV or Parquet; each path is passed to the ledger
// readers as is), read in order as one ledger, through a --where filter.
// Rates, Paired, TOST, Model and Shapley each take a Query and their own
// spec. The zero Weight is unweighted.
type Query struct {
	Inputs []string // ledger paths, read in order as one ledger
	// Episodes, when Inputs is empty, are the episodes themselves (already
	// validated), for a caller that holds them one by one.
	Episodes []*ledger.Episode
	// Rows, when Inputs and Episodes are empty, are rows of any kind.
	Rows []frame.Row
	// Data, when Inputs, Episodes and Rows are empty, holds the episodes
	// as columns: Subset names the rows read, in order (nil: all). It is
	// read by the column scan (--where on codes, frames counted on codes),
	// like a Parquet ledger, with no value boxed per row: an analysis
	// built on the engine (a study's tables, a preregistration with its
	// derived columns, WithBools) runs the engine's analyses on the
	// episodes it holds.
	Data   *Data
	Subset []int32
	Format string // jsonl, csv or parquet; "" = from each file's extension
	Where  string // filter expression (formula.ParseWhere); "" keeps all
	Weight string // weight column; "" = unweighted
	Strict bool   // ledger plausibility warnings are errors
	// Grader grades raw JSONL lines on read (the toolkit's: sandbox.Grade).
	Grader ledger.Grader
	// Warn receives the ledger's plausibility warnings as they are read;
	// nil drops them.
	Warn func(ledger.Problem)
	// Frame, when set, is the frame itself, built by the caller with
	// frame.Builder from rows it derived (an episode counted under several
	// columns of a table, a recoded group, an outcome of its own): the
	// query reads nothing and Where must be empty. It is read by the
	// analyses that read covariate patterns (Rates, TOST on independent
	// arms, the logit Model, Shapley), which find their columns, outcome
	// and weight in it: build it with Spec.Collapse and, weighted, with
	// the Spec.Weight that Query.Weight names. An analysis that reads
	// episodes or rows (Paired, paired TOST, GEE, GLMM) rejects it with a
	// *SpecError.
	Frame *frame.Frame
	// rowPath turns the column scan off (tests compare the two paths).
	rowPath bool
}

// SpecError is a mistake in a query or a spec (an unknown option, a
// malformed Where, a column listed twice), as opposed to a failure that
// depends on the data. A command reports it as a usage error.
type SpecError struct {
	Err error
	// Field names the spec field at fault ("Order"), when the error is
	// about one; a command maps it to its own option with RenameField.
	Field string
}

func (e *SpecError) Error() string {
	var ft *fieldtext.Error
	if e.Field != "" && !errors.As(e.Err, &ft) {
		return e.Field + ": " + e.Err.Error()
	}
	return e.Err.Error()
}
func (e *SpecError) Unwrap() error { return e.Err }

func specf(format string, args ...any) error {
	return &SpecError{Err: fmt.Errorf(format, args...)}
}

// RenameField returns err with the spec fields its message names (the
// Field of a SpecError, and the other fields an error of the engine
// names) called by their names in names: a command's options, or the keys
// of a preregistration. A field not in names keeps its Go name. The
// result's text is err's so renamed, and it unwraps to err (errors.As
// still finds a *SpecError); an error that names no field is returned
// unchanged.
func RenameField(err error, names map[string]string) error {
	return fieldtext.Rename(err, names)
}

// fieldErr is a SpecError about field whose message names spec fields
// by {Name} placeholders (see RenameField).
func fieldErr(field, format string, args ...any) error {
	return &SpecError{Err: fieldtext.New(field, format, args...), Field: field}
}

// fieldf is a SpecError about the spec field named field.
func fieldf(field, format string, args ...any) error {
	return fieldErr(field, "{"+field+"}: "+format, args...)
}

// name is how errors name the query's input.
func (q *Query) name() string {
	if len(q.Inputs) == 0 {
		return "the episodes"
	}
	return strings.Join(q.Inputs, ", ")
}

// each streams every episode of the query's source, one input after
// another, to fn; errors are wrapped with the input's name except
// ledger.Problems, which name their file. A ledger.Problem fn returns
// without a place is about the row it was given: the ledger readers place
// it at the row's file and line, and each, for episodes held in memory,
// names the row (rowLabel). It is the only place that reads.
func (q *Query) each(opt ledger.ReadOptions, fn func(r frame.Row) error) error {
	if len(q.Inputs) == 0 {
		k := 0
		call := func(r frame.Row) error {
			err := fn(r)
			if p, ok := err.(ledger.Problem); ok && p.File == "" && p.Line == 0 {
				err = fmt.Errorf("%s: %s: %w", q.name(), rowLabel(r, k), err)
			} else if err != nil {
				err = fmt.Errorf("%s: %w", q.name(), err)
			}
			k++
			return err
		}
		for _, ep := range q.Episodes {
			if err := call(ep); err != nil {
				return err
			}
		}
		for _, r := range q.Rows {
			if err := call(r); err != nil {
				return err
			}
		}
		if q.Data != nil {
			// One row value for all: scan's consumers copy what they keep.
			r := &rowPtr{row{d: q.Data}}
			for i := range q.dataLen() {
				r.i = q.dataRow(i)
				if err := call(r); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, in := range q.Inputs {
		if err := ledger.ReadEpisodes(in, opt, func(ep *ledger.Episode) error { return fn(ep) }); err != nil {
			var pr ledger.Problem
			if errors.As(err, &pr) {
				return err
			}
			return fmt.Errorf("%s: %w", in, err)
		}
	}
	return nil
}

// rowLabel names row r, the k-th (0-based) of episodes held in memory,
// in a message: by its episode_id when it has one, else by its index.
func rowLabel(r frame.Row, k int) string {
	if v, ok := r.Get("episode_id"); ok && !v.Null && v.Str != "" {
		return "episode " + strconv.Quote(v.Str)
	}
	return "row " + strconv.Itoa(k)
}

// warnings collects the messages a result carries.
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

// schemaKind reports the kind of a schema column.
func schemaKind(name string) (ledger.Kind, bool) {
	c, ok := ledger.LookupColumn(name)
	return c.Kind, ok
}

// scan is the engine's one scan: it streams the query's ledgers through
// --where and calls add with each episode kept and its row (0-based, among
// all read). Only columns, outcome, weight and the columns --where names
// are decoded (Parquet); extra (user) columns are named too, so the reader
// keeps them. Errors name the file, the row or episode, or an unknown
// column with close matches; a ledger without episodes, or with none kept,
// is an error. It returns the number of episodes read. add must copy what
// it needs: the reader decodes every row into the same Episode.
func (q *Query) scan(columns []string, outcome, weight string, add func(r frame.Row, row int64) error) (read int64, err error) {
	if q.Frame != nil {
		return 0, specf("Query.Frame: this analysis reads episodes, not a built frame")
	}
	if len(q.Inputs) == 0 && q.Episodes == nil && q.Rows == nil && q.Data == nil {
		return 0, specf("no input: a query needs at least one ledger")
	}
	where, err := formula.ParseWhere(q.Where)
	if err != nil {
		return 0, fieldErr("Where", "{Where}: %v", err)
	}
	if err := where.Check(schemaKind); err != nil {
		return 0, fieldErr("Where", "{Where}: %v", err)
	}
	cols := neededColumns(slices.Concat(columns, where.Columns(), []string{outcome, weight}))
	var kept int64
	first := true
	opt := q.readOptions(cols)
	err = q.each(opt, func(ep frame.Row) error {
		read++
		if first {
			first = false
			if err := frame.CheckColumns(ep, where.Columns()); err != nil {
				return fieldtext.New("Where", "{Where}: %w", err)
			}
		}
		ok, err := where.Keep(ep)
		if err != nil {
			// Placed by the reader (or each) at the row's file and line.
			fe := fieldtext.New("Where", "{Where}: %w", err)
			return ledger.Problem{Msg: fe.Error(), Err: fe}
		}
		if !ok {
			return nil
		}
		kept++
		return add(ep, read-1)
	})
	if err != nil {
		var pr ledger.Problem
		if errors.As(err, &pr) && pr.Msg == "no such column" && pr.Line == 0 && slices.Contains(cols, pr.Field) {
			file := pr.File
			if file == "" {
				file = q.name()
			}
			return read, q.unknownColumn(file, pr.Field)
		}
		return read, err
	}
	if read == 0 {
		return read, fmt.Errorf("%s: the ledger has no episodes", q.name())
	}
	if kept == 0 {
		return read, q.noMatch(where, read)
	}
	return read, nil
}

// noMatch is the error for a --where that keeps none of the read
// episodes. When it compares a column only with levels (==, in) that are
// not values of that column, it says so, with some of the values there
// are, and, when they are all numbers, how to compare them as numbers: a
// level of a text column that looks numeric ("03" where the ledger has
// 3) would otherwise pass for an empty selection. A column one of whose
// levels is there is not named (experiment in ("E1", "E1s") on a ledger
// of E1 did not select nothing because of E1s). The values are read
// here, after the scan, only on this error path.
func (q *Query) noMatch(where *formula.Where, read int64) error {
	noMatch := func(more string) error {
		return fieldtext.New("Where", "%s: no episode matches {Where} %q (%d read)%s", q.name(), q.Where, read, more)
	}
	var levels []formula.Level
	var cols []string
	for _, l := range where.Levels() {
		if !slices.Contains(levels, l) {
			levels = append(levels, l)
		}
		if !slices.Contains(cols, l.Column) {
			cols = append(cols, l.Column)
		}
	}
	if len(levels) == 0 {
		return noMatch("")
	}
	const most = 1000 // distinct values kept per column: enough to list a few and to tell numbers
	values := make([]map[string]bool, len(cols))
	for j := range values {
		values[j] = map[string]bool{}
	}
	err := q.each(q.readOptions(cols), func(r frame.Row) error {
		for j, c := range cols {
			if v, ok := r.Get(c); ok && !v.Null && len(values[j]) < most {
				values[j][v.String()] = true
			}
		}
		return nil
	})
	if err != nil {
		return noMatch("") // the scan read these rows: not expected
	}
	for j, c := range cols {
		have := values[j]
		var missing, named []string
		found := false
		for _, l := range levels {
			if l.Column == c {
				found = found || have[l.Value]
				named = append(named, l.Value)
				missing = append(missing, strconv.Quote(l.Value))
			}
		}
		if found || len(have) == 0 || len(have) >= most {
			continue // there, or not read, or too many values to tell
		}
		what := "no value " + missing[0]
		if len(missing) > 1 {
			what = "none of the values " + strings.Join(missing, ", ")
		}
		return noMatch(fmt.Sprintf(": column %s has %s (%s)", c, what, valuesHint(c, named, have)))
	}
	return noMatch("")
}

// valuesHint lists a few of the values a column has, sorted (numerically
// when they are all numbers), and, when they are numbers and one of them
// is the level's number ("3" for "03"), how to compare the level as one.
func valuesHint(col string, levels []string, have map[string]bool) string {
	vals := slices.Collect(maps.Keys(have))
	numeric := true
	for _, v := range vals {
		if _, err := strconv.ParseFloat(v, 64); err != nil {
			numeric = false
			break
		}
	}
	if numeric {
		slices.SortFunc(vals, func(a, b string) int {
			x, _ := strconv.ParseFloat(a, 64)
			y, _ := strconv.ParseFloat(b, 64)
			return cmp.Compare(x, y)
		})
	} else {
		slices.Sort(vals)
	}
	const shown = 8
	list := strings.Join(vals[:min(len(vals), shown)], ", ")
	if len(vals) > shown {
		list += fmt.Sprintf(", … (%d values)", len(vals))
	}
	if !numeric {
		return "values: " + list
	}
	hint := "values, all numbers: " + list
	for _, l := range levels {
		x, err := strconv.ParseFloat(l, 64)
		if err != nil {
			continue
		}
		for _, v := range vals {
			if y, _ := strconv.ParseFloat(v, 64); y == x {
				return hint + fmt.Sprintf("; to compare as numbers, write %s == %s without quotes", col, strconv.FormatFloat(x, 'g', -1, 64))
			}
		}
	}
	return hint
}

// readOptions are the ledger options of a scan decoding cols.
func (q *Query) readOptions(cols []string) ledger.ReadOptions {
	warn := q.Warn
	if warn == nil {
		warn = func(ledger.Problem) {}
	}
	return ledger.ReadOptions{
		Format:  q.Format,
		Columns: cols,
		Grader:  q.Grader,
		Strict:  q.Strict,
		Warn:    warn,
		// add copies the values it needs (frames, pairings), so one
		// Episode is decoded into again and again.
		Reuse: true,
	}
}

// neededColumns drops empty and repeated names, keeping the first order.
func neededColumns(need []string) []string {
	var cols []string
	for _, c := range need {
		if c != "" && !slices.Contains(cols, c) {
			cols = append(cols, c)
		}
	}
	return cols
}

// unknownColumn names a column the ledger in lacks, with close matches
// among the columns of its first episode.
func (q *Query) unknownColumn(in, name string) error {
	// Read only the columns the file has: a user's CSV need not carry the
	// whole schema.
	have, err := ledger.FileColumns(in, q.Format)
	if err != nil {
		return err
	}
	if have != nil { // CSV or Parquet: suggest only columns the file has
		return fmt.Errorf("%s: %w", in, &frame.UnknownColumnError{Name: name, Similar: frame.Similar(name, have)})
	}
	var first *ledger.Episode
	errStop := errors.New("stop")
	err = ledger.ReadEpisodes(in, ledger.ReadOptions{Format: q.Format, Columns: have, Grader: q.Grader}, func(ep *ledger.Episode) error {
		first = ep
		return errStop
	})
	if first == nil {
		if err != nil && err != errStop {
			return err
		}
		return fmt.Errorf("%s: unknown column %q", in, name)
	}
	return fmt.Errorf("%s: %w", in, frame.CheckColumns(first, []string{name}))
}

// hasColumn reports whether every input has column col; JSONL ledgers
// carry the whole schema, so only CSV and Parquet can lack it.
func (q *Query) hasColumn(col string) (bool, error) {
	for _, in := range q.Inputs {
		have, err := ledger.FileColumns(in, q.Format)
		if err != nil {
			return false, err
		}
		if have != nil && !slices.Contains(have, col) {
			return false, nil
		}
	}
	return true, nil
}

// readFrame streams the query through --where into a frame built by spec.
// It returns an error naming the input when nothing is left.
func (q *Query) readFrame(spec frame.Spec, w *warnings) (*frame.Frame, error) {
	if q.Frame != nil {
		return q.builtFrame(spec)
	}
	fr, err := q.frameColumns(spec)
	if err == errRowPath {
		fr, err = q.frameRows(spec)
	}
	if err != nil {
		return nil, err
	}
	for _, c := range slices.Sorted(maps.Keys(fr.Dropped)) {
		w.addf("%d row(s) with a missing %s left out", fr.Dropped[c], c)
	}
	if fr.Len() == 0 {
		return nil, fmt.Errorf("%s: no episode left after dropping rows with missing values", q.name())
	}
	return fr, nil
}

// builtFrame is q.Frame as the frame of spec: it must carry the spec's
// columns, its outcome and, when the spec is weighted, weights.
func (q *Query) builtFrame(spec frame.Spec) (*frame.Frame, error) {
	fr := q.Frame
	switch {
	case len(q.Inputs) > 0 || q.Episodes != nil || q.Rows != nil || q.Data != nil:
		return nil, specf("Query.Frame is a source of its own: Inputs, Episodes, Rows and Data must be empty")
	case q.Where != "":
		return nil, fieldErr("Where", "Query.Frame: {Where} %q cannot filter a built frame (leave the rows out when building it)", q.Where)
	case !spec.Collapse || spec.CollapseLimit != 0:
		return nil, specf("Query.Frame: this analysis reads episodes, not a built frame")
	case spec.Outcome != "" && !fr.HasOutcome:
		return nil, specf("Query.Frame has no outcome (build it with Spec.Outcome %s)", spec.Outcome)
	case spec.Weight != "" && !fr.HasWeight:
		return nil, specf("Query.Frame has no weights (build it with Spec.Weight %s)", spec.Weight)
	}
	for _, c := range spec.Columns {
		if fr.Col(c) == nil {
			var have []string
			for _, col := range fr.Cols {
				have = append(have, col.Name)
			}
			return nil, &SpecError{Err: fmt.Errorf("Query.Frame: %w", &frame.UnknownColumnError{Name: c, Similar: frame.Similar(c, have)})}
		}
	}
	if fr.Len() == 0 {
		return nil, errors.New("Query.Frame has no rows")
	}
	if err := frame.CheckRows(fr, spec.Check); err != nil {
		return nil, fmt.Errorf("Query.Frame: %w", err)
	}
	return fr, nil
}

// frameRows builds the frame of spec by the row path.
func (q *Query) frameRows(spec frame.Spec) (*frame.Frame, error) {
	b := frame.NewBuilder(spec)
	if _, err := q.scan(spec.Columns, spec.Outcome, spec.Weight, func(r frame.Row, _ int64) error { return b.Add(r) }); err != nil {
		return nil, err
	}
	return b.Frame(), nil
}

// checkWeights fails when every weight is zero (nothing can be estimated).
func checkWeights(fr *frame.Frame, col string) error {
	if !fr.HasWeight {
		return nil
	}
	if fr.Total().SumW == 0 {
		return fieldtext.New("Weight", "all weights (%s) are zero after {Where}; nothing can be estimated (use {Weight} none to ignore them)", col)
	}
	return nil
}

// checkOutcome fails when the outcome is constant: no model can be fitted.
func checkOutcome(fr *frame.Frame, outcome string) error {
	t := fr.Total()
	switch t.Events {
	case 0:
		return fieldtext.New("Outcome", "outcome %s is always false (0 of %d rows after {Where}); nothing to fit", outcome, t.N)
	case t.N:
		return fieldtext.New("Outcome", "outcome %s is always true (%d of %d rows after {Where}); nothing to fit", outcome, t.N, t.N)
	}
	return nil
}

// dataLen is the number of rows of q.Data the query reads.
func (q *Query) dataLen() int {
	if q.Subset != nil {
		return len(q.Subset)
	}
	return q.Data.Len()
}

// dataRow is the k-th row of q.Data the query reads.
func (q *Query) dataRow(k int) int32 {
	if q.Subset != nil {
		return q.Subset[k]
	}
	return int32(k)
}
