package ledger

import (
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ReadOptions controls ReadEpisodes and ReadRaw.
type ReadOptions struct {
	// Format is "jsonl", "csv" or "parquet"; "" picks it from the file's
	// extension (.jsonl or .ndjson, .csv, .parquet).
	Format string
	// Columns lists the episode columns the caller needs; nil means all.
	// Parquet decodes only these plus the columns their checks need
	// (eos needs task_success and duplicated); the other fields of the
	// episodes passed to fn are zero. Episode ids are read and checked
	// unique whatever Columns says, when the file has the column;
	// references from the calls and effects siblings are checked only
	// when every column is read.
	Columns []string
	// Grader grades raw JSONL lines (those with calls or effects). With a
	// nil Grader a raw line is an error saying grading needs a grader.
	Grader Grader
	// Strict turns plausibility warnings and extra CSV columns into errors.
	Strict bool
	// Warn receives warnings; nil discards them.
	Warn func(Problem)
	// Errors, when set, receives every row-level error and reading goes on
	// with the next row (the bad row is not passed to fn). ReadEpisodes
	// then returns only errors that stop the file as a whole: unreadable
	// files, missing columns, a failing fn. Used by validate to report
	// every problem.
	Errors func(Problem)
	// Reuse lets the reader decode every row into the same Episode (and,
	// for JSONL, the same RawEpisode), so that reading allocates nothing
	// per row. fn must then not keep the pointers it is given, nor the
	// Extra map, past its return: copy what it needs (the writers do).
	// Without Reuse fn may keep them.
	Reuse bool

	// Set by readMulti for one file of a directory or glob: the id set
	// shared by all its files; fill, run on each decoded row before it is
	// validated, restores or checks the partition columns (appending its
	// problems to ps: a closure appending to the caller's slice would move
	// that slice to the heap on every row); absent are the
	// schema columns fill restores, which the file need not carry.
	// siblings are the file's calls and effects tables in the sibling
	// datasets of a partitioned export.
	ids      *idSet
	fill     func(e *Episode, ps []Problem) []Problem
	absent   colMask
	siblings [2]string
}

// newIDs returns the id set of a file: its own, or the one shared by the
// files of a directory or glob.
func (o *ReadOptions) newIDs() *idSet {
	if o.ids != nil {
		return o.ids
	}
	return newIDSet()
}

// episodeSlab is how many episodes are allocated at once when fn may keep
// them: one allocation per slab instead of one per row. An episode kept by
// fn keeps its slab (about 6 kB) alive (ReadEpisodes says so).
const episodeSlab = 16

// episodeAlloc hands out the Episode each row is decoded into: a fresh
// zero one, from a slab, or with Reuse the same one reset.
type episodeAlloc struct {
	reuse bool
	slab  []Episode
}

func (a *episodeAlloc) next() *Episode {
	if a.reuse {
		if a.slab == nil {
			a.slab = make([]Episode, 1)
		}
		e := &a.slab[0]
		x := e.Extra
		clear(x) // the same extra columns are set again on every row
		*e = Episode{Extra: x}
		return e
	}
	if len(a.slab) == 0 {
		a.slab = make([]Episode, episodeSlab)
	}
	e := &a.slab[0]
	a.slab = a.slab[1:]
	return e
}

// rawAlloc is episodeAlloc for raw JSONL lines.
type rawAlloc struct {
	reuse bool
	r     *RawEpisode
}

func (a *rawAlloc) next() *RawEpisode {
	if !a.reuse || a.r == nil {
		a.r = &RawEpisode{}
		return a.r
	}
	*a.r = RawEpisode{}
	return a.r
}

// errNeedsGrader is the message for a raw line read without a grader.
const errNeedsGrader = "raw episode (has calls/effects) needs a grader to derive its outcome columns; grade it first (limbo-analyze grade) or read it with a grader"

// formatOf resolves the ledger format of path.
func formatOf(path, format string) (string, error) {
	if format != "" {
		switch f := strings.ToLower(format); f {
		case "jsonl", "ndjson", "json":
			return "jsonl", nil
		case "csv", "parquet":
			return f, nil
		}
		return "", fmt.Errorf("unknown ledger format %q (want jsonl, csv or parquet)", format)
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson":
		return "jsonl", nil
	case ".csv":
		return "csv", nil
	case ".parquet":
		return "parquet", nil
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return "", errors.New("is a directory, not a ledger file")
	}
	return "", fmt.Errorf("cannot tell the ledger format from the extension %q (want .jsonl, .ndjson, .csv or .parquet, or give a format)", filepath.Ext(path))
}

// openLedger opens path for reading and rejects directories and other
// non-regular files with a Problem naming the file.
func openLedger(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, Problem{File: path, Msg: "no such file"}
	}
	if err != nil {
		return nil, Problem{File: path, Msg: errMsg(err)}
	}
	if fi.IsDir() {
		return nil, Problem{File: path, Msg: "is a directory, not a ledger file"}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, Problem{File: path, Msg: errMsg(err)}
	}
	return f, nil
}

// errMsg strips the path that os errors repeat.
func errMsg(err error) string {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Op + ": " + pe.Err.Error()
	}
	return err.Error()
}

// ReadEpisodes streams the graded episodes of the ledger at path to fn,
// validating each row (Validate) and the file as a whole (unique
// episode_id; for Parquet, calls and effects in the sibling files refer to
// known episodes). It returns the first error as a Problem naming file,
// line (or row) and field, or the error fn returned. Memory does not grow
// with the file, except 12 bytes per episode for the duplicate check.
//
// fn may keep the *Episode it is given unless opt.Reuse is set. Episodes
// are allocated 16 at a time, so a kept one keeps the memory of up to 15
// others alive: a caller that keeps a sparse subset of a large file
// should keep copies (c := *e).
//
// path may also be a directory (such as one written by export
// --partition-by) or a glob, read as one ledger: its files in the order of
// ExpandInput, episode ids unique across them, each row's partition
// directories (col=value) checked against its columns, or restored into a
// column the file lacks with the column's schema type. Errors name the file
// and line.
func ReadEpisodes(path string, opt ReadOptions, fn func(*Episode) error) error {
	if multiInput(path) {
		return readMulti(path, opt, func(p string, o ReadOptions) error { return ReadEpisodes(p, o, fn) })
	}
	format, err := formatOf(path, opt.Format)
	if err != nil {
		return Problem{File: path, Msg: err.Error()}
	}
	switch format {
	case "jsonl":
		return readJSONLEpisodes(path, opt, fn)
	case "csv":
		return readCSVEpisodes(path, opt, fn)
	default:
		return readParquetEpisodes(path, opt, fn)
	}
}

// ReadRaw streams the raw episodes of a JSONL ledger to fn, validating the
// design fields, calls, effects and final report. Lines without calls or
// effects (graded rows) are passed with empty Calls and Effects.
func ReadRaw(path string, opt ReadOptions, fn func(*RawEpisode) error) error {
	format, err := formatOf(path, opt.Format)
	if err != nil {
		return Problem{File: path, Msg: err.Error()}
	}
	if format != "jsonl" {
		return Problem{File: path, Msg: "raw episodes (calls and effects nested) are read from JSONL only; this is " + format}
	}
	return readJSONLRaw(path, opt, fn)
}

// reporter routes a file's problems: warnings to opt.Warn (errors under
// Strict), errors either to opt.Errors (reading goes on) or back to the
// caller (reading stops).
type reporter struct {
	file   string
	rows   bool // file is a table of rows (Parquet): problems say "row N"
	opt    *ReadOptions
	errors int // errors seen in the current row

	// buf collects a row's problems; collect appends to it. Both are
	// reused from row to row so that clean rows cost no allocation.
	buf     []Problem
	collect func(Problem)
	chk     checker
	strs    strCache // JSONL string values seen (decodeLine)
}

func newReporter(file string, opt *ReadOptions) *reporter {
	r := &reporter{file: file, opt: opt}
	r.collect = func(p Problem) { r.buf = append(r.buf, p) }
	return r
}

// add reports p for line; it returns a non-nil error when reading must
// stop.
func (r *reporter) add(line int, p Problem) error {
	p.File, p.Line, p.Row = r.file, line, r.rows
	if p.Warning && r.opt.Strict {
		p.Warning = false
		p = p.strict("%s (an error under {Strict})", p.Msg)
	}
	if p.Warning {
		if r.opt.Warn != nil {
			r.opt.Warn(p)
		}
		return nil
	}
	r.errors++
	if r.opt.Errors != nil {
		r.opt.Errors(p)
		return nil
	}
	return p
}

// locate returns an error fn returned for the row at line with that
// row's place when it has none (see Problem).
func (r *reporter) locate(line int, err error) error {
	return located(err, r.file, line, r.rows)
}

// row reports the problems of one row; bad is true if any was an error.
func (r *reporter) row(line int, ps []Problem) (bad bool, err error) {
	before := r.errors
	for _, p := range ps {
		if err := r.add(line, p); err != nil {
			return true, err
		}
	}
	return r.errors > before, nil
}

// idSet remembers episode ids by a 64-bit hash (8 bytes of key and 4 of
// line each), so that the duplicate check over millions of episodes stays
// small. A hash collision between two distinct ids (probability about
// n²/2⁶⁵: 3e-8 for a million episodes) would be reported as a duplicate.
// The files of a directory or glob share one set: lines are numbered on
// from one file to the next (base), so a line still names its file.
type idSet struct {
	seed maphash.Seed
	m    map[uint64]uint32
	// files and bases, for a set shared by several files: the file and the
	// number added to its lines; rows, whether it is a table of rows
	// (Parquet); last is the largest line of the current file.
	files []string
	bases []uint32
	rows  []bool
	last  uint32
}

func newIDSet() *idSet { return &idSet{seed: maphash.MakeSeed(), m: map[uint64]uint32{}} }

// startFile numbers the lines of the next file after those of the last;
// rows says that it is a table of rows (Parquet).
func (s *idSet) startFile(name string, rows bool) {
	base := uint32(0)
	if n := len(s.bases); n > 0 {
		base = s.bases[n-1] + s.last
	}
	s.files = append(s.files, name)
	s.bases = append(s.bases, base)
	s.rows = append(s.rows, rows)
	s.last = 0
}

// add records id at line and, if it was seen before, returns where:
// "line N" (or "row N" when rows says the file is a Parquet table) in the
// same file, "FILE:N" (or "FILE: row N") in another; else "".
func (s *idSet) add(id string, line int, rows bool) string {
	h := maphash.String(s.seed, id)
	if first, ok := s.m[h]; ok {
		if len(s.files) == 0 {
			return position(int(first), rows)
		}
		// The file is the last whose base is below first (lines start at 1).
		k, _ := slices.BinarySearch(s.bases, first)
		k--
		if k == len(s.files)-1 {
			return position(int(first-s.bases[k]), s.rows[k])
		}
		return filePosition(s.files[k], int(first-s.bases[k]), s.rows[k])
	}
	l := uint32(min(line, math.MaxUint32))
	s.last = max(s.last, l)
	if n := len(s.bases); n > 0 {
		l = min(s.bases[n-1]+l, math.MaxUint32)
	}
	s.m[h] = l
	return ""
}

func (s *idSet) has(id string) bool {
	_, ok := s.m[maphash.String(s.seed, id)]
	return ok
}

// checkEpisode validates a graded row and its id; ok is false if the row
// has errors.
func checkEpisode(rep *reporter, ids *idSet, line int, e *Episode, m colMask) (ok bool, err error) {
	rep.buf = rep.buf[:0]
	rep.chk.episode(e, m, rep.collect)
	if ids != nil && e.EpisodeID != "" {
		if first := ids.add(e.EpisodeID, line, rep.rows); first != "" {
			rep.buf = append(rep.buf, Problem{Field: "episode_id", Msg: "duplicate " + strconv.Quote(e.EpisodeID) + " (first on " + first + ")"})
		}
	}
	bad, err := rep.row(line, rep.buf)
	return !bad, err
}

// jsonlLines runs fn on each non-blank line of a JSONL file and reports an
// empty file.
func jsonlLines(path string, rep *reporter, fn func(line int, b []byte) error) error {
	f, err := openLedger(path)
	if err != nil {
		return err
	}
	defer f.Close()
	lr := newLineReader(f)
	n := 0
	for {
		b, err := lr.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return Problem{File: path, Line: lr.line, Msg: errMsg(err)}
		}
		if isBlank(b) {
			continue
		}
		n++
		if err := fn(lr.line, b); err != nil {
			return err
		}
	}
	if n == 0 {
		return Problem{File: path, Msg: "empty ledger: no episodes"}
	}
	return nil
}

// decodeRow decodes one line and reports decoding errors and warnings.
// ok is false if the line could not be decoded.
func decodeRow(rep *reporter, line int, b []byte, r *RawEpisode) (info lineInfo, ok bool, err error) {
	var ps []Problem
	info, derr := decodeLine(b, r, &rep.strs, func(field, msg string) {
		ps = append(ps, Problem{Field: field, Msg: msg, Warning: true})
	})
	if derr != nil {
		var fe *fieldError
		if errors.As(derr, &fe) {
			ps = append(ps, Problem{Field: fe.field, Msg: fe.msg})
		} else {
			ps = append(ps, Problem{Msg: derr.Error()})
		}
	}
	if derr == nil && rep.opt.Strict && len(info.extras) > 0 {
		ps = append(ps, Problem{Field: info.extras[0]}.strict(extraRejected, "field"))
	}
	bad, err := rep.row(line, ps)
	return info, !bad, err
}

// missingCols reports the schema columns of want absent from a line.
func missingCols(present, want colMask) []Problem {
	var ps []Problem
	for i, c := range EpisodeColumns {
		if want.has(i) && !present.has(i) {
			if c.Name == "platform" {
				continue // empty unless social; may be left out
			}
			ps = append(ps, Problem{Field: c.Name, Msg: "missing"})
		}
	}
	return ps
}

// ReadGraded is ReadEpisodes for JSONL ledgers that also hands fn the raw
// episode a row was graded from (nil for a graded line), so that export
// can write the calls and effects beside the episodes.
func ReadGraded(path string, opt ReadOptions, fn func(e *Episode, raw *RawEpisode) error) error {
	if multiInput(path) {
		return readMulti(path, opt, func(p string, o ReadOptions) error { return ReadGraded(p, o, fn) })
	}
	format, err := formatOf(path, opt.Format)
	if err != nil {
		return Problem{File: path, Msg: err.Error()}
	}
	if format != "jsonl" {
		return ReadEpisodes(path, opt, func(e *Episode) error { return fn(e, nil) })
	}
	return readJSONL(path, opt, fn)
}

func readJSONLEpisodes(path string, opt ReadOptions, fn func(*Episode) error) error {
	return readJSONL(path, opt, func(e *Episode, _ *RawEpisode) error { return fn(e) })
}

func readJSONL(path string, opt ReadOptions, fn func(*Episode, *RawEpisode) error) error {
	need := needCols(opt.Columns)
	return jsonlRecords(path, &opt, func(rep *reporter, ids *idSet, line int, r *RawEpisode, info lineInfo) error {
		e := &r.Episode
		if bad, err := fillRow(rep, line, e); err != nil || bad {
			return err
		}
		if info.raw {
			if bad, err := rep.row(line, missingCols(info.present, designCols&requiredSet)); err != nil || bad {
				return err
			}
			if bad, err := rep.row(line, ValidateRaw(r)); err != nil || bad {
				return err
			}
			grade := opt.Grader
			if r.Rules != nil {
				grade = GradeRules // the line's own rules decide
			}
			if grade == nil {
				return rep.add(line, Problem{Field: "calls", Msg: errNeedsGrader})
			}
			g, gerr := grade(r)
			if gerr != nil {
				return rep.add(line, Problem{Field: "(grader)", Msg: gerr.Error()})
			}
			if g.Extra == nil {
				g.Extra = r.Extra
			}
			if g.CostUSD == nil {
				g.CostUSD = r.CostUSD
			}
			e = &g
		} else if bad, err := rep.row(line, missingCols(info.present, requiredSet&maskOf(opt.Columns))); err != nil || bad {
			return err
		}
		// A graded line is checked on the columns the caller needs that it
		// has (opt.Columns), as CSV and Parquet are.
		m := need & (info.present | ^requiredSet)
		if info.raw {
			m = allCols &^ designCols // the design columns were checked before grading
		}
		if ok, err := checkEpisode(rep, ids, line, e, m); err != nil || !ok {
			return err
		}
		if !info.raw {
			r = nil
		}
		return rep.locate(line, fn(e, r))
	})
}

// fillRow runs the partition hook (ReadOptions.fill) on a decoded row.
func fillRow(rep *reporter, line int, e *Episode) (bad bool, err error) {
	if rep.opt.fill == nil {
		return false, nil
	}
	return rep.row(line, rep.opt.fill(e, nil))
}

// jsonlRecords decodes each line of a JSONL ledger into a raw episode and
// hands the lines that decode to fn, with the file's reporter and set of
// episode ids.
func jsonlRecords(path string, opt *ReadOptions, fn func(rep *reporter, ids *idSet, line int, r *RawEpisode, info lineInfo) error) error {
	rep := newReporter(path, opt)
	ids := opt.newIDs()
	alloc := rawAlloc{reuse: opt.Reuse}
	return jsonlLines(path, rep, func(line int, b []byte) error {
		r := alloc.next()
		info, ok, err := decodeRow(rep, line, b, r)
		if err != nil || !ok {
			return err
		}
		return fn(rep, ids, line, r, info)
	})
}

func readJSONLRaw(path string, opt ReadOptions, fn func(*RawEpisode) error) error {
	return jsonlRecords(path, &opt, func(rep *reporter, ids *idSet, line int, r *RawEpisode, info lineInfo) error {
		if bad, err := fillRow(rep, line, &r.Episode); err != nil || bad {
			return err
		}
		var ps []Problem
		m := allCols
		if info.raw {
			m = designCols
			ps = missingCols(info.present, designCols&requiredSet)
			if len(ps) == 0 {
				validateNested(r, func(p Problem) { ps = append(ps, p) })
			}
		} else {
			ps = missingCols(info.present, requiredSet)
		}
		if bad, err := rep.row(line, ps); err != nil || bad {
			return err
		}
		if ok, err := checkEpisode(rep, ids, line, &r.Episode, m); err != nil || !ok {
			return err
		}
		return rep.locate(line, fn(r))
	})
}
