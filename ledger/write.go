package ledger

import (
	"bufio"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/outfile"
)

// EpisodeWriter writes graded episodes to a ledger file. Nothing is
// visible at the target path until Close, which commits atomically (a
// temporary file in the target directory renamed into place); Abort
// removes the temporary file. After a failed Write, call Abort.
type EpisodeWriter interface {
	Write(*Episode) error
	Close() error
	Abort() error
}

// WriteOptions are the settings of the Create…With writers.
type WriteOptions struct {
	// Unit, if set, makes the file one output of a unit: Close stages it
	// and Unit.Commit puts it in place. Nil writes a file of its own.
	Unit *outfile.Unit
	// ToolkitVersion is recorded in a Parquet file's key-value metadata
	// (MetaToolkitVersion); "" records "unknown". Other formats have no
	// place for it.
	ToolkitVersion string
	// Groups are the column groups (Column.Group) the ledger carries: a
	// CSV or Parquet episode table has their columns, and has no column
	// of another group. JSONL lines carry a sparse column wherever it
	// holds a value, whatever Groups says. GroupsOf lists a ledger's.
	Groups []string
}

// recordedVersion is the MetaToolkitVersion value for version.
func recordedVersion(version string) string {
	if version == "" {
		return "unknown"
	}
	return version
}

// Parquet key-value metadata keys.
const (
	MetaToolkitVersion = "limbo.toolkit_version"
	MetaSchemaVersion  = "limbo.schema_version"
	MetaTable          = "limbo.table" // episodes, calls or effects
	// MetaColumns holds a JSON object from each column's name to its
	// meaning (Column.Doc).
	MetaColumns = "limbo.columns"
)

// atomicFile is an output file committed by package outfile: on its own,
// or as one file of a Unit (Close stages it, the unit commits).
type atomicFile struct {
	path string
	f    *outfile.File
	done bool
}

func createAtomic(u *outfile.Unit, path string) (*atomicFile, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, Problem{File: path, Msg: "is a directory; cannot write a ledger there"}
	}
	var f *outfile.File
	var err error
	if u != nil {
		f, err = u.Create(path)
	} else {
		f, err = outfile.Create(path)
	}
	if err != nil {
		var ie *outfile.InputError
		if errors.As(err, &ie) {
			return nil, err
		}
		return nil, Problem{File: path, Msg: "cannot create output: " + errMsg(err)}
	}
	return &atomicFile{path: path, f: f}, nil
}

func (a *atomicFile) commit() error {
	if a.done {
		return errors.New("ledger: writer already closed")
	}
	a.done = true
	if err := a.f.Close(); err != nil {
		return wrapWrite(a.path, err)
	}
	return nil
}

func (a *atomicFile) abort() error {
	if a.done {
		return nil
	}
	a.done = true
	a.f.Abort()
	return nil
}

// CreateEpisodes creates an episode ledger at path in format ("jsonl" for
// graded rows, "csv" or "parquet"; "" = by extension). extraCols are the
// user's extra columns, written after the schema columns in this order
// from each episode's Extra.
func CreateEpisodes(path string, format string, extraCols []string) (EpisodeWriter, error) {
	return CreateEpisodesWith(path, format, extraCols, WriteOptions{})
}

// CreateEpisodesWith is CreateEpisodes with the settings o.
func CreateEpisodesWith(path string, format string, extraCols []string, o WriteOptions) (EpisodeWriter, error) {
	return createEpisodes(path, format, extraCols, o, false)
}

// createEpisodes is CreateEpisodesWith; lazy Parquet buffers grow with the
// rows (pqWriter.lazy).
func createEpisodes(path string, format string, extraCols []string, o WriteOptions, lazy bool) (EpisodeWriter, error) {
	format, err := formatOf(path, format)
	if err != nil {
		return nil, Problem{File: path, Msg: err.Error()}
	}
	for _, x := range extraCols {
		if _, ok := colIndex[x]; ok || x == "" {
			return nil, Problem{File: path, Field: x, Msg: "extra column name is empty or a schema column"}
		}
	}
	a, err := createAtomic(o.Unit, path)
	if err != nil {
		return nil, err
	}
	switch format {
	case "jsonl":
		return &jsonlEpisodeWriter{a: a, w: bufio.NewWriterSize(a.f, 1<<20), extra: extraCols}, nil
	case "csv":
		w, err := newCSVEpisodeWriter(a, extraCols, groupsMask(o.Groups))
		if err != nil {
			a.abort()
			return nil, err
		}
		return w, nil
	default:
		w, err := newParquetEpisodeWriter(a, extraCols, groupsMask(o.Groups), o.ToolkitVersion, lazy)
		if err != nil {
			a.abort()
			return nil, err
		}
		return w, nil
	}
}

type jsonlEpisodeWriter struct {
	a     *atomicFile
	w     *bufio.Writer
	buf   []byte
	extra []string
}

func (w *jsonlEpisodeWriter) Write(e *Episode) error {
	w.buf = appendEpisodeJSON(w.buf[:0], e, w.extra)
	_, err := w.w.Write(w.buf)
	return wrapWrite(w.a.path, err)
}

func (w *jsonlEpisodeWriter) Close() error {
	if err := w.w.Flush(); err != nil {
		w.a.abort()
		return wrapWrite(w.a.path, err)
	}
	return w.a.commit()
}

func (w *jsonlEpisodeWriter) Abort() error { return w.a.abort() }

// wrapWrite names the output path of a failed write. Errors of package
// outfile already carry their operation ("write", "commit").
func wrapWrite(path string, err error) error {
	if err == nil {
		return nil
	}
	var pe *os.PathError
	if errors.As(err, &pe) {
		return Problem{File: path, Msg: errMsg(err)}
	}
	return Problem{File: path, Msg: "write: " + err.Error()}
}

// CSV.

type csvEpisodeWriter struct {
	a     *atomicFile
	bw    *bufio.Writer
	cw    *csv.Writer
	rec   []string
	cols  []int // the schema columns the file has (fileColumns)
	extra []string
}

func newCSVEpisodeWriter(a *atomicFile, extra []string, groups colMask) (*csvEpisodeWriter, error) {
	w := &csvEpisodeWriter{a: a, bw: bufio.NewWriterSize(a.f, 1<<20), extra: extra}
	w.cw = csv.NewWriter(w.bw)
	cols, idx := fileColumns(groups)
	w.cols = idx
	hdr := make([]string, 0, len(cols)+len(extra))
	for _, c := range cols {
		hdr = append(hdr, c.Name)
	}
	hdr = append(hdr, extra...)
	w.rec = make([]string, len(hdr))
	return w, wrapWrite(a.path, w.cw.Write(hdr))
}

// csvCell renders column i of e for CSV: floats as appendFloat does but
// NaN and a nil cost as empty, booleans as true/false.
func csvCell(e *Episode, i int) string {
	r := e.ref(i)
	switch {
	case r.s != nil:
		return *r.s
	case r.i != nil:
		return strconv.FormatInt(*r.i, 10)
	case r.b != nil:
		return strconv.FormatBool(*r.b)
	}
	var v float64
	if r.opt != nil {
		if *r.opt == nil {
			return ""
		}
		v = **r.opt
	} else {
		v = *r.f
	}
	if math.IsNaN(v) {
		return ""
	}
	return string(appendFloat(nil, v))
}

func (w *csvEpisodeWriter) Write(e *Episode) error {
	n := len(w.cols)
	for j, i := range w.cols {
		w.rec[j] = csvCell(e, i)
	}
	for j, k := range w.extra {
		w.rec[n+j] = e.Extra[k]
	}
	return wrapWrite(w.a.path, w.cw.Write(w.rec))
}

func (w *csvEpisodeWriter) Close() error {
	w.cw.Flush()
	err := w.cw.Error()
	if err == nil {
		err = w.bw.Flush()
	}
	if err != nil {
		w.a.abort()
		return wrapWrite(w.a.path, err)
	}
	return w.a.commit()
}

func (w *csvEpisodeWriter) Abort() error { return w.a.abort() }

// RawWriter writes raw episodes as canonical JSONL: one line per episode,
// fields in struct order (design columns, cost_usd when set, calls,
// effects, final_report, then extra fields sorted by name), numbers in the
// shortest form that round-trips, no map iteration order — so the same
// episodes give the same bytes. A call or effect whose episode_id equals
// the episode's is written without it (it inherits on read).
type RawWriter struct {
	w   io.Writer
	buf []byte
}

// NewRawWriter returns a RawWriter writing to w, one Write call per line;
// wrap w in a bufio.Writer for speed.
func NewRawWriter(w io.Writer) *RawWriter { return &RawWriter{w: w} }

// Write writes r as one canonical JSONL line.
func (rw *RawWriter) Write(r *RawEpisode) error {
	rw.buf = appendRawJSON(rw.buf[:0], r)
	_, err := rw.w.Write(rw.buf)
	return err
}

// AppendRaw appends the canonical JSONL line of r (with its newline) to b.
func AppendRaw(b []byte, r *RawEpisode) []byte { return appendRawJSON(b, r) }

// AtomicRawFile is a raw JSONL ledger file written atomically: nothing is
// at the path until Close.
type AtomicRawFile struct {
	rw *RawWriter
	bw *bufio.Writer
	a  *atomicFile
}

// CreateRaw creates a raw JSONL ledger at path, visible only after Close.
func CreateRaw(path string) (*AtomicRawFile, error) { return CreateRawWith(path, WriteOptions{}) }

// CreateRawWith is CreateRaw with the settings o (of which a raw ledger
// uses the unit).
func CreateRawWith(path string, o WriteOptions) (*AtomicRawFile, error) {
	a, err := createAtomic(o.Unit, path)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriterSize(a.f, 1<<20)
	return &AtomicRawFile{rw: NewRawWriter(bw), bw: bw, a: a}, nil
}

// Write writes r as one canonical line.
func (f *AtomicRawFile) Write(r *RawEpisode) error { return wrapWrite(f.a.path, f.rw.Write(r)) }

// Close flushes and commits the file.
func (f *AtomicRawFile) Close() error {
	if err := f.bw.Flush(); err != nil {
		f.a.abort()
		return wrapWrite(f.a.path, err)
	}
	return f.a.commit()
}

// Abort discards the file.
func (f *AtomicRawFile) Abort() error { return f.a.abort() }

// SiblingPaths returns where the calls and effects of the episode table at
// path live: X.parquet → X.calls.parquet and X.effects.parquet (likewise
// for other extensions).
func SiblingPaths(path string) (calls, effects string) {
	ext := filepath.Ext(path)
	stem := strings.TrimSuffix(path, ext)
	return stem + ".calls" + ext, stem + ".effects" + ext
}
