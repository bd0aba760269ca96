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
	extra, _, err := ledgerColumns(path, format)
	return extra, err
}

// GroupsOf lists the column groups (Column.Group) the ledger at path
// carries, in schema order: those with a column in a CSV header or a
// Parquet schema, or, for JSONL, a value in some line (one streaming
// pass). For a directory or glob, those of any of its files. A writer
// given them (WriteOptions.Groups) keeps the ledger's sparse columns.
func GroupsOf(path, format string) ([]string, error) {
	_, groups, err := ledgerColumns(path, format)
	return groups, err
}

// ledgerColumns is ExtraColumns and GroupsOf in one pass.
func ledgerColumns(path, format string) (extra, groups []string, err error) {
	var have colMask
	addGroups := func(names []string) {
		for _, n := range names {
			if i, ok := colIndex[n]; ok && sparseCols.has(i) {
				have |= groupCols(EpisodeColumns[i].Group)
			}
		}
	}
	defer func() { groups = groupsIn(have) }()
	if multiInput(path) {
		srcs, err := ExpandInput(path)
		if err != nil {
			return nil, nil, err
		}
		var all []string
		add := func(c string) {
			if _, schema := colIndex[c]; !schema && !slices.Contains(all, c) {
				all = append(all, c)
			}
		}
		for _, s := range srcs {
			x, g, err := ledgerColumns(s.Path, format)
			if err != nil {
				return nil, nil, err
			}
			for _, c := range x {
				add(c)
			}
			have |= groupsMask(g)
			for _, pv := range s.Partition {
				add(pv.Column)
				addGroups([]string{pv.Column})
			}
		}
		return all, nil, nil
	}
	format, err = formatOf(path, format)
	if err != nil {
		return nil, nil, Problem{File: path, Msg: err.Error()}
	}
	switch format {
	case "csv":
		hdr, extra, err := CSVHeader(path)
		addGroups(hdr)
		return extra, nil, err
	case "parquet":
		p, err := openPQ(path)
		if err != nil {
			return nil, nil, err
		}
		defer p.close()
		var extra, names []string
		for _, f := range p.schema.Fields() {
			names = append(names, f.Name)
			if _, ok := colIndex[f.Name]; !ok {
				extra = append(extra, f.Name)
			}
		}
		addGroups(names)
		return extra, nil, nil
	}
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
		have |= groupsMask(r.Groups())
		return nil
	})
	return extra, nil, err
}

// groupsIn lists the groups of the columns in m, in schema order.
func groupsIn(m colMask) []string {
	var out []string
	for i, c := range EpisodeColumns {
		if m.has(i) && c.Group != "" && !slices.Contains(out, c.Group) {
			out = append(out, c.Group)
		}
	}
	return out
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
