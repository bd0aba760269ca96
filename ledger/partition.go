package ledger

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// HiveDefaultPartition names the partition of an empty value, as Hive,
// Spark and DuckDB spell it.
const HiveDefaultPartition = "__HIVE_DEFAULT_PARTITION__"

// DefaultMaxOpenPartitions bounds how many partition files a
// PartitionedWriter keeps open at once (each buffers up to one row group).
const DefaultMaxOpenPartitions = 64

// PartitionedWriter writes an episode table as a Hive-style partitioned
// dataset: DIR/col1=v1/col2=v2/part-K.parquet, one directory level per
// partition column, which DuckDB (read_parquet('DIR/**/*.parquet',
// hive_partitioning = true)), Spark (spark.read.parquet(DIR)) and Polars
// (pl.scan_parquet(DIR, hive_partitioning=True)) read as one table. The
// files keep every column, the partition columns included, so each file is
// also a complete ledger on its own; readers that add the path's columns
// give them the same values.
//
// Files are written with CreateEpisodes. Rows go to their partition's file
// in input order. At most MaxOpen files are open at once: when a new
// partition would exceed that, the least recently written file is closed
// and that partition's later rows go to its next file (part-1, part-2, …).
// The dataset is built in a temporary directory beside DIR and renamed into
// place by Close, so DIR appears complete or not at all.
type PartitionedWriter struct {
	// MaxOpen bounds the open files; set it before the first Write.
	MaxOpen int

	dir, tmp string
	by       []string
	format   string
	extra    []string
	open     map[string]*openPart
	next     map[string]int // next part number of each partition
	clock    int
	rows     int
	done     bool
}

type openPart struct {
	w    EpisodeWriter
	used int
}

// CreatePartitioned starts a partitioned dataset at dir (which must not
// exist, or be an empty directory), partitioned by the columns by, in the
// order given. by names schema columns or extraCols; format is "parquet"
// (or "" for Parquet), "csv" or "jsonl"; extraCols are written after the
// schema columns as in CreateEpisodes.
func CreatePartitioned(dir string, by []string, format string, extraCols []string) (*PartitionedWriter, error) {
	if len(by) == 0 {
		return nil, Problem{File: dir, Msg: "no partition columns"}
	}
	seen := map[string]bool{}
	for _, c := range by {
		_, schema := LookupColumn(c)
		isExtra := false
		for _, x := range extraCols {
			isExtra = isExtra || x == c
		}
		if !schema && !isExtra {
			return nil, Problem{File: dir, Field: c, Msg: "partition column is not a ledger column"}
		}
		if seen[c] {
			return nil, Problem{File: dir, Field: c, Msg: "partition column given twice"}
		}
		seen[c] = true
	}
	switch format {
	case "":
		format = "parquet"
	case "parquet", "csv", "jsonl":
	default:
		return nil, Problem{File: dir, Msg: "unknown format " + strconv.Quote(format) + " (want parquet, csv or jsonl)"}
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, Problem{File: dir, Msg: "exists and is not empty; a partitioned dataset needs a new directory"}
	} else if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, Problem{File: dir, Msg: "cannot create output: " + errMsg(err)}
	}
	parent, base := filepath.Split(filepath.Clean(dir))
	if parent == "" {
		parent = "."
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".tmp-*")
	if err != nil {
		return nil, Problem{File: dir, Msg: "cannot create output: " + errMsg(err)}
	}
	return &PartitionedWriter{
		MaxOpen: DefaultMaxOpenPartitions,
		dir:     dir, tmp: tmp, by: by, format: format, extra: extraCols,
		open: map[string]*openPart{}, next: map[string]int{},
	}, nil
}

// PartitionPath returns the relative directory of e's partition under by:
// "col1=v1/col2=v2", values escaped as Hive escapes them.
func PartitionPath(e *Episode, by []string) (string, error) {
	var b strings.Builder
	for k, c := range by {
		v, ok := e.Get(c)
		if !ok {
			return "", Problem{Field: c, Msg: "no such column in the episode"}
		}
		if k > 0 {
			b.WriteByte('/')
		}
		b.WriteString(EscapePartitionValue(c))
		b.WriteByte('=')
		if s := v.String(); s == "" {
			b.WriteString(HiveDefaultPartition)
		} else {
			b.WriteString(EscapePartitionValue(s))
		}
	}
	return b.String(), nil
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
	if w.done {
		return errors.New("ledger: writer already closed")
	}
	rel, err := PartitionPath(e, w.by)
	if err != nil {
		var p Problem
		errors.As(err, &p)
		p.File, p.Line = w.dir, w.rows+1
		return p
	}
	p := w.open[rel]
	if p == nil {
		if p, err = w.openPart(rel); err != nil {
			return err
		}
	}
	w.clock++
	p.used = w.clock
	w.rows++
	return p.w.Write(e)
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
		err := w.open[lru].w.Close()
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
	ew, err := CreateEpisodes(filepath.Join(d, "part-"+strconv.Itoa(k)+"."+w.format), w.format, w.extra)
	if err != nil {
		return nil, err
	}
	p := &openPart{w: ew}
	w.open[rel] = p
	return p, nil
}

// Partitions returns the number of partitions written so far.
func (w *PartitionedWriter) Partitions() int { return len(w.next) }

// Close finishes every file and moves the dataset into place.
func (w *PartitionedWriter) Close() error {
	if w.done {
		return errors.New("ledger: writer already closed")
	}
	var first error
	for k, p := range w.open {
		if err := p.w.Close(); err != nil && first == nil {
			first = err
		}
		delete(w.open, k)
	}
	if first != nil {
		w.Abort()
		return first
	}
	w.done = true
	// An empty target directory (allowed by CreatePartitioned) is replaced.
	if err := os.Remove(w.dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		os.RemoveAll(w.tmp)
		return Problem{File: w.dir, Msg: "cannot create output: " + errMsg(err)}
	}
	if err := os.Chmod(w.tmp, 0o755); err != nil {
		os.RemoveAll(w.tmp)
		return Problem{File: w.dir, Msg: "cannot create output: " + errMsg(err)}
	}
	if err := os.Rename(w.tmp, w.dir); err != nil {
		os.RemoveAll(w.tmp)
		return Problem{File: w.dir, Msg: "cannot create output: " + errMsg(err)}
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
		p.w.Abort()
	}
	w.open = nil
	return os.RemoveAll(w.tmp)
}

// String describes the dataset for messages.
func (w *PartitionedWriter) String() string {
	return fmt.Sprintf("%s (%d rows in %d partitions by %s)", w.dir, w.rows, len(w.next), strings.Join(w.by, ","))
}
