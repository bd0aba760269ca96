package table

import (
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Read loads the episodes of the ledger at path (JSONL, CSV or Parquet; raw
// JSONL lines are graded with opt.Grader). With opt.Columns, only those of
// them that a CSV or Parquet file carries are read, and Data.Columns names
// them, so that an analysis can tell which columns it lacks (a study's
// tables can fail the ones that need such a column and compute the
// others). A Parquet file is read by columns, row groups in parallel
// (ledger.ScanParquet), unless it needs the row reader (a warning to give,
// a null, another layout).
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
	// append copies what it keeps; the reader checks the ids.
	opt.Reuse = true
	d.start(0)
	err = ledger.ReadEpisodes(path, opt, func(e *ledger.Episode) error {
		d.append(e)
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
