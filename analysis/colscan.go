package analysis

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

// The column scan is the engine's fast path for Parquet ledgers: it reads
// only the columns a query uses, row groups on every core
// (ledger.ScanParquet), evaluates --where once per distinct combination
// of dictionary codes, and hands the kept rows of each batch to a
// consumer that counts on codes. Anything it does not cover (other input
// formats, extra columns that are not text, nulls, a value the row reader would warn about,
// a --where error) makes it give up before a result is returned, and the
// query is read again row by row: results and messages are always the row
// path's.

// errRowPath says that the column scan gave up; the row path takes over.
var errRowPath = errors.New("analysis: read by rows")

// columnar reports whether the query's inputs may be scanned by columns.
func (q *Query) columnar() bool {
	if q.fromData() {
		return !q.rowPath
	}
	if q.rowPath || len(q.Inputs) == 0 || (q.Format != "" && q.Format != "parquet") {
		return false
	}
	for _, in := range q.Inputs {
		if !strings.HasSuffix(strings.ToLower(in), ".parquet") {
			return false
		}
	}
	return true
}

// scanColumns streams the query's Parquet inputs through --where by
// columns: fn gets each batch and the rows of it that --where keeps (in
// row order), and the number of rows read before the batch. It returns
// errRowPath when the row path must take over (the consumer must then
// start again), and otherwise the errors scan returns for an empty
// selection.
func (q *Query) scanColumns(columns []string, fn func(b *ledger.Batch, kept []int32, before int64) error) (read int64, err error) {
	return q.scanColumnsChecked(columns, nil, fn)
}

// scanColumnsChecked is scanColumns that also reads the checked columns
// to validate them (ledger.ScanParquetChecked), without their values.
func (q *Query) scanColumnsChecked(columns, checked []string, fn func(b *ledger.Batch, kept []int32, before int64) error) (read int64, err error) {
	if !q.columnar() {
		return 0, errRowPath
	}
	where, err := formula.ParseWhere(q.Where)
	if err != nil {
		return 0, fieldErr("Where", "{Where}: %v", err)
	}
	if err := where.Check(schemaKind); err != nil {
		return 0, fieldErr("Where", "{Where}: %v", err)
	}
	// Names outside the schema are a user's extra columns, which
	// ledger.ScanParquet reads when the file has them as text (and
	// otherwise hands over to the row reader, which names what is wrong).
	wcols := where.Columns()
	cols := neededColumns(slices.Concat(columns, wcols))
	checked = slices.DeleteFunc(slices.Clone(checked), func(c string) bool { return slices.Contains(cols, c) })
	wpos := make([]int, len(wcols))
	for j, c := range wcols {
		wpos[j] = slices.Index(cols, c)
	}
	var kept int64
	var keep []int32
	ev := &whereEval{where: where, pos: wpos}
	batch := func(b *ledger.Batch) error {
		keep = keep[:0]
		var err error
		if keep, err = ev.rows(b, keep); err != nil {
			return err
		}
		kept += int64(len(keep))
		before := read
		read += int64(b.Rows)
		return fn(b, keep, before)
	}
	if q.fromData() {
		if err := q.dataBatches(cols, batch); err != nil {
			return read, err
		}
		if read == 0 {
			return read, fmt.Errorf("%s: the ledger has no episodes", q.name())
		}
	}
	for _, in := range q.Inputs {
		err := ledger.ScanParquetChecked(in, cols, checked, batch)
		if errors.Is(err, ledger.ErrRowScan) {
			return read, errRowPath
		}
		if err != nil {
			return read, err
		}
	}
	if kept == 0 {
		return read, q.noMatch(where, read)
	}
	return read, nil
}

// whereEval evaluates --where on a batch, once per distinct combination
// of the codes of its columns when they are all dictionary or boolean
// columns, else row by row.
type whereEval struct {
	where *formula.Where
	pos   []int // position of each --where column in the batch
	memo  []int8
	row   vecRow
}

// rows appends to keep the rows of b that --where keeps.
func (e *whereEval) rows(b *ledger.Batch, keep []int32) ([]int32, error) {
	if e.where.Empty() {
		for r := range b.Rows {
			keep = append(keep, int32(r))
		}
		return keep, nil
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
				return nil, err
			}
			if ok {
				keep = append(keep, int32(r))
			}
		}
		return keep, nil
	}
	if cap(e.memo) < size {
		e.memo = make([]int8, size)
	}
	memo := e.memo[:size]
	clear(memo)
	for r := range b.Rows {
		idx := 0
		for _, p := range e.pos {
			v := &b.Cols[p]
			if v.Dict != nil {
				idx = idx*len(v.Dict) + int(v.Codes[r])
			} else {
				idx *= 2
				if v.Bools[r] {
					idx++
				}
			}
		}
		m := memo[idx]
		if m == 0 {
			ok, err := e.keep(r)
			if err != nil {
				return nil, err
			}
			m = 2
			if ok {
				m = 1
			}
			memo[idx] = m
		}
		if m == 1 {
			keep = append(keep, int32(r))
		}
	}
	return keep, nil
}

// keep evaluates --where on row r; an error (which the row path reports
// with the row's name) hands over to the row path.
func (e *whereEval) keep(r int) (bool, error) {
	e.row.r = r
	ok, err := e.where.Keep(&e.row)
	if err != nil {
		return false, errRowPath
	}
	return ok, nil
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

// weightOf returns row r's weight from column c (nil: unit weights); ok is
// false for a weight the row path rejects (frame.Builder's message).
func weightOf(c *ledger.Vec, r int) (float64, bool) {
	switch {
	case c == nil:
		return 1, true
	case c.Floats != nil:
		return c.Floats[r], true // checked finite and ≥ 0 by the scan
	case c.Ints != nil:
		return float64(c.Ints[r]), c.Ints[r] >= 0
	case c.Bools != nil:
		if c.Bools[r] {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// outcomeOf returns row r's 0/1 outcome from column c; ok is false for a
// value the row path rejects.
func outcomeOf(c *ledger.Vec, r int) (float64, bool) {
	switch {
	case c.Bools != nil:
		if c.Bools[r] {
			return 1, true
		}
		return 0, true
	case c.Ints != nil:
		switch c.Ints[r] {
		case 0:
			return 0, true
		case 1:
			return 1, true
		}
	}
	return 0, false
}

// levelCoder interns a column's values of one batch into a frame column's
// levels, each distinct code once.
type levelCoder struct {
	c     *ledger.Vec
	local []int32 // dictionary code → level code, −1 not yet interned
	// A numeric column's local codes are its distinct values in the
	// batch (by their bits: -0 and 0 are distinct levels, as their texts
	// are), numbered as they come.
	numCode map[uint64]int32
	nums    []uint64
}

// reset binds the coder to column c of a new batch.
func (l *levelCoder) reset(c *ledger.Vec) {
	l.c = c
	n := 2
	switch {
	case c.Dict != nil:
		n = len(c.Dict)
	case c.Ints != nil || c.Floats != nil:
		n = 0
		if l.numCode == nil {
			l.numCode = map[uint64]int32{}
		}
		clear(l.numCode)
		l.nums = l.nums[:0]
	}
	if cap(l.local) < n {
		l.local = make([]int32, n)
	}
	l.local = l.local[:n]
	for i := range l.local {
		l.local[i] = -1
	}
}

// localCode returns row r's code in the batch (dictionary code, 0/1, or
// a number's position in order of appearance).
func (l *levelCoder) localCode(r int) int {
	if l.c.Dict != nil {
		return int(l.c.Codes[r])
	}
	if l.c.Ints != nil || l.c.Floats != nil {
		var x uint64
		if l.c.Ints != nil {
			x = uint64(l.c.Ints[r])
		} else {
			x = math.Float64bits(l.c.Floats[r])
		}
		k, ok := l.numCode[x]
		if !ok {
			k = int32(len(l.nums))
			l.numCode[x] = k
			l.nums = append(l.nums, x)
			l.local = append(l.local, -1)
		}
		return int(k)
	}
	if l.c.Bools[r] {
		return 1
	}
	return 0
}

// text returns the level text of local code k.
func (l *levelCoder) text(k int) string {
	if l.c.Dict != nil {
		return l.c.Dict[k]
	}
	// As ledger.Value.String.
	if l.c.Ints != nil {
		return strconv.FormatInt(int64(l.nums[k]), 10)
	}
	if l.c.Floats != nil {
		return strconv.FormatFloat(math.Float64frombits(l.nums[k]), 'g', -1, 64)
	}
	return strconv.FormatBool(k == 1)
}

// codable reports whether column c can be counted on codes.
func codable(c *ledger.Vec) bool {
	return c.Dict != nil || c.Bools != nil || c.Ints != nil || c.Floats != nil
}

// frameColumns builds a frame by the column scan; errRowPath when the row
// path must build it.
func (q *Query) frameColumns(spec frame.Spec) (*frame.Frame, error) {
	if !q.columnar() {
		return nil, errRowPath
	}
	for _, c := range slices.Concat(spec.Columns, []string{spec.Outcome}) {
		// Strings that are unique per row are not read as dictionaries;
		// numbers are counted on their values.
		if c == "episode_id" || c == "pair_key" {
			return nil, errRowPath
		}
	}
	cols := slices.Clone(spec.Columns)
	if spec.Outcome != "" {
		cols = append(cols, spec.Outcome)
	}
	if spec.Weight != "" {
		cols = append(cols, spec.Weight)
	}
	cols = neededColumns(cols)
	pos := make([]int, len(spec.Columns))
	for j, c := range spec.Columns {
		pos[j] = slices.Index(cols, c)
	}
	yPos, wPos := slices.Index(cols, spec.Outcome), slices.Index(cols, spec.Weight)
	b := frame.NewBuilder(spec)
	coders := make([]levelCoder, len(spec.Columns))
	codes := make([]int32, len(spec.Columns))
	var cellOf []int32 // by combination of batch codes, when StableCells
	_, err := q.scanColumns(cols, func(bt *ledger.Batch, kept []int32, _ int64) error {
		size := 1
		for j, p := range pos {
			c := &bt.Cols[p]
			if !codable(c) {
				return errRowPath
			}
			coders[j].reset(c)
			if c.Ints != nil || c.Floats != nil {
				size = -1 // codes known only as rows come: no memo
			}
			if size > 0 {
				size *= len(coders[j].local)
				if size > 1<<16 {
					size = -1
				}
			}
		}
		if !b.StableCells() {
			size = -1
		}
		if size > 0 {
			if cap(cellOf) < size {
				cellOf = make([]int32, size)
			}
			cellOf = cellOf[:size]
			for i := range cellOf {
				cellOf[i] = -1
			}
		}
		var yc, wc *ledger.Vec
		if yPos >= 0 {
			yc = &bt.Cols[yPos]
		}
		if wPos >= 0 {
			wc = &bt.Cols[wPos]
		}
		for _, r32 := range kept {
			r := int(r32)
			y, ok := 0.0, true
			if yc != nil {
				y, ok = outcomeOf(yc, r)
			}
			if !ok {
				return errRowPath
			}
			w, ok := weightOf(wc, r)
			if !ok {
				return errRowPath
			}
			idx := 0
			if size > 0 {
				for j := range coders {
					k := coders[j].localCode(r)
					idx = idx*len(coders[j].local) + k
				}
				if cellOf[idx] >= 0 {
					b.AddToCell(cellOf[idx], y, w)
					continue
				}
			}
			for j := range coders {
				l := &coders[j]
				k := l.localCode(r)
				if l.local[k] < 0 {
					l.local[k] = b.Intern(j, l.c.Kind, l.text(k))
				}
				codes[j] = l.local[k]
			}
			cell := b.AddCoded(codes, y, w)
			if size > 0 {
				cellOf[idx] = cell
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	fr := b.Frame()
	if frame.CheckRows(fr, spec.Check) != nil {
		// The row path names the file and line of the offending row.
		return nil, errRowPath
	}
	return fr, nil
}

// addColumns adds the kept rows of a batch as add adds rows; before is
// the number of rows read before the batch. errRowPath when a column is
// of a kind the column scan does not pair on.
func (r *pairReader) addColumns(b *ledger.Batch, kept []int32, before int64, pos []int, yPos, wPos int) error {
	r.first = false
	vecs := make([]*ledger.Vec, len(pos))
	for j, p := range pos {
		if p < 0 {
			continue // episode_id, only checked
		}
		v := &b.Cols[p]
		if v.Dict == nil && v.Offsets == nil && v.Bools == nil {
			return errRowPath
		}
		if j == r.armJ && v.Offsets != nil {
			return errRowPath
		}
		vecs[j] = v
		if !r.seen[j] {
			r.seen[j] = true
			r.kinds[j] = v.Kind
		}
	}
	yc := &b.Cols[yPos]
	var wc *ledger.Vec
	if wPos >= 0 {
		wc = &b.Cols[wPos]
	}
	var arm levelCoder
	arm.reset(vecs[r.armJ])
	if before == 0 && b.Rows > 0 {
		r.presize(int64(len(kept)) * b.FileRows / int64(b.Rows))
	}
	for _, r32 := range kept {
		i := int(r32)
		w, ok := weightOf(wc, i)
		if !ok {
			return errRowPath
		}
		y, ok := outcomeOf(yc, i)
		if !ok {
			return errRowPath
		}
		r.buf = r.buf[:0]
		for j := range r.nKey {
			r.buf = appendText(r.buf, vecs[j], i)
		}
		k := r.keys.id(r.buf)
		lc := arm.localCode(i)
		a := arm.local[lc]
		if a < 0 {
			s := arm.text(lc)
			var ok bool
			if a, ok = r.armIDs[s]; !ok {
				a = int32(len(r.armLvls))
				r.armIDs[s] = a
				r.armLvls = append(r.armLvls, s)
			}
			arm.local[lc] = a
		}
		r.event.set(len(r.key), y == 1)
		r.key = append(r.key, k)
		r.arm = append(r.arm, a)
		if r.spec.Weight != "" {
			r.w = append(r.w, w)
		}
		r.kept.set(int(before)+i, true)
		r.rows++
	}
	return nil
}

// appendText appends uvarint(len) and the text of row i of a string or
// boolean column, as pairReader encodes a key column.
func appendText(buf []byte, v *ledger.Vec, i int) []byte {
	switch {
	case v.Dict != nil:
		s := v.Dict[v.Codes[i]]
		return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
	case v.Offsets != nil:
		s := v.Bytes(i)
		return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
	}
	s := strconv.FormatBool(v.Bools[i])
	return append(binary.AppendUvarint(buf, uint64(len(s))), s...)
}

// pairColumns fills pr by the column scan; errRowPath when the row path
// must (pr is then to be discarded).
func (q *Query) pairColumns(pr *pairReader) (read int64, err error) {
	if !q.columnar() {
		return 0, errRowPath
	}
	// Episode ids order the episodes of a key and arm only when there
	// are several, which a second pass reads; this one only checks them
	// (unique, valid), unless they are also a pair-by or arm column.
	var checked []string
	cols := slices.Clone(pr.spec.Columns)
	if slices.Index(pr.names, "episode_id") > pr.armJ {
		cols = slices.DeleteFunc(cols, func(c string) bool { return c == "episode_id" })
		checked = []string{"episode_id"}
	}
	cols = append(cols, pr.spec.Outcome)
	if pr.spec.Weight != "" {
		cols = append(cols, pr.spec.Weight)
	}
	cols = neededColumns(cols)
	pos := make([]int, len(pr.names))
	for j, c := range pr.names {
		pos[j] = slices.Index(cols, c)
	}
	yPos, wPos := slices.Index(cols, pr.spec.Outcome), slices.Index(cols, pr.spec.Weight)
	return q.scanColumnsChecked(cols, checked, func(b *ledger.Batch, kept []int32, before int64) error {
		return pr.addColumns(b, kept, before, pos, yPos, wPos)
	})
}

// idsColumns reads the episode ids need marks (by index among the kept
// episodes) by the column scan; errRowPath when the row path must.
func (q *Query) idsColumns(pr *pairReader, need bitset, out *idArena) (read int64, err error) {
	if q.fromData() {
		return q.idsData(pr, need, out)
	}
	if !q.columnar() {
		return 0, errRowPath
	}
	row := int32(-1)
	for _, in := range q.Inputs {
		err := ledger.RescanParquet(in, []string{"episode_id"}, func(b *ledger.Batch) error {
			v := &b.Cols[0]
			if len(out.bytes) == 0 && v.Offsets != nil && b.Rows > 0 {
				// Room for the ids at the first batch's mean length and
				// some: growing by appends would copy them several times.
				mean := len(v.Data)/b.Rows + 1
				out.bytes = slices.Grow(out.bytes, cap(out.end)*mean*9/8)
			}
			for i := range b.Rows {
				read++
				if !pr.kept.get(int(read - 1)) {
					continue
				}
				row++
				if int(row) >= len(out.slot) {
					return errors.New("the ledger changed while it was read")
				}
				out.slot[row] = -1
				if need.get(int(row)) {
					out.slot[row] = int32(len(out.end))
					if v.Dict != nil {
						out.bytes = append(out.bytes, v.Dict[v.Codes[i]]...)
					} else {
						out.bytes = append(out.bytes, v.Bytes(i)...)
					}
					out.end = append(out.end, len(out.bytes))
				}
			}
			return nil
		})
		if errors.Is(err, ledger.ErrRowScan) {
			return read, errRowPath
		}
		if err != nil {
			return read, err
		}
	}
	return read, nil
}

// fromData reports whether the query reads a Data.
func (q *Query) fromData() bool {
	return len(q.Inputs) == 0 && q.Episodes == nil && q.Rows == nil && q.Data != nil
}

// dataChunk is how many rows of a Data make one batch.
const dataChunk = 1 << 16

// dataBatches hands the query's rows of q.Data to fn as batches of the
// named columns, the column scan's input: string columns as the Data's
// dictionary and codes. errRowPath for a column a batch cannot hold as
// the row path reads it (unknown, a null, episode ids).
func (q *Query) dataBatches(cols []string, fn func(*ledger.Batch) error) error {
	d := q.Data
	n := q.dataLen()
	b := &ledger.Batch{FileRows: int64(n), Cols: make([]ledger.Vec, len(cols))}
	for j, c := range cols {
		v := &b.Cols[j]
		v.Name = c
		if _, ok := d.derived[c]; ok {
			v.Kind = ledger.KindBool
			continue
		}
		s, ok := slots[c]
		if !ok {
			x := d.extras[c]
			if x == nil {
				return errRowPath
			}
			for k := range n {
				i := q.dataRow(k)
				if !x.has.get(int(i)) || x.str(i) == "" {
					return errRowPath // absent or null: the row path names it
				}
			}
			v.Kind = ledger.KindString
			continue
		}
		v.Kind = s.kind
		if s.kind == ledger.KindFloat && s.i == fCostUSD {
			if cc := &d.floats[fCostUSD]; !cc.active() {
				return errRowPath
			} else if cc.valid != nil {
				for k := range n {
					if !cc.valid.get(int(q.dataRow(k))) {
						return errRowPath
					}
				}
			}
		}
	}
	for lo := 0; lo < n; lo += dataChunk {
		hi := min(n, lo+dataChunk)
		b.Rows = hi - lo
		// The chunk's rows: ids, or lo..hi of d when the query reads all.
		var ids []int32
		if q.Subset != nil {
			ids = q.Subset[lo:hi]
		}
		for j := range b.Cols {
			v := &b.Cols[j]
			if set, ok := d.derived[v.Name]; ok {
				v.Bools = gatherBits(v.Bools[:0], set, lo, hi, ids)
				continue
			}
			s, ok := slots[v.Name]
			switch {
			case !ok:
				v.Dict, v.Codes = d.extras[v.Name].gather(v.Codes[:0], lo, hi, ids)
			case s.kind == ledger.KindString:
				v.Dict, v.Codes = d.strs[s.i].gather(v.Codes[:0], lo, hi, ids)
			case s.kind == ledger.KindInt:
				c := &d.ints[s.i]
				v.Ints = v.Ints[:0]
				if ids == nil && c.c8 != nil {
					for _, x := range c.c8[lo:hi] {
						v.Ints = append(v.Ints, c.dict[x])
					}
					continue
				}
				for k := lo; k < hi; k++ {
					v.Ints = append(v.Ints, c.get(q.dataRow(k)))
				}
			case s.kind == ledger.KindFloat:
				c := &d.floats[s.i]
				v.Floats = v.Floats[:0]
				if ids == nil && c.c8 != nil {
					for _, x := range c.c8[lo:hi] {
						v.Floats = append(v.Floats, c.dict[x])
					}
					continue
				}
				for k := lo; k < hi; k++ {
					v.Floats = append(v.Floats, c.get(q.dataRow(k)))
				}
			default:
				v.Bools = gatherBits(v.Bools[:0], d.bools[s.i].bits, lo, hi, ids)
			}
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	return nil
}

// idsData fills out with the episode ids need marks, for a query of a
// Data (see idsColumns).
func (q *Query) idsData(pr *pairReader, need bitset, out *idArena) (read int64, err error) {
	var rows []int32
	row := int32(-1)
	for k := range q.dataLen() {
		read++
		if !pr.kept.get(k) {
			continue
		}
		row++
		if int(row) >= len(out.slot) {
			return read, errors.New("the ledger changed while it was read")
		}
		out.slot[row] = -1
		if need.get(int(row)) {
			out.slot[row] = int32(len(rows))
			rows = append(rows, q.dataRow(k))
		}
	}
	ids, err := q.Data.EpisodeIDs(rows)
	if err != nil {
		return read, err
	}
	for _, id := range ids {
		out.bytes = append(out.bytes, id...)
		out.end = append(out.end, len(out.bytes))
	}
	return read, nil
}

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
