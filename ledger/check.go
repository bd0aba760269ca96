package ledger

import (
	"fmt"
	"hash/maphash"
	"io"
	"path/filepath"
	"strings"

	"github.com/limbo-toolkit/limbo/outfile"
)

// FileCheck is the outcome of CheckFile on one ledger file.
type FileCheck struct {
	Rows    int      // rows read
	Errors  int      // problems reported as errors, the read's own error included
	Summary *Summary // nil unless asked for; finished
}

// CheckFile reads the ledger at path with opt (rows are reused, never
// kept) and passes every error to report: each row problem, then the
// read's own error if any. Without a grader a raw JSONL ledger is checked
// as it is. With summarize it also counts what Summary reports.
func CheckFile(path string, opt ReadOptions, summarize bool, report func(error)) FileCheck {
	var c FileCheck
	opt.Reuse = true
	opt.Errors = func(p Problem) {
		c.Errors++
		report(p)
	}
	if summarize {
		c.Summary = NewSummary(path)
	}
	each := func(ep *Episode) error {
		c.Rows++
		if c.Summary != nil {
			c.Summary.Add(ep)
		}
		return nil
	}
	var err error
	if p := strings.ToLower(path); opt.Grader == nil && (strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".ndjson")) {
		err = ReadRaw(path, opt, func(r *RawEpisode) error { return each(&r.Episode) })
	} else {
		err = ReadEpisodes(path, opt, each)
	}
	if err != nil {
		c.Errors++
		report(err)
	}
	if c.Summary != nil {
		c.Summary.Finish()
	}
	return c
}

// WarnLimiter prints warnings to a writer, at most PerKind of each (file,
// field, message) and, on Flush, a count of the rest, so that a
// million-row ledger from another harness does not flood the terminal.
type WarnLimiter struct {
	w       io.Writer
	PerKind int
	counts  map[string]int
	order   []string
}

// NewWarnLimiter returns a limiter writing to w, five of a kind.
func NewWarnLimiter(w io.Writer) *WarnLimiter {
	return &WarnLimiter{w: w, PerKind: 5, counts: map[string]int{}}
}

// Warn prints p unless PerKind of its kind were printed already.
func (wl *WarnLimiter) Warn(p Problem) {
	k := p.File + "\x00" + p.Field + "\x00" + p.Msg
	n := wl.counts[k]
	if n == 0 {
		wl.order = append(wl.order, k)
	}
	wl.counts[k] = n + 1
	if n < wl.PerKind {
		fmt.Fprintln(wl.w, p.Error())
	}
}

// Flush reports how many warnings of each kind were not printed.
func (wl *WarnLimiter) Flush() {
	for _, k := range wl.order {
		if n := wl.counts[k]; n > wl.PerKind {
			parts := strings.SplitN(k, "\x00", 3)
			fmt.Fprintf(wl.w, "%s: %s: warning: %s (and %d more like this)\n", parts[0], parts[1], parts[2], n-wl.PerKind)
		}
	}
}

// Summary is what validate --summary reports for one file: the row count,
// the true values of each boolean column and the distinct values of each
// string column (extra columns included). The DuckDB interop check
// compares it with DuckDB's own counts.
type Summary struct {
	File     string         `json:"file"`
	Rows     int64          `json:"rows"`
	BoolSums map[string]int `json:"bool_sums"`
	Distinct map[string]int `json:"distinct"`

	// Distinct values are kept as 64-bit hashes: a collision among a
	// column's values is vanishingly unlikely and the memory is bounded
	// by the count, not the length, of the strings.
	seed maphash.Seed
	sets map[string]map[uint64]struct{}
}

// NewSummary returns an empty summary of file.
func NewSummary(file string) *Summary {
	return &Summary{File: file, BoolSums: map[string]int{}, Distinct: map[string]int{}, seed: maphash.MakeSeed(), sets: map[string]map[uint64]struct{}{}}
}

func (s *Summary) distinct(col, v string) {
	set := s.sets[col]
	if set == nil {
		set = map[uint64]struct{}{}
		s.sets[col] = set
	}
	set[maphash.String(s.seed, v)] = struct{}{}
}

// Add counts one episode.
func (s *Summary) Add(e *Episode) {
	s.Rows++
	held := e.heldSparse()
	for i, c := range EpisodeColumns {
		if sparseCols.has(i) && !held.has(i) {
			continue // a group the episode does not carry
		}
		v := e.Column(i)
		switch c.Kind {
		case KindBool:
			if v.Bool {
				s.BoolSums[c.Name]++
			} else if _, ok := s.BoolSums[c.Name]; !ok {
				s.BoolSums[c.Name] = 0
			}
		case KindString:
			s.distinct(c.Name, v.Str)
		}
	}
	for k, v := range e.Extra {
		s.distinct(k, v)
	}
}

// Finish fills Distinct from the values seen.
func (s *Summary) Finish() {
	for k, set := range s.sets {
		s.Distinct[k] = len(set)
	}
}

// Files returns the files a ledger path stands for: the path and, for a
// Parquet episode table, its calls and effects siblings.
func Files(path string) []string {
	if filepath.Ext(path) != ".parquet" {
		return []string{path}
	}
	c, e := SiblingPaths(path)
	return []string{path, c, e}
}

// Convert reads the ledger in with opt (raw lines graded by opt.Grader)
// and writes its episode table to out in format ("" for out's extension),
// as one unit whose inputs are in's files: an episode table written over
// an earlier raw Parquet export replaces its calls and effects siblings
// too (removed, as they would no longer match). A Parquet output records
// toolkitVersion (WriteOptions).
func Convert(in, out, format string, opt ReadOptions, toolkitVersion string) error {
	u := outfile.NewUnit(Files(in)...)
	defer u.Abort() // no-op after Commit
	// A ledger the scan cannot read is the reader's to report.
	groups, _ := GroupsOf(in, opt.Format)
	w, err := CreateEpisodesWith(out, format, nil, WriteOptions{Unit: u, ToolkitVersion: toolkitVersion, Groups: groups})
	if err != nil {
		return err
	}
	defer w.Abort()
	opt.Reuse = true // rows are written, never kept
	if err := ReadEpisodes(in, opt, w.Write); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	if f, _ := formatOf(out, format); f == "parquet" {
		if err := removeSiblings(u, out); err != nil {
			return err
		}
	}
	return u.Commit()
}
