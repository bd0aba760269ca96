package ledger

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/outfile"
)

// HiveDefaultPartition names the partition of an empty or null value, as
// Hive, Spark and DuckDB spell it. The writer never writes it (readers
// turn it into NULL, not the empty string written); the reader accepts it
// from other tools' datasets as an empty value.
const HiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// DefaultMaxOpenPartitions bounds how many partition files a
// PartitionedWriter keeps open at once.
const DefaultMaxOpenPartitions = 64

// DefaultMaxPartitions bounds how many partitions a PartitionedWriter
// makes. Each partition is at least one file with its own footer and
// dictionaries (a few kilobytes, a few milliseconds): partitioning 25,930
// episodes by episode_id took 157 s and made a dataset readers open file
// by file. A column with more values than this is a filter, not a
// partition key.
const DefaultMaxPartitions = 1000

// PartitionedWriter writes an episode table as a Hive-style partitioned
// dataset: DIR/col1=v1/col2=v2/part-K.parquet, one directory level per
// partition column, which DuckDB (read_parquet('DIR/**/*.parquet')),
// Spark (spark.read.parquet(DIR)), Polars (pl.scan_parquet(DIR)) and this
// package (ReadEpisodes(DIR, …)) read as one table. The files keep every
// column, the partition columns included, so each file is also a complete
// ledger on its own. The calls and effects of raw episodes (WriteNested)
// go to the same partitions of two sibling datasets, DIR.calls and
// DIR.effects, as X.calls.parquet sits beside X.parquet.
//
// Partition values round-trip exactly through the readers above: a
// partition column must be a string or integer column (a boolean comes back
// as the string "true" in DuckDB; a float 90 as an integer), and a value
// must not be empty (read back as NULL) nor a string that readers would
// type as a number, boolean, date or NULL ("2024", "true", "null"). Such a
// column or value is refused with an error naming it.
//
// Rows go to their partition's file in input order. At most MaxOpen files
// (per table) are open at once, each buffering only the rows it holds:
// when a new partition would exceed that, the least recently written file
// is closed and that partition's later rows go to its next file (part-1,
// part-2, …). More than MaxPartitions partitions is an error. The datasets
// are built in temporary directories beside DIR and renamed into place by
// Close, so DIR appears complete or not at all.
type PartitionedWriter struct {
	// MaxOpen bounds the open files; set it before the first Write.
	MaxOpen int
	// ToolkitVersion is recorded in the Parquet files' key-value metadata
	// (WriteOptions); set it before the first Write.
	ToolkitVersion string
	// MaxPartitions bounds the number of partitions; set it before the
	// first Write.
	MaxPartitions int
	// Groups are the column groups the dataset carries (WriteOptions);
	// set it before the first Write.
	Groups []string

	dir, tmp string
	staged   []*outfile.Dir // the dataset's directories, staged beside their paths
	by       []string
	format   string
	extra    []string
	open     map[string]*openPart
	next     map[string]int // next part number of each partition
	clock    int
	rows     int
	done     bool
	// Sibling datasets of calls and effects, created by the first
	// WriteNested.
	sibDir, sibTmp [2]string
	// segs caches, per partition column, each value's checked and
	// escaped directory name, so that a row costs map lookups rather than
	// a parse and an escape per column (at most MaxPartitions values each).
	segs []map[string]string
	buf  []byte
}

type openPart struct {
	w       EpisodeWriter
	calls   CallWriter
	effects EffectWriter
	rel     string
	k       int
	used    int
}

// CreatePartitioned starts a partitioned dataset at dir (which must not
// exist, or be an empty directory), partitioned by the columns by, in the
// order given. by names schema columns (string or integer) or extraCols;
// format is "parquet" (or "" for Parquet), "csv" or "jsonl"; extraCols are
// written after the schema columns as in CreateEpisodes.
func CreatePartitioned(dir string, by []string, format string, extraCols []string) (*PartitionedWriter, error) {
	if len(by) == 0 {
		return nil, Problem{File: dir, Msg: "no partition columns"}
	}
	seen := map[string]bool{}
	for _, c := range by {
		col, schema := LookupColumn(c)
		isExtra := slices.Contains(extraCols, c)
		if !schema && !isExtra {
			return nil, Problem{File: dir, Field: c, Msg: "partition column is not a ledger column"}
		}
		if seen[c] {
			return nil, Problem{File: dir, Field: c, Msg: "partition column given twice"}
		}
		seen[c] = true
		if !schema {
			continue
		}
		switch col.Kind {
		case KindBool:
			return nil, Problem{File: dir, Field: c, Msg: "cannot partition by a boolean column: DuckDB reads the directory " + c + "=true back as the string \"true\"; partition by a string or integer column and filter on " + c + " when reading"}
		case KindFloat:
			return nil, Problem{File: dir, Field: c, Msg: "cannot partition by a floating-point column: readers type the directory " + c + "=90 as an integer; partition by a string or integer column"}
		}
	}
	switch format {
	case "":
		format = "parquet"
	case "parquet", "csv", "jsonl":
	default:
		return nil, Problem{File: dir, Msg: "unknown format " + strconv.Quote(format) + " (want parquet, csv or jsonl)"}
	}
	if err := checkNewDir(dir); err != nil {
		return nil, err
	}
	staged, err := makeTempDir(dir)
	if err != nil {
		return nil, err
	}
	return &PartitionedWriter{
		MaxOpen: DefaultMaxOpenPartitions, MaxPartitions: DefaultMaxPartitions,
		dir: dir, tmp: staged.Path(), staged: []*outfile.Dir{staged}, by: by, format: format, extra: extraCols,
		open: map[string]*openPart{}, next: map[string]int{},
	}, nil
}

// checkNewDir refuses an output directory that exists and is not empty.
func checkNewDir(dir string) error {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return Problem{File: dir, Msg: "exists and is not empty; a partitioned dataset needs a new directory"}
	} else if err != nil && !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return Problem{File: dir, Msg: "cannot create output: " + errMsg(err)}
	} else if errors.Is(err, syscall.ENOTDIR) {
		return Problem{File: dir, Msg: "exists and is a file; a partitioned dataset needs a new directory"}
	}
	return nil
}

// makeTempDir starts the output directory dir, built in a staging
// directory beside it (outfile.CreateDir).
func makeTempDir(dir string) (*outfile.Dir, error) {
	d, err := outfile.CreateDir(dir)
	if err != nil {
		return nil, Problem{File: dir, Msg: "cannot create output: " + errMsg(err)}
	}
	return d, nil
}

// PartitionSiblings returns the directories of the calls and effects
// datasets beside the partitioned episode dataset dir.
func PartitionSiblings(dir string) (calls, effects string) {
	d := filepath.Clean(dir)
	return d + ".calls", d + ".effects"
}

// PartitionPath returns the relative directory of e's partition under by:
// "col1=v1/col2=v2", values escaped as Hive escapes them. A value that
// would not read back as written (see PartitionedWriter) is an error
// naming the column.
func PartitionPath(e *Episode, by []string) (string, error) {
	var b strings.Builder
	for k, c := range by {
		v, ok := e.Get(c)
		if !ok {
			return "", Problem{Field: c, Msg: "no such column in the episode"}
		}
		seg, err := partitionSegment(c, v)
		if err != nil {
			return "", err
		}
		if k > 0 {
			b.WriteByte('/')
		}
		b.WriteString(seg)
	}
	return b.String(), nil
}

// partitionSegment is the directory name col=value of value v of column c.
func partitionSegment(c string, v Value) (string, error) {
	s := v.String()
	if msg := partitionValueProblem(c, v.Kind, s); msg != "" {
		return "", Problem{Field: c, Msg: msg}
	}
	seg := EscapePartitionValue(c) + "=" + EscapePartitionValue(s)
	if len(seg) > maxSegment {
		shown := s
		if len(shown) > 40 {
			shown = strings.ToValidUTF8(shown[:40], "") + "…"
		}
		return "", Problem{Field: c, Msg: fmt.Sprintf("value %q (%d bytes) is too long for a partition directory: %s=value takes %d bytes, and a file name may hold %d; partition by a column with shorter values", shown, len(s), c, len(seg), maxSegment)}
	}
	return seg, nil
}

// maxSegment is the longest directory name col=value (NAME_MAX on Linux
// and macOS).
const maxSegment = 255

// partitionValueProblem says why s, the value of column c of kind k,
// would not read back as written from a partition directory, or "". The
// rules are those of DuckDB's and polars' type inference for Hive paths
// (checked by scripts/duckdb/partitioned.sh).
func partitionValueProblem(c string, k Kind, s string) string {
	switch k {
	case KindBool, KindFloat:
		return "cannot partition by a " + k.String() + " column"
	case KindInt:
		return ""
	}
	if s == "" {
		return "empty value: Hive-style readers (DuckDB, polars, Spark) read an empty partition value back as NULL; partition by a column that is never empty"
	}
	what := ""
	low := strings.ToLower(s)
	if _, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		what = "a number"
	} else if low == "true" || low == "false" {
		what = "a boolean"
	} else if low == "null" || s == HiveDefaultPartition {
		what = "NULL"
	} else if isDateLike(s) {
		what = "a date"
	}
	if what == "" {
		return ""
	}
	return "value " + strconv.Quote(s) + " would be read back from the directory " + c + "=" + s + " as " + what + " by DuckDB and polars, not as the string written; partition by another column"
}

// isDateLike reports whether s starts as an ISO date (YYYY-MM-DD), which
// DuckDB and polars type as a date or timestamp.
func isDateLike(s string) bool {
	if len(s) < 10 || s[4] != '-' || s[7] != '-' {
		return false
	}
	for _, i := range []int{0, 1, 2, 3, 5, 6, 8, 9} {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// EscapePartitionValue escapes s for a path segment as Hive's
// FileUtils.escapePathName does (and Spark and DuckDB undo): control
// characters and "#%'*/:=?\{[]^ and DEL become %XX. A leading dot is escaped
// too, so no segment is hidden from readers that skip dot files.
func EscapePartitionValue(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0 || (i == 0 && c == '.') {
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Write appends e to its partition's file.
func (w *PartitionedWriter) Write(e *Episode) error {
	p, err := w.part(e)
	if err != nil {
		return err
	}
	return p.w.Write(e)
}

// WriteNested appends e to its partition's file, and its calls and effects
// to the same partition of the sibling datasets (PartitionSiblings).
// Parquet only.
func (w *PartitionedWriter) WriteNested(e *Episode, calls []Call, effects []Effect) error {
	if w.format != "parquet" {
		return Problem{File: w.dir, Msg: "calls and effects are written to Parquet datasets only"}
	}
	p, err := w.part(e)
	if err != nil {
		return err
	}
	if err := p.w.Write(e); err != nil {
		return err
	}
	if p.calls == nil {
		if err := w.openNested(p); err != nil {
			return err
		}
	}
	for i := range calls {
		if err := p.calls.Write(&calls[i]); err != nil {
			return err
		}
	}
	for i := range effects {
		if err := p.effects.Write(&effects[i]); err != nil {
			return err
		}
	}
	return nil
}

// part finds (or opens) e's partition and counts the row.
func (w *PartitionedWriter) part(e *Episode) (*openPart, error) {
	if w.done {
		return nil, errors.New("ledger: writer already closed")
	}
	rel, err := w.path(e)
	if err != nil {
		// About the row being written: a reader's callback that returns
		// it gets the row's input file and line (see Problem), not the
		// output's count of rows.
		return nil, err
	}
	p := w.open[rel]
	if p == nil {
		if _, seen := w.next[rel]; !seen && len(w.next) >= max(w.MaxPartitions, 1) {
			// Placed, as a bad value is, at the input row that would open
			// one partition too many.
			fe := fieldtext.New("MaxPartitions", "more than %d partitions in %s; a partition per few rows makes a slow dataset of tiny files: partition by columns with fewer values, or raise the limit ({MaxPartitions})", max(w.MaxPartitions, 1), w.dir)
			return nil, Problem{Field: strings.Join(w.by, ","), Msg: fe.Error(), Err: fe}
		}
		if p, err = w.openPart(rel); err != nil {
			return nil, err
		}
	}
	w.clock++
	p.used = w.clock
	w.rows++
	return p, nil
}

// path is PartitionPath with the directory names cached.
func (w *PartitionedWriter) path(e *Episode) (string, error) {
	if w.segs == nil {
		w.segs = make([]map[string]string, len(w.by))
		for k := range w.segs {
			w.segs[k] = map[string]string{}
		}
	}
	w.buf = w.buf[:0]
	for k, c := range w.by {
		v, ok := e.Get(c)
		if !ok {
			return "", Problem{Field: c, Msg: "no such column in the episode"}
		}
		s := v.Str
		if v.Kind != KindString {
			s = v.String()
		}
		seg, ok := w.segs[k][s]
		if !ok {
			var err error
			if seg, err = partitionSegment(c, v); err != nil {
				return "", err
			}
			w.segs[k][strings.Clone(s)] = seg
		}
		if k > 0 {
			w.buf = append(w.buf, '/')
		}
		w.buf = append(w.buf, seg...)
	}
	return string(w.buf), nil
}

func (w *PartitionedWriter) openPart(rel string) (*openPart, error) {
	if len(w.open) >= max(w.MaxOpen, 1) {
		// Close the least recently written partition; the clock values are
		// distinct, so the choice does not depend on map order.
		var lru string
		for k, p := range w.open {
			if lru == "" || p.used < w.open[lru].used {
				lru = k
			}
		}
		err := w.open[lru].close()
		delete(w.open, lru)
		if err != nil {
			return nil, err
		}
	}
	d := filepath.Join(w.tmp, filepath.FromSlash(rel))
	if err := os.MkdirAll(d, 0o755); err != nil {
		return nil, Problem{File: w.dir, Msg: "cannot create output: " + errMsg(err)}
	}
	k := w.next[rel]
	w.next[rel] = k + 1
	ew, err := createEpisodes(filepath.Join(d, "part-"+strconv.Itoa(k)+"."+w.format), w.format, w.extra, WriteOptions{ToolkitVersion: w.ToolkitVersion, Groups: w.Groups}, true)
	if err != nil {
		return nil, err
	}
	p := &openPart{w: ew, rel: rel, k: k}
	w.open[rel] = p
	return p, nil
}

// openNested opens p's calls and effects files, creating the sibling
// datasets' temporary directories on first use.
func (w *PartitionedWriter) openNested(p *openPart) error {
	if w.sibTmp[0] == "" {
		calls, effects := PartitionSiblings(w.dir)
		for j, d := range [2]string{calls, effects} {
			if err := checkNewDir(d); err != nil {
				return err
			}
			staged, err := makeTempDir(d)
			if err != nil {
				return err
			}
			w.sibDir[j], w.sibTmp[j] = d, staged.Path()
			w.staged = append(w.staged, staged)
		}
	}
	name := "part-" + strconv.Itoa(p.k) + ".parquet"
	var paths [2]string
	for j := range paths {
		d := filepath.Join(w.sibTmp[j], filepath.FromSlash(p.rel))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return Problem{File: w.sibDir[j], Msg: "cannot create output: " + errMsg(err)}
		}
		paths[j] = filepath.Join(d, name)
	}
	var err error
	if p.calls, err = createCalls(paths[0], WriteOptions{ToolkitVersion: w.ToolkitVersion, Groups: w.Groups}, true); err != nil {
		return err
	}
	p.effects, err = createEffects(paths[1], WriteOptions{ToolkitVersion: w.ToolkitVersion, Groups: w.Groups}, true)
	return err
}

// close finishes a partition's files.
func (p *openPart) close() error {
	err := p.w.Close()
	for _, c := range []interface{ Close() error }{p.calls, p.effects} {
		if c == nil {
			continue
		}
		if cerr := c.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

func (p *openPart) abort() {
	p.w.Abort()
	if p.calls != nil {
		p.calls.Abort()
	}
	if p.effects != nil {
		p.effects.Abort()
	}
}

// Partitions returns the number of partitions written so far.
func (w *PartitionedWriter) Partitions() int { return len(w.next) }

// Nested reports whether calls and effects were written (WriteNested).
func (w *PartitionedWriter) Nested() bool { return w.sibTmp[0] != "" }

// Close finishes every file and moves the datasets into place.
func (w *PartitionedWriter) Close() error {
	if w.done {
		return errors.New("ledger: writer already closed")
	}
	var first error
	for _, rel := range slices.Sorted(maps.Keys(w.open)) {
		if err := w.open[rel].close(); err != nil && first == nil {
			first = err
		}
		delete(w.open, rel)
	}
	if first != nil {
		w.Abort()
		return first
	}
	w.done = true
	// The episodes first, then the calls and effects beside them: each
	// directory is swapped in whole.
	for j, d := range w.staged {
		if err := d.Commit(); err != nil {
			for _, rest := range w.staged[j+1:] {
				rest.Abort()
			}
			return Problem{File: w.dir, Msg: "cannot create output: " + errMsg(err)}
		}
	}
	return nil
}

// Abort discards everything written.
func (w *PartitionedWriter) Abort() error {
	if w.done {
		return nil
	}
	w.done = true
	for _, p := range w.open {
		p.abort()
	}
	w.open = nil
	for _, d := range w.staged {
		d.Abort()
	}
	return nil
}

// String describes the dataset for messages.
func (w *PartitionedWriter) String() string {
	return fmt.Sprintf("%s (%d rows in %d partitions by %s)", w.dir, w.rows, len(w.next), strings.Join(w.by, ","))
}
