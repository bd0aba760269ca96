package ledger

import (
	"context"
	"errors"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// pqFile is an open Parquet file with its Arrow schema.
type pqFile struct {
	path   string
	f      *os.File
	pf     *file.Reader
	fr     *pqarrow.FileReader
	schema *arrow.Schema
}

func openPQ(path string) (_ *pqFile, err error) {
	f, err := openLedger(path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			f.Close() // a panic below left f open
		}
	}()
	defer parquetPanic(path, &err)
	pf, err := file.NewParquetReader(f)
	if err != nil {
		return nil, Problem{File: path, Msg: "not a readable Parquet file: " + err.Error()}
	}
	if err := checkArrowSchema(pf.MetaData().KeyValueMetadata()); err != nil {
		pf.Close()
		return nil, Problem{File: path, Msg: "not a readable Parquet file: its stored Arrow schema (" + arrowSchemaKey + " metadata) is damaged: " + err.Error()}
	}
	fr, err := pqarrow.NewFileReader(pf, pqarrow.ArrowReadProperties{BatchSize: rowGroupRows}, memory.DefaultAllocator)
	if err == nil {
		var s *arrow.Schema
		if s, err = fr.Schema(); err == nil {
			return &pqFile{path: path, f: f, pf: pf, fr: fr, schema: s}, nil
		}
	}
	pf.Close()
	return nil, Problem{File: path, Msg: "cannot read the Parquet schema: " + err.Error()}
}

func (p *pqFile) close() { p.pf.Close() } // closes the *os.File too

func (p *pqFile) meta(key string) string {
	if v := p.pf.MetaData().KeyValueMetadata().FindValue(key); v != nil {
		return *v
	}
	return ""
}

// pqCol is one column to read: its index among the file's top-level
// fields, and the setter that stores a cell into a row.
type pqCol struct {
	name  string
	field int
	kind  Kind
	extra bool
	dst   int // schema column index (or extra position)
	// nullOnly: a required column the caller did not ask for, read only
	// to reject its nulls (nullCols).
	nullOnly bool
}

// errNull is the message for a null in a required column: the same
// whether the column was asked for or only checked for nulls.
const errNull = "null in a required column"

// nullCols returns the columns of cand the file has whose chunks may hold
// a null, by the file's metadata: declared optional, with statistics that
// count nulls in some row group or do not say. A required column holds
// no null whether a command reads it or not; the metadata tells, at no
// cost, which columns a scan must also decode to find one. The toolkit
// declares its columns required, so that is none of them; in a file that
// writes null counts (DuckDB's), only those that hold a null.
func (p *pqFile) nullCols(cand colMask) (out colMask) {
	md := p.pf.MetaData()
	var optional colMask
	for i, c := range EpisodeColumns {
		if !cand.has(i) {
			continue
		}
		leaf := md.Schema.ColumnIndexByName(c.Name)
		if leaf >= 0 && md.Schema.Column(leaf).MaxDefinitionLevel() > 0 && p.schema.FieldIndices(c.Name) != nil {
			optional |= 1 << uint(i)
		}
	}
	defer func() {
		if recover() != nil {
			// arrow-go panics on some corrupt statistics: decode every
			// optional column, as if they said nothing (the row reader
			// reports what is wrong with the file).
			out = optional
		}
	}()
	for i, c := range EpisodeColumns {
		if !optional.has(i) {
			continue
		}
		leaf := md.Schema.ColumnIndexByName(c.Name)
		for g := range md.NumRowGroups() {
			cc, err := md.RowGroup(g).ColumnChunk(leaf)
			if err != nil {
				out |= 1 << uint(i)
				break
			}
			st, err := cc.Statistics()
			if err != nil || st == nil || !st.HasNullCount() || st.NullCount() > 0 {
				out |= 1 << uint(i)
				break
			}
		}
	}
	return out
}

// withNullChecks adds to plan (schema columns in schema order, then
// extras) the columns of nulls, read only to reject nulls, in schema
// order among the others so that a row's problems come in the same order
// whatever the caller reads.
func (p *pqFile) withNullChecks(plan []pqCol, nulls colMask) []pqCol {
	if nulls == 0 {
		return plan
	}
	for i, c := range EpisodeColumns {
		if nulls.has(i) {
			plan = append(plan, pqCol{name: c.Name, field: p.schema.FieldIndices(c.Name)[0], kind: c.Kind, dst: i, nullOnly: true})
		}
	}
	slices.SortStableFunc(plan, func(a, b pqCol) int {
		switch {
		case a.extra != b.extra:
			if a.extra {
				return 1
			}
			return -1
		case a.extra:
			return 0
		}
		return a.dst - b.dst
	})
	return plan
}

// kindAccepts says which Arrow types a ledger column accepts: a user's
// Parquet may store integers narrower, whole-number floats as integers
// (pandas writes weight=1 as int64) or strings as large strings.
func kindAccepts(k Kind, t arrow.DataType) bool {
	switch t.ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		return k == KindString
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.UINT8, arrow.UINT16, arrow.UINT32:
		return k == KindInt || k == KindFloat
	case arrow.FLOAT32, arrow.FLOAT64:
		return k == KindFloat
	case arrow.BOOL:
		return k == KindBool
	case arrow.DICTIONARY:
		return kindAccepts(k, t.(*arrow.DictionaryType).ValueType)
	}
	return false
}

var kindWant = map[Kind]string{KindString: "a string (UTF8)", KindInt: "an integer (INT64)", KindFloat: "a number (DOUBLE)", KindBool: "a boolean (BOOLEAN)"}

// plan matches the wanted schema columns (and, if withExtra, every other
// column as an extra string) against the file's fields.
func (p *pqFile) plan(cols []Column, want func(i int) bool, withExtra bool, table string) ([]pqCol, []string, error) {
	idx := map[string]int{}
	for j, f := range p.schema.Fields() {
		idx[f.Name] = j
	}
	var plan []pqCol
	var missing []string
	for i, c := range cols {
		if !want(i) {
			continue
		}
		j, ok := idx[c.Name]
		if !ok {
			if !c.Optional {
				missing = append(missing, c.Name)
			}
			continue
		}
		if t := p.schema.Field(j).Type; !kindAccepts(c.Kind, t) {
			return nil, nil, Problem{File: p.path, Field: c.Name, Msg: "column has type " + t.String() + ", want " + kindWant[c.Kind]}
		}
		plan = append(plan, pqCol{name: c.Name, field: j, kind: c.Kind, dst: i})
	}
	if len(missing) > 0 {
		msg := "missing required column"
		if len(missing) > 1 {
			msg += " (also missing: " + strings.Join(missing[1:], ", ") + ")"
		}
		if t := p.meta(MetaTable); t != "" && t != table {
			msg += "; this file is a LIMBO " + t + " table, not " + table
		} else {
			msg += "; is this a LIMBO " + table + " table?"
		}
		return nil, nil, Problem{File: p.path, Field: missing[0], Msg: msg}
	}
	var extras []string
	if withExtra {
		known := map[string]bool{}
		for _, c := range cols {
			known[c.Name] = true
		}
		for j, f := range p.schema.Fields() {
			if known[f.Name] {
				continue
			}
			switch f.Type.ID() {
			case arrow.STRUCT, arrow.LIST, arrow.LARGE_LIST, arrow.MAP, arrow.FIXED_SIZE_LIST:
				return nil, nil, Problem{File: p.path, Field: f.Name, Msg: "extra column has nested type " + f.Type.String() + "; extra columns must be scalars"}
			}
			plan = append(plan, pqCol{name: f.Name, field: j, extra: true, dst: len(extras)})
			extras = append(extras, f.Name)
		}
	}
	return plan, extras, nil
}

// leafIndices maps the plan's top-level fields to Parquet leaf columns
// (the same for the flat tables the ledger writes; nested extras were
// rejected by plan).
func (p *pqFile) leafIndices(plan []pqCol) []int {
	sc := p.pf.MetaData().Schema
	out := make([]int, 0, len(plan))
	for _, c := range plan {
		out = append(out, sc.ColumnIndexByName(c.name))
	}
	return out
}

// cell reads row r of array a as the ledger kind k. ok is false for a
// null; err describes a value that does not fit (a bool column holding 2).
type reader struct {
	str   func(r int) string
	i64   func(r int) int64
	f64   func(r int) float64
	isNul func(r int) bool
	// owned is set when str returns strings the reader already owns
	// (decoded dictionary values), which need no interning.
	owned bool
	// intern keeps one copy of repeated strings (models, conditions), so
	// that episodes a caller retains do not pin Arrow buffers.
	intern map[string]string
	// Typed fast paths for the arrays the ledger writes, which set uses
	// instead of the closures above: dictionary-decoded strings (dictIdx
	// indexes dictVals), int64, float64 and boolean columns; nulls is
	// false when the batch has none.
	dictIdx  []int32
	dictVals []string
	i64s     []int64
	f64s     []float64
	bools    *array.Boolean
	nulls    bool
}

func (rd *reader) internStr(s string) string {
	if v, ok := rd.intern[s]; ok {
		return v
	}
	v := strings.Clone(s)
	if len(rd.intern) < 4096 {
		rd.intern[v] = v
	}
	return v
}

// bind prepares typed access to a for the next batch.
func (rd *reader) bind(a arrow.Array) {
	rd.isNul, rd.nulls = noNulls, a.NullN() > 0
	if rd.nulls {
		rd.isNul = a.IsNull
	}
	rd.str, rd.i64, rd.f64, rd.owned = nil, nil, nil, false
	rd.dictIdx, rd.dictVals, rd.i64s, rd.f64s, rd.bools = nil, nil, nil, nil, nil
	if d, ok := a.(*array.Dictionary); ok {
		if sv, ok := d.Dictionary().(*array.String); ok {
			// Decode each dictionary value once per batch; rows then
			// index into it.
			vals := make([]string, sv.Len())
			for i := range vals {
				vals[i] = rd.internStr(sv.Value(i))
			}
			rd.str = func(r int) string { return vals[d.GetValueIndex(r)] }
			rd.owned = true
			if idx, ok := d.Indices().(*array.Int32); ok {
				rd.dictIdx, rd.dictVals = idx.Int32Values(), vals
			}
			return
		}
	}
	switch a := a.(type) {
	case *array.Int64:
		rd.i64s = a.Int64Values()
	case *array.Float64:
		rd.f64s = a.Float64Values()
	case *array.Boolean:
		rd.bools = a
	}
	switch a := a.(type) {
	case *array.String:
		rd.str = a.Value
	case *array.LargeString:
		rd.str = a.Value
	case *array.Dictionary:
		dict := a.Dictionary()
		inner := &reader{intern: rd.intern}
		inner.bind(dict)
		rd.str = func(r int) string { return inner.str(a.GetValueIndex(r)) }
		rd.i64 = func(r int) int64 { return inner.i64(a.GetValueIndex(r)) }
		rd.f64 = func(r int) float64 { return inner.f64(a.GetValueIndex(r)) }
		if inner.str == nil {
			rd.str = nil
		}
	case *array.Boolean:
		rd.i64 = func(r int) int64 {
			if a.Value(r) {
				return 1
			}
			return 0
		}
		rd.str = func(r int) string { return strconv.FormatBool(a.Value(r)) }
	case *array.Int64:
		rd.i64 = a.Value
	case *array.Int32:
		rd.i64 = func(r int) int64 { return int64(a.Value(r)) }
	case *array.Int16:
		rd.i64 = func(r int) int64 { return int64(a.Value(r)) }
	case *array.Int8:
		rd.i64 = func(r int) int64 { return int64(a.Value(r)) }
	case *array.Uint32:
		rd.i64 = func(r int) int64 { return int64(a.Value(r)) }
	case *array.Uint16:
		rd.i64 = func(r int) int64 { return int64(a.Value(r)) }
	case *array.Uint8:
		rd.i64 = func(r int) int64 { return int64(a.Value(r)) }
	case *array.Float64:
		rd.f64 = a.Value
	case *array.Float32:
		rd.f64 = func(r int) float64 { return float64(a.Value(r)) }
	default:
		// Other scalar types in extra columns: render with Arrow's own
		// formatting.
		rd.str = a.ValueStr
	}
	if rd.f64 == nil && rd.i64 != nil {
		i64 := rd.i64
		rd.f64 = func(r int) float64 { return float64(i64(r)) }
	}
	if rd.str == nil && rd.i64 != nil {
		i64 := rd.i64
		rd.str = func(r int) string { return strconv.FormatInt(i64(r), 10) }
	}
	if rd.str == nil && rd.f64 != nil {
		f64 := rd.f64
		rd.str = func(r int) string { return fmtFloat(f64(r)) }
	}
}

func noNulls(int) bool { return false }

// set stores row r into field ref f; it returns a problem message for a
// null in a required column or a non-0/1 integer in a boolean column.
func (rd *reader) set(r int, f fieldRef) string {
	if !rd.nulls {
		// The common case, without closures.
		switch {
		case rd.dictVals != nil && f.s != nil:
			*f.s = rd.dictVals[rd.dictIdx[r]]
			return ""
		case rd.f64s != nil && f.f != nil:
			*f.f = rd.f64s[r]
			return ""
		case rd.i64s != nil && f.i != nil:
			*f.i = rd.i64s[r]
			return ""
		case rd.bools != nil && f.b != nil:
			*f.b = rd.bools.Value(r)
			return ""
		}
	}
	if rd.isNul(r) {
		if f.opt != nil {
			*f.opt = nil
			return ""
		}
		return errNull
	}
	switch {
	case f.s != nil:
		if rd.owned {
			*f.s = rd.str(r)
		} else {
			*f.s = rd.internStr(rd.str(r))
		}
	case f.i != nil:
		*f.i = rd.i64(r)
	case f.f != nil:
		*f.f = rd.f64(r)
	case f.opt != nil:
		v := rd.f64(r)
		*f.opt = &v
	case f.b != nil:
		switch v := rd.i64(r); v {
		case 0, 1:
			*f.b = v == 1
		default:
			return "expected a boolean (true, false, 1 or 0), found " + strconv.FormatInt(v, 10)
		}
	}
	return ""
}

// scan streams the planned columns of p batch by batch; row is called
// with the 1-based row number and the readers bound to the current batch.
func (p *pqFile) scan(plan []pqCol, row func(n, r int, rds []reader) error) (err error) {
	defer parquetPanic(p.path, &err)
	if p.pf.NumRows() == 0 {
		return nil
	}
	// Read low-cardinality string columns as dictionaries, so that each
	// distinct value is decoded once per batch instead of once per row.
	props := pqarrow.ArrowReadProperties{BatchSize: readBatchRows}
	leaves := p.leafIndices(plan)
	for i, c := range plan {
		if c.kind == KindString && !c.extra && !highCardinality[c.name] {
			props.SetReadDict(leaves[i], true)
		}
	}
	fr, err := pqarrow.NewFileReader(p.pf, props, memory.DefaultAllocator)
	if err != nil {
		return Problem{File: p.path, Msg: "read: " + err.Error()}
	}
	rr, err := fr.GetRecordReader(context.Background(), leaves, nil)
	if err != nil {
		return Problem{File: p.path, Msg: "read: " + err.Error()}
	}
	defer rr.Release()
	rds := make([]reader, len(plan))
	for i := range rds {
		rds[i].intern = map[string]string{}
	}
	n := 0
	for rr.Next() {
		rec := rr.RecordBatch()
		for i := range plan {
			rds[i].bind(rec.Column(i))
		}
		for r := range int(rec.NumRows()) {
			n++
			if err := row(n, r, rds); err != nil {
				return err
			}
		}
	}
	if err := rr.Err(); err != nil {
		return Problem{File: p.path, Line: n + 1, Row: true, Msg: "read: " + err.Error()}
	}
	return nil
}

// readBatchRows is how many rows are decoded at a time: small enough that
// a batch of every column stays a few megabytes, large enough to amortise
// the per-batch work.
const readBatchRows = 16 * 1024

// highCardinality names string columns that are (nearly) unique per row,
// where a dictionary would not pay.
var highCardinality = map[string]bool{"episode_id": true, "pair_key": true, "args": true, "idempotency_key": true, "resource_id": true}

// needCols returns the schema columns to decode for opt.Columns: those
// asked for plus what their checks need. Episode identity is one of
// them whatever was asked: every read checks that episode ids are unique
// when the file has the column (docs/design.md, "Nothing doubled"), so
// that no analysis counts a row copied twice.
func needCols(columns []string) colMask {
	m := maskOf(columns)
	if columns == nil {
		return m
	}
	m |= 1 << colEpisodeID
	if m.has(colIndex["eos"]) {
		m |= maskOf([]string{"task_success", "duplicated"})
	}
	return m
}

// checkOnlyCols are the columns needCols adds for its checks: read when
// a file has them, never required.
var checkOnlyCols = []string{"episode_id", "task_success", "duplicated"}

func readParquetEpisodes(path string, opt ReadOptions, fn func(*Episode) error) error {
	p, err := openPQ(path)
	if err != nil {
		return err
	}
	defer p.close()
	m := needCols(opt.Columns)
	// Columns needed only for a check (episode_id; task_success and
	// duplicated for eos) are read when the file has them, not required.
	checkOnly := m &^ maskOf(opt.Columns)
	for i := range EpisodeColumns {
		if checkOnly.has(i) && p.schema.FieldIndices(EpisodeColumns[i].Name) == nil {
			m &^= 1 << uint(i)
		}
	}
	// A single file's ids only checked are not decoded when its
	// certificate vouches for them (idcert.go); the files of a directory
	// or glob share one set of ids, which must see every id.
	if checkOnly.has(colEpisodeID) && m.has(colEpisodeID) && opt.ids == nil && p.idsCertified() {
		m &^= 1 << colEpisodeID
	}
	wantExtra := opt.Columns == nil
	var extraWanted map[string]bool
	if !wantExtra {
		extraWanted = map[string]bool{}
		for _, c := range opt.Columns {
			if _, ok := colIndex[c]; !ok {
				extraWanted[c] = true
				wantExtra = true
			}
		}
	}
	// A sparse column the caller names is needed: a ledger without its
	// group cannot answer for it (zeros would be made up).
	if opt.Columns != nil {
		for i, c := range EpisodeColumns {
			if sparseCols.has(i) && maskOf(opt.Columns).has(i) && !opt.absent.has(i) && p.schema.FieldIndices(c.Name) == nil {
				return Problem{File: path, Field: c.Name, Msg: "missing column (needed for this analysis)"}
			}
		}
	}
	// Columns restored from a partition directory (opt.absent) are not
	// read from the file.
	plan, extras, err := p.plan(EpisodeColumns, func(i int) bool { return m.has(i) && !opt.absent.has(i) }, wantExtra, "episodes")
	if err != nil {
		var pr Problem
		if opt.Columns != nil && errors.As(err, &pr) && strings.HasPrefix(pr.Msg, "missing required column") {
			// A table of the user's own that lacks a column this analysis
			// uses, as the CSV reader says it.
			msg, _, _ := strings.Cut(pr.Msg, ";")
			pr.Msg = strings.Replace(msg, "missing required column", "missing column (needed for this analysis)", 1)
			return pr
		}
		return err
	}
	// Every required column the file has is checked for nulls, read or
	// not, so that every command rejects the same ledger with the same
	// message; only columns whose metadata admits a null are decoded.
	plan = p.withNullChecks(plan, p.nullCols(requiredSet&^m&^opt.absent))
	if extraWanted != nil {
		// Keep only the extra columns the caller named.
		plan = slices.DeleteFunc(plan, func(c pqCol) bool { return c.extra && !extraWanted[c.name] })
		for _, c := range opt.Columns {
			if _, ok := colIndex[c]; !ok && !slices.Contains(extras, c) {
				return Problem{File: path, Field: c, Msg: "no such column"}
			}
		}
	}
	if opt.Strict && opt.Columns == nil && len(extras) > 0 {
		return Problem{File: path, Field: extras[0]}.strict(extraRejected, "column")
	}
	if p.pf.NumRows() == 0 {
		return Problem{File: path, Msg: "empty ledger: no episodes"}
	}
	rep := newReporter(path, &opt)
	rep.rows = true
	var ids *idSet
	if m.has(colEpisodeID) {
		ids = opt.newIDs()
	}
	alloc := episodeAlloc{reuse: opt.Reuse}
	err = p.scan(plan, func(n, r int, rds []reader) error {
		e := alloc.next()
		var ps []Problem
		for i, c := range plan {
			rd := &rds[i]
			if c.nullOnly {
				if rd.nulls && rd.isNul(r) {
					ps = append(ps, Problem{Field: c.name, Msg: errNull})
				}
				continue
			}
			if c.extra {
				if e.Extra == nil {
					e.Extra = make(map[string]string, len(extras))
				}
				v := ""
				if !rd.isNul(r) {
					v = rd.internStr(rd.str(r))
				}
				e.Extra[c.name] = v
				continue
			}
			if msg := rd.set(r, e.ref(c.dst)); msg != "" {
				ps = append(ps, Problem{Field: c.name, Msg: msg})
			}
		}
		if opt.fill != nil {
			ps = opt.fill(e, ps)
		}
		if bad, err := rep.row(n, ps); err != nil || bad {
			return err
		}
		if ok, err := checkEpisode(rep, ids, n, e, m); err != nil || !ok {
			return err
		}
		return rep.locate(n, fn(e))
	})
	if err != nil || ids == nil || opt.Columns != nil {
		return err
	}
	// References: the calls and effects tables beside the episodes.
	callsPath, effectsPath := SiblingPaths(path)
	if opt.siblings[0] != "" || opt.siblings[1] != "" {
		callsPath, effectsPath = opt.siblings[0], opt.siblings[1]
	}
	if err := checkSibling(callsPath, CallColumns, "calls", &opt, ids, func(rds []reader, plan []pqCol, r int, add func(Problem)) {
		var c Call
		for i, pc := range plan {
			if msg := rds[i].set(r, c.ref(pc.dst)); msg != "" {
				add(Problem{Field: pc.name, Msg: msg})
			}
		}
		validateCall(&c, add)
		refCheck(ids, c.EpisodeID, add)
	}); err != nil {
		return err
	}
	return checkSibling(effectsPath, EffectColumns, "effects", &opt, ids, func(rds []reader, plan []pqCol, r int, add func(Problem)) {
		var x Effect
		for i, pc := range plan {
			if msg := rds[i].set(r, x.ref(pc.dst)); msg != "" {
				add(Problem{Field: pc.name, Msg: msg})
			}
		}
		validateEffect(&x, add)
		refCheck(ids, x.EpisodeID, add)
	})
}

func refCheck(ids *idSet, id string, add func(Problem)) {
	if id != "" && !ids.has(id) {
		add(Problem{Field: "episode_id", Msg: "unknown episode " + strconv.Quote(id) + " (not in the episode table)"})
	}
}

// checkSibling validates a calls or effects table beside an episode table,
// if there is one.
func checkSibling(path string, cols []Column, table string, opt *ReadOptions, ids *idSet, row func(rds []reader, plan []pqCol, r int, add func(Problem))) error {
	if path == "" {
		return nil
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return readSibling(path, cols, table, opt, func(rds []reader, plan []pqCol, r int, add func(Problem)) func() error {
		row(rds, plan, r, add)
		return nil
	})
}
