package ledger

import (
	"slices"
)

// ExtraColumns lists the extra (non-schema) columns of the ledger at path
// in the order they first appear: the CSV header's, the Parquet schema's,
// or, for JSONL, the unknown top-level fields of every line (one streaming
// pass). Export uses it to carry a user's columns through. For a directory
// or glob (ReadEpisodes) it lists the extra columns of all its files,
// partition directories included, in order of first appearance.
func ExtraColumns(path, format string) ([]string, error) {
	if multiInput(path) {
		srcs, err := ExpandInput(path)
		if err != nil {
			return nil, err
		}
		var all []string
		add := func(c string) {
			if _, schema := colIndex[c]; !schema && !slices.Contains(all, c) {
				all = append(all, c)
			}
		}
		for _, s := range srcs {
			x, err := ExtraColumns(s.Path, format)
			if err != nil {
				return nil, err
			}
			for _, c := range x {
				add(c)
			}
			for _, pv := range s.Partition {
				add(pv.Column)
			}
		}
		return all, nil
	}
	format, err := formatOf(path, format)
	if err != nil {
		return nil, Problem{File: path, Msg: err.Error()}
	}
	switch format {
	case "csv":
		_, extra, err := CSVHeader(path)
		return extra, err
	case "parquet":
		p, err := openPQ(path)
		if err != nil {
			return nil, err
		}
		defer p.close()
		var extra []string
		for _, f := range p.schema.Fields() {
			if _, ok := colIndex[f.Name]; !ok {
				extra = append(extra, f.Name)
			}
		}
		return extra, nil
	}
	var extra []string
	rep := newReporter(path, &ReadOptions{Errors: func(Problem) {}})
	err = jsonlLines(path, rep, func(line int, b []byte) error {
		var r RawEpisode
		info, err := decodeLine(b, &r, nil, func(string, string) {})
		if err != nil {
			return nil // reported by the reader proper
		}
		for _, k := range info.extras {
			if !slices.Contains(extra, k) {
				extra = append(extra, k)
			}
		}
		return nil
	})
	return extra, err
}

// FileColumns lists the columns a CSV or Parquet ledger carries (the
// header's or the schema's names, schema and extra alike, in file order),
// so that a caller can ask ReadOptions.Columns for only those it has. For
// JSONL, whose lines each carry their own fields, it returns nil.
//
// For a directory or glob (ReadEpisodes) it lists the columns every one of
// its files carries, or restores from its partition directories, in the
// first file's order; nil if any file is JSONL.
func FileColumns(path, format string) ([]string, error) {
	if multiInput(path) {
		srcs, err := ExpandInput(path)
		if err != nil {
			return nil, err
		}
		var common []string
		for k, s := range srcs {
			cols, err := FileColumns(s.Path, format)
			if err != nil || cols == nil {
				return nil, err
			}
			for _, pv := range s.Partition {
				if !slices.Contains(cols, pv.Column) {
					cols = append(cols, pv.Column)
				}
			}
			if k == 0 {
				common = cols
				continue
			}
			common = slices.DeleteFunc(common, func(c string) bool { return !slices.Contains(cols, c) })
		}
		return common, nil
	}
	format, err := formatOf(path, format)
	if err != nil {
		return nil, Problem{File: path, Msg: err.Error()}
	}
	switch format {
	case "csv":
		hdr, _, err := CSVHeader(path)
		return hdr, err
	case "parquet":
		p, err := openPQ(path)
		if err != nil {
			return nil, err
		}
		defer p.close()
		var cols []string
		for _, f := range p.schema.Fields() {
			cols = append(cols, f.Name)
		}
		return cols, nil
	}
	return nil, nil
}
