package ledger

import (
	"bufio"
	"errors"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// rowGroupRows is the number of rows buffered per Parquet row group: large
// enough for good compression and fast column reads, small enough that
// writing a million-row ledger stays in a few tens of megabytes.
const rowGroupRows = 64 * 1024

func arrowType(k Kind) arrow.DataType {
	switch k {
	case KindInt:
		return arrow.PrimitiveTypes.Int64
	case KindFloat:
		return arrow.PrimitiveTypes.Float64
	case KindBool:
		return arrow.FixedWidthTypes.Boolean
	}
	return arrow.BinaryTypes.String
}

// pqWriter streams rows into a Parquet file one row group at a time.
type pqWriter struct {
	a      *atomicFile
	bw     *bufio.Writer
	fw     *pqarrow.FileWriter
	schema *arrow.Schema
	bld    []array.Builder // per field; nil for a dictionary column
	dict   []*dictCol      // per field; non-nil for a dictionary column
	rows   int
	done   bool
	// lazy leaves the builders to grow with the rows instead of sizing
	// them for a whole row group up front: a partition file of a few rows
	// then costs kilobytes, not megabytes (PartitionedWriter).
	lazy bool
	// ids tallies an episode table's ids, certified on close when they
	// are valid and unique (idcert.go); nil for other tables.
	ids *idTally
}

// dictCol dictionary-encodes a string column of one row group itself: a
// Go map finds a value's index without allocating, where arrow-go's
// encoder, given plain strings, allocates for every value. The Parquet
// file is the same (a dictionary page, then the indices).
type dictCol struct {
	idx  map[string]int32
	vals *array.StringBuilder
	ids  *array.Int32Builder
	// The last value and its index: runs of one value skip the map.
	last  string
	lastI int32
}

var dictType = &arrow.DictionaryType{IndexType: arrow.PrimitiveTypes.Int32, ValueType: arrow.BinaryTypes.String}

func newDictCol() *dictCol {
	return &dictCol{
		idx:  map[string]int32{},
		vals: array.NewStringBuilder(memory.DefaultAllocator),
		ids:  array.NewInt32Builder(memory.DefaultAllocator),
	}
}

func (d *dictCol) Append(s string) {
	if len(d.idx) > 0 && s == d.last {
		d.ids.Append(d.lastI)
		return
	}
	i, ok := d.idx[s]
	if !ok {
		i = int32(len(d.idx))
		s = strings.Clone(s) // s may share a whole CSV record
		d.idx[s] = i
		d.vals.Append(s)
	}
	d.last, d.lastI = s, i
	d.ids.Append(i)
}

// newArray returns the row group's column and starts the next.
func (d *dictCol) newArray() arrow.Array {
	ids, vals := d.ids.NewArray(), d.vals.NewArray()
	defer ids.Release()
	defer vals.Release()
	clear(d.idx)
	return array.NewDictionaryArray(dictType, ids, vals)
}

func (d *dictCol) release() {
	d.vals.Release()
	d.ids.Release()
}

// dictionaryEncoded reports whether column c of table is written
// dictionary-encoded: strings except those nearly unique per row
// (highCardinality; episode_id only in the episodes table).
func dictionaryEncoded(table string, c Column) bool {
	return c.Kind == KindString && !(highCardinality[c.Name] && !(table != "episodes" && c.Name == "episode_id"))
}

// ParquetType names the Parquet type column c of table ("episodes",
// "calls" or "effects") is written as.
func ParquetType(table string, c Column) string {
	switch {
	case dictionaryEncoded(table, c):
		return "UTF8, dictionary"
	case c.Kind == KindString:
		return "UTF8"
	case c.Kind == KindInt:
		return "INT64"
	case c.Kind == KindFloat:
		return "DOUBLE"
	}
	return "BOOLEAN"
}

// columnDocs is the limbo.columns metadata: a JSON object from each column
// name to its meaning (Column.Doc), in column order.
func columnDocs(cols []Column, extra []string) string {
	b := []byte{'{'}
	add := func(name, doc string) {
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = AppendJSONString(b, name)
		b = append(b, ':')
		b = AppendJSONString(b, doc)
	}
	for _, c := range cols {
		add(c.Name, c.Doc)
	}
	for _, x := range extra {
		add(x, "extra column: a string carried over from the source ledger")
	}
	return string(append(b, '}'))
}

// newPQWriter starts a Parquet file with cols (then extra string columns)
// and the key-value metadata naming table and the toolkit version.
func newPQWriter(a *atomicFile, table string, cols []Column, extra []string, version string, lazy bool) (*pqWriter, error) {
	opts := []parquet.WriterProperty{
		parquet.WithCompression(compress.Codecs.Zstd),
		parquet.WithCompressionLevel(1),
		parquet.WithDictionaryDefault(false),
		parquet.WithMaxRowGroupLength(rowGroupRows),
		// created_by stays arrow-go's own ("parquet-go version …"): readers
		// key their workarounds for writer bugs on it. Our version is in
		// limbo.toolkit_version.
	}
	// Dictionary-encode the string columns (docs/ledger.md) except those that
	// are unique per row, where a dictionary only costs time before the
	// writer falls back to plain encoding anyway. Numbers and booleans are
	// plain: their dictionaries cost more hashing than they save. The
	// schema columns are encoded here (dictCol); a user's extra columns,
	// whose cardinality is unknown, by arrow-go, which falls back to plain
	// encoding when a dictionary grows too large.
	fields := make([]arrow.Field, 0, len(cols)+len(extra))
	var dict []*dictCol
	for _, c := range cols {
		// Only an optional float is nullable: an optional string is written
		// always ("" when unknown), so that column scans read it as text; a
		// sparse column, where a file has it, holds a value in every row
		// (zero for "none").
		f := arrow.Field{Name: c.Name, Type: arrowType(c.Kind), Nullable: c.Optional && c.Group == "" && c.Kind == KindFloat}
		var d *dictCol
		if dictionaryEncoded(table, c) {
			opts = append(opts, parquet.WithDictionaryFor(c.Name, true))
			f.Type, d = dictType, newDictCol()
		}
		fields = append(fields, f)
		dict = append(dict, d)
	}
	for _, x := range extra {
		fields = append(fields, arrow.Field{Name: x, Type: arrow.BinaryTypes.String})
		dict = append(dict, nil)
		opts = append(opts, parquet.WithDictionaryFor(x, true))
	}
	schema := arrow.NewSchema(fields, nil)
	props := parquet.NewWriterProperties(opts...)
	bufSize := 1 << 20
	if lazy {
		bufSize = 64 << 10 // a partition file is often small
	}
	w := &pqWriter{a: a, bw: bufio.NewWriterSize(a.f, bufSize), schema: schema, dict: dict, lazy: lazy}
	// The Arrow schema is stored (ARROW:schema), so that Arrow-based
	// readers (pandas with pyarrow, polars) read the dictionary columns
	// as categoricals, as they were written.
	fw, err := pqarrow.NewFileWriter(schema, w.bw, props, pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		for _, d := range dict {
			if d != nil {
				d.release()
			}
		}
		return nil, wrapWrite(a.path, err)
	}
	w.fw = fw
	for _, kv := range [][2]string{{MetaToolkitVersion, recordedVersion(version)}, {MetaSchemaVersion, SchemaVersion}, {MetaTable, table}, {MetaColumns, columnDocs(cols, extra)}} {
		if err := fw.AppendKeyValueMetadata(kv[0], kv[1]); err != nil {
			return nil, wrapWrite(a.path, err)
		}
	}
	w.bld = make([]array.Builder, len(fields))
	for j, f := range fields {
		if dict[j] == nil {
			w.bld[j] = array.NewBuilder(memory.DefaultAllocator, f.Type)
		}
	}
	w.reserve()
	return w, nil
}

// reserve sizes the builders for a row group, so that they do not grow
// by copying.
func (w *pqWriter) reserve() {
	if w.lazy {
		return
	}
	for j, b := range w.bld {
		if b != nil {
			b.Reserve(rowGroupRows)
		} else {
			w.dict[j].ids.Reserve(rowGroupRows)
		}
	}
}

// strAppender is a string column: a dictCol or an *array.StringBuilder.
type strAppender interface{ Append(string) }

func (w *pqWriter) strCol(j int) strAppender {
	if d := w.dict[j]; d != nil {
		return d
	}
	return w.bld[j].(*array.StringBuilder)
}

func (w *pqWriter) appendRef(j int, r fieldRef) {
	switch {
	case r.s != nil:
		w.strCol(j).Append(*r.s)
	case r.i != nil:
		w.bld[j].(*array.Int64Builder).Append(*r.i)
	case r.f != nil:
		w.bld[j].(*array.Float64Builder).Append(*r.f)
	case r.b != nil:
		w.bld[j].(*array.BooleanBuilder).Append(*r.b)
	case *r.opt == nil:
		w.bld[j].AppendNull()
	default:
		w.bld[j].(*array.Float64Builder).Append(**r.opt)
	}
}

// endRow counts a finished row and flushes a full row group.
func (w *pqWriter) endRow() error {
	w.rows++
	if w.rows == rowGroupRows {
		return w.flush()
	}
	return nil
}

func (w *pqWriter) flush() error {
	if w.rows == 0 {
		return nil
	}
	cols := make([]arrow.Array, len(w.bld))
	for j, b := range w.bld {
		if b != nil {
			cols[j] = b.NewArray()
		} else {
			cols[j] = w.dict[j].newArray()
		}
	}
	rec := array.NewRecordBatch(w.schema, cols, int64(w.rows))
	for _, c := range cols {
		c.Release()
	}
	defer rec.Release()
	w.rows = 0
	w.reserve()
	return wrapWrite(w.a.path, w.fw.Write(rec))
}

// release frees the builders.
func (w *pqWriter) release() {
	for j, b := range w.bld {
		if b != nil {
			b.Release()
		} else {
			w.dict[j].release()
		}
	}
}

func (w *pqWriter) close() error {
	if w.done {
		return errors.New("ledger: writer already closed")
	}
	w.done = true
	err := w.flush()
	w.release()
	// FileWriter.Close writes the footer; it does not close w.bw (not an
	// io.Closer), so the atomic file stays ours to commit.
	if cerr := w.fw.Close(); err == nil {
		err = wrapWrite(w.a.path, cerr)
	}
	if err == nil {
		err = wrapWrite(w.a.path, w.bw.Flush())
	}
	if err == nil && w.ids != nil && w.ids.unique() {
		var md *metadata.FileMetaData
		if md, err = w.fw.FileMetadata(); err == nil && md.NumRows > 0 {
			err = certifyIDs(w.a, md)
		}
		err = wrapWrite(w.a.path, err)
	}
	if err != nil {
		w.a.abort()
		return err
	}
	return w.a.commit()
}

func (w *pqWriter) abort() error {
	if w.done {
		return nil
	}
	w.done = true
	w.release()
	return w.a.abort()
}

type parquetEpisodeWriter struct {
	w     *pqWriter
	extra []string
	// Typed builders of the schema columns, by kind, in column order: the
	// per-row path appends without type switches.
	strs  []strAppender
	ints  []*array.Int64Builder
	flts  []*array.Float64Builder
	bools []*array.BooleanBuilder
	opts  []*array.Float64Builder // optional floats (cost_usd), nil as null
	// sparse are the file's sparse columns (those of the groups it
	// carries): a schema column index and its field in the file.
	sparse []sparseField
	xs     []*array.StringBuilder
}

type sparseField struct{ col, field int }

func newParquetEpisodeWriter(a *atomicFile, extra []string, groups colMask, version string, lazy bool) (*parquetEpisodeWriter, error) {
	cols, idx := fileColumns(groups)
	w, err := newPQWriter(a, "episodes", cols, extra, version, lazy)
	if err != nil {
		return nil, err
	}
	w.ids = newIDTally()
	p := &parquetEpisodeWriter{w: w, extra: extra}
	for j, c := range cols {
		if c.Group != "" {
			p.sparse = append(p.sparse, sparseField{idx[j], j})
			continue
		}
		if c.Kind == KindString {
			p.strs = append(p.strs, w.strCol(j))
			continue
		}
		switch b := w.bld[j].(type) {
		case *array.Int64Builder:
			p.ints = append(p.ints, b)
		case *array.BooleanBuilder:
			p.bools = append(p.bools, b)
		case *array.Float64Builder:
			if c.Optional {
				p.opts = append(p.opts, b)
			} else {
				p.flts = append(p.flts, b)
			}
		}
	}
	for j := range extra {
		p.xs = append(p.xs, w.bld[len(cols)+j].(*array.StringBuilder))
	}
	return p, nil
}

// fileColumns returns the schema columns a file of the given groups has,
// in schema order: every column but the sparse ones of other groups, with
// each one's index in EpisodeColumns.
func fileColumns(groups colMask) ([]Column, []int) {
	cols := make([]Column, 0, len(EpisodeColumns))
	idx := make([]int, 0, len(EpisodeColumns))
	for i, c := range EpisodeColumns {
		if sparseCols.has(i) && !groups.has(i) {
			continue
		}
		cols = append(cols, c)
		idx = append(idx, i)
	}
	return cols, idx
}

// Write appends e: its schema columns (appendColumns, generated from
// EpisodeColumns, then the file's sparse columns), then its extra columns.
func (p *parquetEpisodeWriter) Write(e *Episode) error {
	p.w.ids.add(e.EpisodeID)
	p.appendColumns(e)
	for _, f := range p.sparse {
		p.w.appendRef(f.field, e.ref(f.col))
	}
	for j, k := range p.extra {
		p.xs[j].Append(e.Extra[k])
	}
	return p.w.endRow()
}

func (p *parquetEpisodeWriter) Close() error { return p.w.close() }
func (p *parquetEpisodeWriter) Abort() error { return p.w.abort() }

// CallWriter and EffectWriter write the calls and effects tables beside an
// episode table (see SiblingPaths); like EpisodeWriter they commit
// atomically on Close.
type (
	CallWriter interface {
		Write(*Call) error
		Close() error
		Abort() error
	}
	EffectWriter interface {
		Write(*Effect) error
		Close() error
		Abort() error
	}
)

// tableWriter writes rows of T (Call or Effect) to Parquet.
type tableWriter[T any] struct {
	w    *pqWriter
	ref  func(*T, int) fieldRef
	ncol int
}

func (t *tableWriter[T]) Write(x *T) error {
	for i := range t.ncol {
		t.w.appendRef(i, t.ref(x, i))
	}
	return t.w.endRow()
}
func (t *tableWriter[T]) Close() error { return t.w.close() }
func (t *tableWriter[T]) Abort() error { return t.w.abort() }

// CreateCalls creates a Parquet calls table at path.
func CreateCalls(path string) (CallWriter, error) { return CreateCallsWith(path, WriteOptions{}) }

// CreateCallsWith is CreateCalls with the settings o.
func CreateCallsWith(path string, o WriteOptions) (CallWriter, error) {
	return createCalls(path, o, false)
}

func createCalls(path string, o WriteOptions, lazy bool) (CallWriter, error) {
	a, err := createAtomic(o.Unit, path)
	if err != nil {
		return nil, err
	}
	w, err := newPQWriter(a, "calls", CallColumns, nil, o.ToolkitVersion, lazy)
	if err != nil {
		a.abort()
		return nil, err
	}
	return &tableWriter[Call]{w: w, ref: (*Call).ref, ncol: len(CallColumns)}, nil
}

// CreateEffects creates a Parquet effects table at path.
func CreateEffects(path string) (EffectWriter, error) { return CreateEffectsWith(path, WriteOptions{}) }

// CreateEffectsWith is CreateEffects with the settings o.
func CreateEffectsWith(path string, o WriteOptions) (EffectWriter, error) {
	return createEffects(path, o, false)
}

func createEffects(path string, o WriteOptions, lazy bool) (EffectWriter, error) {
	a, err := createAtomic(o.Unit, path)
	if err != nil {
		return nil, err
	}
	w, err := newPQWriter(a, "effects", EffectColumns, nil, o.ToolkitVersion, lazy)
	if err != nil {
		a.abort()
		return nil, err
	}
	return &tableWriter[Effect]{w: w, ref: (*Effect).ref, ncol: len(EffectColumns)}, nil
}
