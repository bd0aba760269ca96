package analysis

import (
	"cmp"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Read loads the episodes of the ledger at path (JSONL, CSV or Parquet; raw
// JSONL lines are graded with opt.Grader). With opt.Columns, only those of
// them that a CSV or Parquet file carries are read, and Data.Columns names
// them, so that a table whose columns are missing fails with a
// MissingColumnsError while the others are still computed. A Parquet file
// is read by columns, row groups in parallel (ledger.ScanParquet), unless
// it needs the row reader (a warning to give, a null, another layout).
func Read(path string, opt ledger.ReadOptions) (*Data, error) {
	have, err := ledger.FileColumns(path, opt.Format)
	if err != nil {
		return nil, err
	}
	if opt.Columns != nil && have != nil {
		opt.Columns = slices.DeleteFunc(slices.Clone(opt.Columns), func(c string) bool { return !slices.Contains(have, c) })
	}
	if format := strings.ToLower(opt.Format); (format == "" || format == "parquet") && have != nil && (opt.Columns != nil || hasRequired(have)) {
		cols := opt.Columns
		if cols == nil {
			cols = have
		}
		d := &Data{Columns: opt.Columns}
		err := d.fill(path, cols)
		if err == nil {
			d.release()
			return d, nil
		}
		if !errors.Is(err, ledger.ErrRowScan) {
			return nil, err
		}
	}
	d := &Data{Columns: opt.Columns}
	// Append copies what it keeps.
	opt.Reuse = true
	err = ledger.ReadEpisodes(path, opt, func(e *ledger.Episode) error {
		d.Append(e)
		return nil
	})
	if err != nil {
		return nil, err
	}
	d.release()
	return d, nil
}

// hasRequired reports whether have lists every column a ledger must
// carry. A file read whole without one is the row reader's to reject,
// with its message: the column scan would hold what the file has.
func hasRequired(have []string) bool {
	for _, c := range ledger.EpisodeColumns {
		if !c.Optional && !slices.Contains(have, c.Name) {
			return false
		}
	}
	return true
}

// MissingColumnsError names the columns a table needs that the data lacks.
type MissingColumnsError struct {
	What    string // "Table 7", "H1"
	Missing []string
}

func (e *MissingColumnsError) Error() string {
	verb := "needs"
	if strings.HasPrefix(e.What, "The ") { // "The hypotheses", "The figures"
		verb = "need"
	}
	return fmt.Sprintf("%s %s column(s) %s, which the episode table lacks", e.What, verb, strings.Join(e.Missing, ", "))
}

// require checks that d carries cols.
func (d *Data) require(what string, cols []string) error {
	if d.Columns == nil {
		return nil
	}
	var miss []string
	for _, c := range cols {
		if !slices.Contains(d.Columns, c) {
			miss = append(miss, c)
		}
	}
	if miss != nil {
		return &MissingColumnsError{What: what, Missing: miss}
	}
	return nil
}

// each yields every row of d (a slice of them would take 16 bytes a row).
func (d *Data) each() iter.Seq[row] {
	return func(yield func(row) bool) {
		for i := range d.n {
			if !yield(row{d, int32(i)}) {
				return
			}
		}
	}
}

// filter returns the rows of d for which keep is true. It counts them
// first: on millions of rows appending would copy the slice again and
// again.
func (d *Data) filter(keep func(e row) bool) []row {
	n := 0
	for i := range d.n {
		if keep(row{d, int32(i)}) {
			n++
		}
	}
	out := make([]row, 0, n)
	for i := range d.n {
		if e := (row{d, int32(i)}); keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// filterEps returns the rows of eps for which keep is true.
func filterEps(eps []row, keep func(e row) bool) []row {
	var out []row
	for _, e := range eps {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

// indices returns the row numbers of rs.
func indices(rs []row) []int32 {
	out := make([]int32, len(rs))
	for k, r := range rs {
		out[k] = r.i
	}
	return out
}

// in reports whether s is one of set.
func in(s string, set ...string) bool { return slices.Contains(set, s) }

// Fault families (paper-design §4.1).
var (
	resolvesModes  = []string{ledger.FaultTimeoutPost, ledger.FaultHTTP500Post, ledger.FaultPartialBatch}
	lateModes      = ledger.LateModes
	cannotModes    = []string{ledger.FaultTimeoutLate, ledger.FaultTimeoutLateTail, ledger.FaultRedelivery}
	committedModes = ledger.CommittedFaults
)

// isPre reports a not-executed world (timeout_pre, http500_pre, and the
// honest not-executed errors).
func isPre(mode string) bool { return strings.HasSuffix(mode, "_pre") }

// faulted reports an episode whose assigned fault fired.
func faulted(e row) bool { return e.FaultMode() != ledger.FaultNone && e.FaultFired() }

// committedOrRedelivery reports a fired committed fault or redelivery.
func committedOrRedelivery(e row) bool {
	return e.FaultFired() && (in(e.FaultMode(), committedModes...) || e.FaultMode() == ledger.FaultRedelivery)
}

// paperModels is the order in which the paper lists models; others follow
// alphabetically.
var paperModels = []string{"gpt-6-astra", "gpt-6-sol", "gpt-5.6-sol", "claude-opus-5.5", "gemini-3.8-flash", "gpt-4.1", "mai-code-1.1-flash", "unnamed-8", "unnamed-9"}

// ordered returns the distinct values of key over eps, in pref order first
// and then alphabetically.
func ordered(eps []row, key func(row) string, pref []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, e := range eps {
		k := key(e)
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	rank := func(s string) int {
		if i := slices.Index(pref, s); i >= 0 {
			return i
		}
		return len(pref)
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := cmp.Compare(rank(a), rank(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

func modelOf(e row) string     { return e.Model() }
func harnessOf(e row) string   { return e.Harness() }
func conditionOf(e row) string { return e.Condition() }

// b2f is 1 for true.
func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// Outcome selectors.
func dupOf(e row) float64 { return b2f(e.Duplicated()) }
func tsOf(e row) float64  { return b2f(e.TaskSuccess()) }
func eosOf(e row) float64 { return b2f(e.EOS()) }

// Columns are the ledger columns tables ns read (with episode_id), for
// reading only those.
func Columns(ns []int) []string {
	cols := []string{"episode_id"}
	for _, n := range ns {
		for _, c := range TableColumns(n) {
			if !slices.Contains(cols, c) {
				cols = append(cols, c)
			}
		}
	}
	return cols
}

// RunSeed is the ledger's run seed when every episode has the same one
// ("" otherwise, or when the seed column was not read).
func (d *Data) RunSeed() string {
	if d.n == 0 || d.Columns != nil && !slices.Contains(d.Columns, "seed") {
		return ""
	}
	c := &d.ints[iSeed]
	s := c.get(0)
	for i := range int32(d.n) {
		if c.get(i) != s {
			return ""
		}
	}
	return strconv.FormatInt(s, 10)
}
