package analysis

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Sources are the engine's lowest layer: a query reads its episodes from
// one source (ledger files, episodes or rows held in memory, a held Data),
// which hands them out as batches of consecutive rows, as columns when it
// has them (a Parquet ledger's column scan, a Data's columns) and as rows
// otherwise. Whatever a source cannot hand out as columns (a Parquet file
// the column scan does not decode, a column a Data cannot batch) it hands
// out as rows from where it stopped: a fallback never reaches the caller.
// On the sources sit, in order, the scan through Where (query.go), the
// consumers that collapse batches into frames and pairings (colscan.go,
// pairing.go) and the estimators; no layer calls up into one above it.

// batch is a run of consecutive rows of a source, valid during the call
// it is passed to.
type batch struct {
	n     int           // rows
	vec   *ledger.Batch // the rows as columns, in the order asked for; nil: rows only
	first int64         // rows the source handed out before this batch
	rowAt func(r int) frame.Row
	// place gives err, returned by a consumer about row r, the place the
	// row path gives it: the file and line (or row) of a ledger, the
	// episode of rows held in memory.
	place func(r int, err error) error
}

// row returns row r of the batch as a frame.Row (valid until the next call).
func (b *batch) row(r int) frame.Row { return b.rowAt(r) }

// A Source is where a query's episodes come from: ledger files (Files),
// episodes or rows held in memory (Episodes, Rows), the rows of a Data
// (Held), or a frame built by the caller (Built).
type Source interface {
	// name is how errors name the source.
	name() string
	// scan hands fn every row, in order, in batches holding the named
	// columns (each once); checked columns are validated as the row
	// reader validates them but need not be handed out. Errors name the
	// file, the row or the episode.
	scan(cols, checked []string, fn func(*batch) error) error
	// ids reads the episode ids again: want is called for every row in
	// order (0-based), and fn with the id of each row want kept, in
	// order. It returns the number of rows read.
	ids(want func(i int64) bool, fn func(id []byte)) (read int64, err error)
	// hasColumn reports whether the source has column col.
	hasColumn(col string) (bool, error)
}

// source returns the query's source (with the column batches turned off
// for a test that compares the two paths).
func (q *Query) source() (Source, error) {
	switch s := q.Source.(type) {
	case nil:
		return nil, specf("no input: a query needs at least one ledger")
	case *Files:
		if len(s.Paths) == 0 {
			return nil, specf("no input: a query needs at least one ledger")
		}
		if q.rowPath {
			c := *s
			c.rows = true
			return &c, nil
		}
	case *dataSource:
		if q.rowPath {
			c := *s
			c.rows = true
			return &c, nil
		}
	}
	return q.Source, nil
}

// Episodes is a Source of episodes (already validated) held in memory.
func Episodes(eps []*ledger.Episode) Source { return &heldSource{eps: eps} }

// Rows is a Source of rows of any kind held in memory.
func Rows(rows []frame.Row) Source { return &heldSource{rows: rows} }

// Held is a Source of the rows of d that subset names, in order (nil:
// every row). It is read by columns, with no value boxed per row: an
// analysis built on the engine (a study's tables, a preregistration with
// its derived columns, WithBools) runs the engine's analyses on the
// episodes it holds.
func Held(d *Data, subset []int32) Source { return &dataSource{d: d, subset: subset} }

// Built is a Source that is a frame itself, built by the caller with
// frame.Builder from rows it derived (an episode counted under several
// columns of a table, a recoded group, an outcome of its own): the query
// reads nothing and its Where must be empty. It is read by the analyses
// that read covariate patterns (Rates, TOST on independent arms, the
// logit Model, Shapley), which find their columns, outcome and weight in
// it: build it with Spec.Collapse and, weighted, with the Spec.Weight
// that Query.Weight names. An analysis that reads episodes or rows
// (Paired, paired TOST, GEE, GLMM) rejects it with a *SpecError.
func Built(fr *frame.Frame) Source { return &builtSource{fr} }

// builtSource is a frame built by the caller (Built).
type builtSource struct{ fr *frame.Frame }

// errBuilt is the error of an analysis that reads episodes from a frame.
func errBuilt() error { return specf("Query.Frame: this analysis reads episodes, not a built frame") }

func (s *builtSource) name() string                                      { return "Query.Frame" }
func (s *builtSource) scan([]string, []string, func(*batch) error) error { return errBuilt() }
func (s *builtSource) ids(func(int64) bool, func([]byte)) (int64, error) {
	return 0, errBuilt()
}
func (s *builtSource) hasColumn(col string) (bool, error) { return s.fr.Col(col) != nil, nil }

// isBuilt reports whether src is a frame built by the caller.
func isBuilt(src Source) bool {
	_, ok := src.(*builtSource)
	return ok
}

// Files is a Source of ledger files (JSONL, raw or graded, CSV or
// Parquet; each path is passed to the ledger readers as is), read in
// order as one ledger. A Parquet file is read by columns, row groups on
// every core (ledger.ScanParquet), until it meets anything the column
// scan does not decode, and from there by the row reader.
type Files struct {
	Paths  []string
	Format string // jsonl, csv or parquet; "" = from each file's extension
	Strict bool   // ledger plausibility warnings are errors
	// Grader grades raw JSONL lines on read (the toolkit's: sandbox.Grade).
	Grader ledger.Grader
	// Warn receives the ledger's plausibility warnings as they are read;
	// nil drops them.
	Warn func(ledger.Problem)
	rows bool // no column scan (tests compare the two paths)
}

func (s *Files) name() string { return strings.Join(s.Paths, ", ") }

// readOptions are the ledger options of a read decoding cols.
func (s *Files) readOptions(cols []string) ledger.ReadOptions {
	warn := s.Warn
	if warn == nil {
		warn = func(ledger.Problem) {}
	}
	return ledger.ReadOptions{
		Format:  s.Format,
		Columns: cols,
		Grader:  s.Grader,
		Strict:  s.Strict,
		Warn:    warn,
		// Consumers copy the values they keep (frames, pairings), so one
		// Episode is decoded into again and again.
		Reuse: true,
	}
}

// columnar reports whether file in may be read by the column scan.
func (s *Files) columnar(in string) bool {
	return !s.rows && (s.Format == "" || s.Format == "parquet") && strings.HasSuffix(strings.ToLower(in), ".parquet")
}

func (s *Files) scan(cols, checked []string, fn func(*batch) error) error {
	var read int64
	for _, in := range s.Paths {
		n, err := s.scanFile(in, read, cols, checked, fn)
		read += n
		if err != nil {
			return s.fileErr(in, neededColumns(slices.Concat(cols, checked)), err)
		}
	}
	return nil
}

// fileErr is err, from reading file in, as the row reader's caller gives
// it: a problem as it is (a column the file lacks with close matches),
// anything else prefixed with the file.
func (s *Files) fileErr(in string, cols []string, err error) error {
	var pr ledger.Problem
	if !errors.As(err, &pr) {
		return fmt.Errorf("%s: %w", in, err)
	}
	if pr.Msg == "no such column" && pr.Line == 0 && slices.Contains(cols, pr.Field) {
		file := pr.File
		if file == "" {
			file = in
		}
		return s.unknownColumn(file, pr.Field)
	}
	return err
}

// scanFile reads file in; base is the number of rows read before it. It
// returns the number of rows read.
func (s *Files) scanFile(in string, base int64, cols, checked []string, fn func(*batch) error) (int64, error) {
	var done int64 // rows handed out by the column scan
	if s.columnar(in) {
		var vr vecRow
		bt := batch{rowAt: func(r int) frame.Row { vr.r = r; return &vr }}
		err := ledger.ScanParquetChecked(in, cols, checked, func(b *ledger.Batch) error {
			at := done
			bt.n, bt.vec, bt.first = b.Rows, b, base+done
			vr.b = b
			bt.place = func(r int, err error) error {
				if p, ok := err.(ledger.Problem); ok && p.File == "" && p.Line == 0 {
					p.File, p.Line, p.Row = in, int(at)+r+1, true
					return p
				}
				return err
			}
			done += int64(b.Rows)
			return fn(&bt)
		})
		if !errors.Is(err, ledger.ErrRowScan) {
			return done, err
		}
	}
	// The row reader, from the row the column scan stopped at: the rows
	// before it were handed out already (they are read again, unhanded,
	// for the checks that span rows, such as unique episode ids).
	var k int64
	var cur frame.Row
	bt := batch{n: 1, rowAt: func(int) frame.Row { return cur },
		// The reader places fn's problems at the row's file and line.
		place: func(_ int, err error) error { return err }}
	opt := s.readOptions(neededColumns(slices.Concat(cols, checked)))
	// No columns named: whole episodes, which the consumer may keep.
	opt.Reuse = len(cols) > 0
	err := ledger.ReadEpisodes(in, opt, func(ep *ledger.Episode) error {
		k++
		if k <= done {
			return nil
		}
		cur, bt.first = ep, base+k-1
		return fn(&bt)
	})
	return max(k, done), err
}

func (s *Files) ids(want func(i int64) bool, fn func(id []byte)) (read int64, err error) {
	for _, in := range s.Paths {
		var done int64
		if s.columnar(in) {
			err := ledger.RescanParquet(in, []string{"episode_id"}, func(b *ledger.Batch) error {
				v := &b.Cols[0]
				for i := range b.Rows {
					if want(read + done + int64(i)) {
						if v.Dict != nil {
							fn([]byte(v.Dict[v.Codes[i]]))
						} else {
							fn(v.Bytes(i))
						}
					}
				}
				done += int64(b.Rows)
				return nil
			})
			if err == nil {
				read += done
				continue
			}
			if !errors.Is(err, ledger.ErrRowScan) {
				return read + done, err
			}
		}
		var k int64
		opt := ledger.ReadOptions{Format: s.Format, Columns: []string{"episode_id"}, Grader: s.Grader, Strict: s.Strict,
			Warn: func(ledger.Problem) {}}
		err := ledger.ReadEpisodes(in, opt, func(ep *ledger.Episode) error {
			k++
			if k > done && want(read+k-1) {
				v, _ := ep.Get("episode_id")
				fn([]byte(v.String()))
			}
			return nil
		})
		read += max(k, done)
		if err != nil {
			var pr ledger.Problem
			if errors.As(err, &pr) {
				return read, err
			}
			return read, fmt.Errorf("%s: %w", in, err)
		}
	}
	return read, nil
}

// hasColumn reports whether every input has column col; JSONL ledgers
// carry the whole schema, so only CSV and Parquet can lack it.
func (s *Files) hasColumn(col string) (bool, error) {
	for _, in := range s.Paths {
		have, err := ledger.FileColumns(in, s.Format)
		if err != nil {
			return false, err
		}
		if have != nil && !slices.Contains(have, col) {
			return false, nil
		}
	}
	return true, nil
}

// unknownColumn names a column the ledger in lacks, with close matches
// among the columns of its first episode.
func (s *Files) unknownColumn(in, name string) error {
	// Read only the columns the file has: a user's CSV need not carry the
	// whole schema.
	have, err := ledger.FileColumns(in, s.Format)
	if err != nil {
		return err
	}
	if have != nil { // CSV or Parquet: suggest only columns the file has
		return fmt.Errorf("%s: %w", in, &frame.UnknownColumnError{Name: name, Similar: frame.Similar(name, have)})
	}
	var first *ledger.Episode
	errStop := errors.New("stop")
	err = ledger.ReadEpisodes(in, ledger.ReadOptions{Format: s.Format, Columns: have, Grader: s.Grader}, func(ep *ledger.Episode) error {
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

// heldName is how errors name episodes held in memory.
const heldName = "the episodes"

// placeHeld gives err, returned about row r (the k-th read, 0-based) of
// episodes held in memory, its place: a problem without one names the
// row (rowLabel), and every error names the episodes.
func placeHeld(r frame.Row, k int64, err error) error {
	if err == nil {
		return nil
	}
	if p, ok := err.(ledger.Problem); ok && p.File == "" && p.Line == 0 {
		return fmt.Errorf("%s: %s: %w", heldName, rowLabel(r, k), err)
	}
	return fmt.Errorf("%s: %w", heldName, err)
}

// rowLabel names row r, the k-th (0-based) of episodes held in memory,
// in a message: by its episode_id when it has one, else by its index.
func rowLabel(r frame.Row, k int64) string {
	if v, ok := r.Get("episode_id"); ok && !v.Null && v.Str != "" {
		return "episode " + strconv.Quote(v.Str)
	}
	return "row " + strconv.FormatInt(k, 10)
}

// heldSource is episodes (already validated) and then rows of any kind,
// held by the caller; it hands them out one row a batch.
type heldSource struct {
	eps  []*ledger.Episode
	rows []frame.Row
}

func (s *heldSource) name() string { return heldName }

// each calls fn with every row and its index.
func (s *heldSource) each(fn func(r frame.Row, k int64) error) error {
	k := int64(0)
	for _, ep := range s.eps {
		if err := fn(ep, k); err != nil {
			return err
		}
		k++
	}
	for _, r := range s.rows {
		if err := fn(r, k); err != nil {
			return err
		}
		k++
	}
	return nil
}

func (s *heldSource) scan(_, _ []string, fn func(*batch) error) error {
	var cur frame.Row
	bt := batch{n: 1, rowAt: func(int) frame.Row { return cur }}
	bt.place = func(_ int, err error) error { return placeHeld(cur, bt.first, err) }
	return s.each(func(r frame.Row, k int64) error {
		cur, bt.first = r, k
		return fn(&bt)
	})
}

func (s *heldSource) ids(want func(i int64) bool, fn func(id []byte)) (read int64, err error) {
	err = s.each(func(r frame.Row, k int64) error {
		read++
		if want(k) {
			v, _ := r.Get("episode_id")
			fn([]byte(v.String()))
		}
		return nil
	})
	return read, err
}

func (s *heldSource) hasColumn(string) (bool, error) { return true, nil }

// dataSource is the rows subset names of a Data (nil: all), in order.
type dataSource struct {
	d      *Data
	subset []int32
	rows   bool // no column batches (tests compare the two paths)
}

func (s *dataSource) name() string { return heldName }

// len is the number of rows the source reads.
func (s *dataSource) len() int {
	if s.subset != nil {
		return len(s.subset)
	}
	return s.d.Len()
}

// at is the row of the Data that the source reads k-th.
func (s *dataSource) at(k int) int32 {
	if s.subset != nil {
		return s.subset[k]
	}
	return int32(k)
}

// dataChunk is how many rows of a Data make one batch.
const dataChunk = 1 << 16

func (s *dataSource) scan(cols, _ []string, fn func(*batch) error) error {
	// Checked columns are the episode ids, checked when the Data was read.
	if s.rows || !s.batchable(cols) {
		r := &rowPtr{row{d: s.d}}
		bt := batch{n: 1, rowAt: func(int) frame.Row { return r }}
		bt.place = func(_ int, err error) error { return placeHeld(r, bt.first, err) }
		for k := range s.len() {
			r.i, bt.first = s.at(k), int64(k)
			if err := fn(&bt); err != nil {
				return err
			}
		}
		return nil
	}
	n := s.len()
	b := &ledger.Batch{FileRows: int64(n), Cols: make([]ledger.Vec, len(cols))}
	for j, c := range cols {
		b.Cols[j].Name = c
	}
	vr := &vecRow{b: b}
	bt := batch{vec: b, rowAt: func(r int) frame.Row { vr.r = r; return vr }}
	bt.place = func(r int, err error) error {
		return placeHeld(&rowPtr{row{s.d, s.at(int(bt.first) + r)}}, bt.first+int64(r), err)
	}
	for lo := 0; lo < n; lo += dataChunk {
		hi := min(n, lo+dataChunk)
		s.fill(b, lo, hi)
		bt.n, bt.first = b.Rows, int64(lo)
		if err := fn(&bt); err != nil {
			return err
		}
	}
	return nil
}

// batchable reports whether every column can be handed out as the row
// path reads it: a schema column (but episode ids and missing costs), a
// derived one, or an extra column every row has without a null.
func (s *dataSource) batchable(cols []string) bool {
	d := s.d
	for _, c := range cols {
		if _, ok := d.derived[c]; ok {
			continue
		}
		sl, ok := slots[c]
		if !ok {
			x := d.extras[c]
			if x == nil {
				return false
			}
			for k := range s.len() {
				i := s.at(k)
				if !x.has.get(int(i)) || x.str(i) == "" {
					return false // absent or null: the row path names it
				}
			}
			continue
		}
		if sl.kind == ledger.KindFloat && sl.i == fCostUSD {
			cc := &d.floats[fCostUSD]
			if !cc.active() {
				return false
			}
			if cc.valid != nil {
				for k := range s.len() {
					if !cc.valid.get(int(s.at(k))) {
						return false
					}
				}
			}
		}
	}
	return true
}

// fill sets b to the rows lo..hi the source reads: string columns as the
// Data's dictionary and codes.
func (s *dataSource) fill(b *ledger.Batch, lo, hi int) {
	d := s.d
	b.Rows = hi - lo
	// The chunk's rows: ids, or lo..hi of d when the source reads all.
	var ids []int32
	if s.subset != nil {
		ids = s.subset[lo:hi]
	}
	for j := range b.Cols {
		v := &b.Cols[j]
		if set, ok := d.derived[v.Name]; ok {
			v.Kind = ledger.KindBool
			v.Bools = gatherBits(v.Bools[:0], set, lo, hi, ids)
			continue
		}
		sl, ok := slots[v.Name]
		if !ok {
			v.Kind = ledger.KindString
			v.Dict, v.Codes = d.extras[v.Name].gather(v.Codes[:0], lo, hi, ids)
			continue
		}
		v.Kind = sl.kind
		switch sl.kind {
		case ledger.KindString:
			v.Dict, v.Codes = d.strs[sl.i].gather(v.Codes[:0], lo, hi, ids)
		case ledger.KindInt:
			c := &d.ints[sl.i]
			v.Ints = v.Ints[:0]
			if ids == nil && c.c8 != nil {
				for _, x := range c.c8[lo:hi] {
					v.Ints = append(v.Ints, c.dict[x])
				}
				continue
			}
			for k := lo; k < hi; k++ {
				v.Ints = append(v.Ints, c.get(s.at(k)))
			}
		case ledger.KindFloat:
			c := &d.floats[sl.i]
			v.Floats = v.Floats[:0]
			if ids == nil && c.c8 != nil {
				for _, x := range c.c8[lo:hi] {
					v.Floats = append(v.Floats, c.dict[x])
				}
				continue
			}
			for k := lo; k < hi; k++ {
				v.Floats = append(v.Floats, c.get(s.at(k)))
			}
		default:
			v.Bools = gatherBits(v.Bools[:0], d.bools[sl.i].bits, lo, hi, ids)
		}
	}
}

func (s *dataSource) ids(want func(i int64) bool, fn func(id []byte)) (read int64, err error) {
	var rows []int32
	for k := range s.len() {
		read++
		if want(int64(k)) {
			rows = append(rows, s.at(k))
		}
	}
	ids, err := s.d.EpisodeIDs(rows)
	if err != nil {
		return read, err
	}
	for _, id := range ids {
		fn([]byte(id))
	}
	return read, nil
}

func (s *dataSource) hasColumn(string) (bool, error) { return true, nil }

// gatherBits appends the bits of rows lo..hi of set (ids, when set, name
// the rows).
func gatherBits(dst []bool, set bitset, lo, hi int, ids []int32) []bool {
	if ids != nil {
		for _, i := range ids {
			dst = append(dst, set.get(int(i)))
		}
		return dst
	}
	for i := lo; i < hi; i++ {
		dst = append(dst, set.get(i))
	}
	return dst
}

// gather appends the codes of rows lo..hi of c (ids, when set, name the
// rows) and returns c's dictionary with them; a column not read is "".
func (c *strCol) gather(dst []int32, lo, hi int, ids []int32) ([]string, []int32) {
	switch {
	case !c.active():
		for range hi - lo {
			dst = append(dst, 0)
		}
		return []string{""}, dst
	case ids != nil:
		for _, i := range ids {
			dst = append(dst, c.code(i))
		}
	case c.c32 != nil:
		dst = append(dst, c.c32[lo:hi]...)
	default:
		for _, x := range c.c8[lo:hi] {
			dst = append(dst, int32(x))
		}
	}
	return c.dict, dst
}
