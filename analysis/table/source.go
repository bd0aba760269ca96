package table

import (
	"errors"
	"fmt"
	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Sources are the engine's lowest layer: an analysis reads its episodes
// from one source (ledger files, episodes or rows held in memory, the
// rows of a Data), which hands them out as batches of consecutive rows, as
// columns when it has them (a Parquet ledger's column scan, a Data's
// columns) and as rows otherwise. Whatever a source cannot hand out as
// columns (a Parquet file the column scan does not decode, a column a
// Data cannot batch) it hands out as rows from where it stopped: a
// fallback never reaches the caller. Filter runs a source through a
// --where expression; package analysis builds frames and pairings on it.

// Batch is a run of consecutive rows of a source, valid during the call
// it is passed to.
type Batch struct {
	N     int           // rows
	Vec   *ledger.Batch // the rows as columns, in the order asked for; nil: rows only
	First int64         // rows the source handed out before this batch
	// Lasting reports that Vec's dictionaries are the source's own and
	// do not change while it lives (a held Data's, the same in every
	// batch): a consumer may keep them beyond the call, as a frame does
	// (frame.Builder.Share). Everything else in a batch is valid during
	// the call only.
	Lasting bool
	rowAt   func(r int) frame.Row
	place   func(r int, err error) error
}

// Row returns row r of the batch as a frame.Row, valid until the next
// call of Row: a batch of columns answers Get from its columns only.
func (b *Batch) Row(r int) frame.Row { return b.rowAt(r) }

// Place gives err, returned by a consumer about row r, the place the row
// reader gives a row's errors: the file and line (or row) of a ledger,
// the episode of rows held in memory. A nil err stays nil.
func (b *Batch) Place(r int, err error) error {
	if err == nil {
		return nil
	}
	return b.place(r, err)
}

// A Source is where an analysis's episodes come from: ledger files
// (Files), episodes or rows held in memory (Episodes, Rows), or the rows
// of a Data (Held).
type Source interface {
	// Name is how errors name the source.
	Name() string
	// Scan hands fn every row, in order, in batches holding the named
	// columns (each once; none: whole rows); checked columns are
	// validated as the row reader validates them but need not be handed
	// out. Errors name the file, the row or the episode.
	Scan(cols, checked []string, fn func(*Batch) error) error
	// IDs reads the episode ids again: want is called for every row in
	// order (0-based), and fn with the id of each row want kept, in
	// order. It returns the number of rows read.
	IDs(want func(i int64) bool, fn func(id []byte)) (read int64, err error)
	// HasColumn reports whether the source has column col.
	HasColumn(col string) (bool, error)
}

// ByRows returns src handing out rows only, never columns: the row path,
// for a test that compares the two.
func ByRows(src Source) Source {
	switch s := src.(type) {
	case *Files:
		c := *s
		c.rows = true
		return &c
	case *dataSource:
		c := *s
		c.rows = true
		return &c
	}
	return src
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

func (s *Files) Name() string { return strings.Join(s.Paths, ", ") }

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

func (s *Files) Scan(cols, checked []string, fn func(*Batch) error) error {
	if err := s.checkAcross(); err != nil {
		return err
	}
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
func (s *Files) scanFile(in string, base int64, cols, checked []string, fn func(*Batch) error) (int64, error) {
	var done int64 // rows handed out by the column scan
	if s.columnar(in) {
		var vr vecRow
		bt := Batch{rowAt: func(r int) frame.Row { vr.r = r; return &vr }}
		err := ledger.ScanParquetChecked(in, cols, checked, func(b *ledger.Batch) error {
			at := done
			bt.N, bt.Vec, bt.First = b.Rows, b, base+done
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
	bt := Batch{N: 1, rowAt: func(int) frame.Row { return cur },
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
		cur, bt.First = ep, base+k-1
		return fn(&bt)
	})
	return max(k, done), err
}

func (s *Files) IDs(want func(i int64) bool, fn func(id []byte)) (read int64, err error) {
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
func (s *Files) HasColumn(col string) (bool, error) {
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
	eps   []*ledger.Episode
	rows  []frame.Row
	ident identity
}

func (s *heldSource) Name() string { return heldName }

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

func (s *heldSource) Scan(_, _ []string, fn func(*Batch) error) error {
	if err := s.checkIdentity(); err != nil {
		return err
	}
	var cur frame.Row
	bt := Batch{N: 1, rowAt: func(int) frame.Row { return cur }}
	bt.place = func(_ int, err error) error { return placeHeld(cur, bt.First, err) }
	return s.each(func(r frame.Row, k int64) error {
		cur, bt.First = r, k
		return fn(&bt)
	})
}

func (s *heldSource) IDs(want func(i int64) bool, fn func(id []byte)) (read int64, err error) {
	if err := s.checkIdentity(); err != nil {
		return 0, err
	}
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

func (s *heldSource) HasColumn(string) (bool, error) { return true, nil }

// dataSource is the rows subset names of a Data (nil: all), in order.
type dataSource struct {
	d      *Data
	subset []int32
	rows   bool // no column batches (tests compare the two paths)
}

func (s *dataSource) Name() string { return heldName }

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

func (s *dataSource) Scan(cols, _ []string, fn func(*Batch) error) error {
	// Checked columns are the episode ids, checked when the Data was read
	// or, for rows appended in code, here.
	if err := s.d.checkIdentity(); err != nil {
		return err
	}
	if s.rows || !s.batchable(cols) {
		r := &rowPtr{row{d: s.d}}
		bt := Batch{N: 1, rowAt: func(int) frame.Row { return r }}
		bt.place = func(_ int, err error) error { return placeHeld(r, bt.First, err) }
		for k := range s.len() {
			r.i, bt.First = s.at(k), int64(k)
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
	bt := Batch{Vec: b, Lasting: true, rowAt: func(r int) frame.Row { vr.r = r; return vr }}
	bt.place = func(r int, err error) error {
		return placeHeld(&rowPtr{row{s.d, s.at(int(bt.First) + r)}}, bt.First+int64(r), err)
	}
	for lo := 0; lo < n; lo += dataChunk {
		hi := min(n, lo+dataChunk)
		s.fill(b, lo, hi)
		bt.N, bt.First = b.Rows, int64(lo)
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
				if !x.has.get(int(i)) || x.Value(int(i)) == "" {
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
			v.Dict, v.Codes = d.extras[v.Name].AppendCodes(v.Codes[:0], lo, hi, ids)
			continue
		}
		v.Kind = sl.kind
		switch sl.kind {
		case ledger.KindString:
			v.Dict, v.Codes = d.strs[sl.i].AppendCodes(v.Codes[:0], lo, hi, ids)
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

func (s *dataSource) IDs(want func(i int64) bool, fn func(id []byte)) (read int64, err error) {
	if err := s.d.checkIdentity(); err != nil {
		return 0, err
	}
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

func (s *dataSource) HasColumn(string) (bool, error) { return true, nil }

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

// whereEval evaluates --where on a batch, once per distinct combination
// of the codes of its columns when they are all dictionary or boolean
// columns, else row by row.
type whereEval struct {
	where *formula.Where
	pos   []int // position of each --where column in the batch
	memo  []int8
	idx   []int32 // each row's index into memo
	row   vecRow
}

// rows appends to keep the rows of b that --where keeps; on an error of
// the expression, bad is the row that has it.
func (e *whereEval) rows(b *ledger.Batch, keep []int32) (_ []int32, bad int, err error) {
	if e.where.Empty() {
		for r := range b.Rows {
			keep = append(keep, int32(r))
		}
		return keep, 0, nil
	}
	e.row.b = b
	size := 1
	for _, p := range e.pos {
		v := &b.Cols[p]
		switch {
		case v.Dict != nil:
			size *= max(1, len(v.Dict))
		case v.Bools != nil:
			size *= 2
		default:
			size = -1
		}
		if size < 0 || size > 1<<16 {
			size = -1
			break
		}
	}
	if size < 0 {
		for r := range b.Rows {
			ok, err := e.keep(r)
			if err != nil {
				return nil, r, err
			}
			if ok {
				keep = append(keep, int32(r))
			}
		}
		return keep, 0, nil
	}
	if cap(e.memo) < size {
		e.memo = make([]int8, size)
	}
	memo := e.memo[:size]
	clear(memo)
	// Each row's combination of codes, a column at a time: tight loops
	// over one column's codes rather than a switch per column per row.
	if cap(e.idx) < b.Rows {
		e.idx = make([]int32, b.Rows)
	}
	idx := e.idx[:b.Rows]
	clear(idx)
	for _, p := range e.pos {
		v := &b.Cols[p]
		if v.Dict != nil {
			n := int32(len(v.Dict))
			for r, c := range v.Codes[:len(idx)] {
				idx[r] = idx[r]*n + c
			}
			continue
		}
		for r, x := range v.Bools[:len(idx)] {
			idx[r] *= 2
			if x {
				idx[r]++
			}
		}
	}
	for r, k := range idx {
		m := memo[k]
		if m == 0 {
			ok, err := e.keep(r)
			if err != nil {
				return nil, r, err
			}
			m = 2
			if ok {
				m = 1
			}
			memo[k] = m
		}
		if m == 1 {
			keep = append(keep, int32(r))
		}
	}
	return keep, 0, nil
}

// keep evaluates --where on row r.
func (e *whereEval) keep(r int) (bool, error) {
	e.row.r = r
	return e.where.Keep(&e.row)
}

// vecRow is row r of a batch as a frame.Row.
type vecRow struct {
	b *ledger.Batch
	r int
}

func (v *vecRow) Get(name string) (ledger.Value, bool) {
	for i := range v.b.Cols {
		if c := &v.b.Cols[i]; c.Name == name {
			return vecValue(c, v.r), true
		}
	}
	return ledger.Value{}, false
}

// vecValue returns row r of column c as the row reader's Value.
func vecValue(c *ledger.Vec, r int) ledger.Value {
	switch {
	case c.Dict != nil:
		return ledger.Value{Kind: ledger.KindString, Str: c.Dict[c.Codes[r]]}
	case c.Offsets != nil:
		return ledger.Value{Kind: ledger.KindString, Str: string(c.Bytes(r))}
	case c.Bools != nil:
		return ledger.Value{Kind: ledger.KindBool, Bool: c.Bools[r]}
	case c.Ints != nil:
		return ledger.Value{Kind: ledger.KindInt, Int: c.Ints[r]}
	case c.Floats != nil:
		return ledger.Value{Kind: ledger.KindFloat, Num: c.Floats[r]}
	}
	return ledger.Value{Kind: c.Kind} // an empty batch's column
}

// whereProblem is a row's --where evaluation error: a field error naming
// Where (a command renames it to its flag) that the batch places at the
// row's file and line.
func whereProblem(err error) ledger.Problem {
	fe := fieldtext.New("Where", "{Where}: %w", err)
	return ledger.Problem{Msg: fe.Error(), Err: fe}
}

// Filter streams src through where: fn gets each batch, holding cols
// (each once, first) and then the other columns where names, and the rows
// of it that where keeps, in row order (checked columns as Source.Scan).
// It returns the numbers of rows read and kept. where's columns are
// checked on the first row of rows (a column a source of columns lacks is
// the source's error); an error of where on a row is a problem at that
// row.
func Filter(src Source, where *formula.Where, cols, checked []string, fn func(b *Batch, kept []int32) error) (read, kept int64, err error) {
	wcols := where.Columns()
	all := neededColumns(slices.Concat(cols, wcols))
	checked = slices.DeleteFunc(slices.Clone(checked), func(c string) bool { return slices.Contains(all, c) })
	ev := &whereEval{where: where, pos: make([]int, len(wcols))}
	for j, c := range wcols {
		ev.pos[j] = slices.Index(all, c)
	}
	var keep []int32
	first := true
	err = src.Scan(all, checked, func(b *Batch) error {
		read += int64(b.N)
		keep = keep[:0]
		if b.Vec != nil {
			var bad int
			var err error
			if keep, bad, err = ev.rows(b.Vec, keep); err != nil {
				return b.Place(bad, whereProblem(err))
			}
		} else {
			for r := range b.N {
				row := b.Row(r)
				if first {
					first = false
					if err := frame.CheckColumns(row, wcols); err != nil {
						return b.Place(r, fieldtext.New("Where", "{Where}: %w", err))
					}
				}
				ok, err := where.Keep(row)
				if err != nil {
					return b.Place(r, whereProblem(err))
				}
				if ok {
					keep = append(keep, int32(r))
				}
			}
		}
		kept += int64(len(keep))
		return fn(b, keep)
	})
	return read, kept, err
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

// bitset is a growable set of small integers.
type bitset []uint64

func (b *bitset) set(i int, v bool) {
	for i>>6 >= len(*b) {
		*b = append(*b, 0)
	}
	if v {
		(*b)[i>>6] |= 1 << (i & 63)
	}
}

func (b bitset) get(i int) bool { return i>>6 < len(b) && b[i>>6]&(1<<(i&63)) != 0 }
