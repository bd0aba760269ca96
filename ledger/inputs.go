package ledger

import (
	"cmp"
	"errors"
	"io/fs"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Source is one file of a ledger given as a directory or a glob.
type Source struct {
	Path string
	// Partition holds the Hive-style col=value directories between the
	// dataset's root and the file, values unescaped, outermost first.
	Partition []PartitionValue

	// calls and effects are the file's tables in the sibling datasets of
	// a partitioned export (PartitionSiblings), if any.
	calls, effects string
}

// Siblings returns the file's calls and effects tables in the sibling
// datasets of a partitioned raw export (DIR.calls/…, DIR.effects/…, at
// the file's own relative path), each "" if absent.
func (s Source) Siblings() (calls, effects string) { return s.calls, s.effects }

// PartitionValue is one col=value directory of a Hive-style path.
type PartitionValue struct{ Column, Value string }

// ledgerExts are the extensions a directory or glob is searched for.
var ledgerExts = []string{".parquet", ".csv", ".jsonl", ".ndjson"}

// isSiblingTable reports whether name is the calls or effects table beside
// an episode table (X.calls.parquet): read as part of X, never on its own.
func isSiblingTable(name string) bool {
	return strings.HasSuffix(name, ".calls.parquet") || strings.HasSuffix(name, ".effects.parquet")
}

// hasMeta reports whether path uses glob syntax.
func hasMeta(path string) bool { return strings.ContainsAny(path, "*?[") }

// ExpandInput lists the files of the ledger at path, in the order they are
// read. path is one of:
//
//   - a ledger file: itself;
//   - a directory, such as one written by export --partition-by: every
//     .parquet, .csv, .jsonl and .ndjson file below it, except the calls
//     and effects tables beside episode files and names starting with "."
//     or "_" (temporary files, _SUCCESS markers), with the col=value
//     directories on the way as its Partition;
//   - a glob (filepath.Match syntax; "*" does not cross "/"): the matching
//     files, directories among them expanded as above.
//
// The order is the paths' natural order (digit runs compare as numbers, so
// part-2 comes before part-10), the same on every machine.
func ExpandInput(path string) ([]Source, error) {
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.IsDir():
		return []Source{{Path: path}}, nil
	case err == nil:
		srcs, err := walkDataset(path, path, nil)
		if err != nil {
			return nil, err
		}
		if len(srcs) == 0 {
			return nil, Problem{File: path, Msg: "directory holds no ledger files (.parquet, .csv, .jsonl, .ndjson)"}
		}
		return srcs, nil
	case !errors.Is(err, fs.ErrNotExist):
		return nil, Problem{File: path, Msg: errMsg(err)}
	case !hasMeta(path):
		return nil, Problem{File: path, Msg: "no such file"}
	}
	matches, err := filepath.Glob(path)
	if err != nil {
		// Not a pattern either ("a[.csv"): a file name that does not exist.
		return nil, Problem{File: path, Msg: "no such file"}
	}
	// Partition directories are those the pattern matched, not the fixed
	// directories above its first wildcard.
	fixed := 0
	for _, seg := range strings.Split(filepath.ToSlash(path), "/") {
		if hasMeta(seg) {
			break
		}
		fixed++
	}
	// The dataset's root, whose sibling datasets (PartitionSiblings) hold
	// the calls and effects of its files: the directory of the pattern's
	// fixed segments less the col=value directories at their end.
	rootSegs := strings.Split(filepath.ToSlash(path), "/")[:fixed]
	for len(rootSegs) > 0 {
		if _, ok := parsePartitionDir(rootSegs[len(rootSegs)-1]); !ok {
			break
		}
		rootSegs = rootSegs[:len(rootSegs)-1]
	}
	root := filepath.FromSlash(strings.Join(rootSegs, "/"))
	if root == "" && filepath.IsAbs(path) {
		root = string(filepath.Separator)
	}
	var srcs []Source
	for _, m := range matches {
		segs := strings.Split(filepath.ToSlash(m), "/")
		var part []PartitionValue
		for _, s := range segs[min(fixed, len(segs)-1) : len(segs)-1] {
			if pv, ok := parsePartitionDir(s); ok {
				part = append(part, pv)
			}
		}
		fi, err := os.Stat(m)
		if err != nil {
			return nil, Problem{File: m, Msg: errMsg(err)}
		}
		if fi.IsDir() {
			if pv, ok := parsePartitionDir(segs[len(segs)-1]); ok {
				part = append(part, pv)
			}
			sub, err := walkDataset(m, root, part)
			if err != nil {
				return nil, err
			}
			srcs = append(srcs, sub...)
			continue
		}
		if isSiblingTable(m) {
			continue
		}
		calls, effects := siblingsIn(root, m)
		srcs = append(srcs, Source{Path: m, Partition: part, calls: calls, effects: effects})
	}
	if len(srcs) == 0 {
		if !strings.ContainsAny(path, "*?") {
			// Only brackets, which file names hold too ("runs[1].parquet"):
			// most likely a name, and no file has it.
			return nil, Problem{File: path, Msg: "no such file"}
		}
		return nil, Problem{File: path, Msg: "no ledger file matches the pattern"}
	}
	sortSources(srcs)
	return srcs, nil
}

// siblingsIn returns the calls and effects tables of the file p of the
// dataset at root, at p's path relative to root in root's sibling
// datasets (PartitionSiblings), each "" if absent.
func siblingsIn(root, p string) (calls, effects string) {
	if root == "" {
		return "", "" // a pattern with no fixed directory: no sibling datasets
	}
	rel, err := filepath.Rel(root, p)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", ""
	}
	var sib [2]string
	c, x := PartitionSiblings(root)
	for j, d := range [2]string{c, x} {
		if _, err := os.Stat(filepath.Join(d, rel)); err == nil {
			sib[j] = filepath.Join(d, rel)
		}
	}
	return sib[0], sib[1]
}

// walkDataset lists the ledger files below root, each with the partition
// directories on its way (after those in inherited) and its calls and
// effects tables in the sibling datasets of sibRoot (root itself, or the
// dataset a glob's match lies in).
func walkDataset(root, sibRoot string, inherited []PartitionValue) ([]Source, error) {
	var srcs []Source
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return Problem{File: p, Msg: errMsg(err)}
		}
		name := d.Name()
		if p != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || isSiblingTable(name) || !slices.Contains(ledgerExts, strings.ToLower(filepath.Ext(name))) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return Problem{File: p, Msg: errMsg(err)}
		}
		part := slices.Clone(inherited)
		var sib [2]string
		sib[0], sib[1] = siblingsIn(sibRoot, p)
		segs := strings.Split(filepath.ToSlash(rel), "/")
		for _, s := range segs[:len(segs)-1] {
			if pv, ok := parsePartitionDir(s); ok {
				part = append(part, pv)
			}
		}
		srcs = append(srcs, Source{Path: p, Partition: part, calls: sib[0], effects: sib[1]})
		return nil
	})
	sortSources(srcs)
	return srcs, err
}

// parsePartitionDir splits a Hive directory name col=value, undoing
// EscapePartitionValue.
func parsePartitionDir(seg string) (PartitionValue, bool) {
	k, v, ok := strings.Cut(seg, "=")
	if !ok || k == "" {
		return PartitionValue{}, false
	}
	return PartitionValue{Column: unescapePartition(k), Value: unescapePartition(v)}, true
}

// unescapePartition decodes %XX escapes; a malformed escape stays as it
// is, as Hive leaves it.
func unescapePartition(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	unhex := func(c byte) (byte, bool) {
		switch {
		case '0' <= c && c <= '9':
			return c - '0', true
		case 'a' <= c && c <= 'f':
			return c - 'a' + 10, true
		case 'A' <= c && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if ok1 && ok2 {
				b.WriteByte(hi<<4 | lo)
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func sortSources(srcs []Source) {
	slices.SortFunc(srcs, func(a, b Source) int { return naturalCompare(filepath.ToSlash(a.Path), filepath.ToSlash(b.Path)) })
}

// naturalCompare orders strings with runs of digits compared by value
// (part-2 before part-10), then bytewise.
func naturalCompare(a, b string) int {
	isDigit := func(c byte) bool { return '0' <= c && c <= '9' }
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			x, y := strings.TrimLeft(a[si:i], "0"), strings.TrimLeft(b[sj:j], "0")
			if c := cmp.Compare(len(x), len(y)); c != 0 {
				return c
			}
			if c := strings.Compare(x, y); c != 0 {
				return c
			}
			continue
		}
		if a[i] != b[j] {
			return cmp.Compare(a[i], b[j])
		}
		i++
		j++
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c
	}
	return strings.Compare(a, b)
}

// IsMultiInput reports whether path names a directory or a glob (read
// file by file, ExpandInput) rather than one ledger file.
func IsMultiInput(path string) bool { return multiInput(path) }

// multiInput reports whether path names a directory or a glob rather than
// one ledger file.
func multiInput(path string) bool {
	fi, err := os.Stat(path)
	if err == nil {
		return fi.IsDir()
	}
	return errors.Is(err, fs.ErrNotExist) && hasMeta(path)
}

// readMulti reads every file of a directory or glob as one ledger: one set
// of episode ids across the files (a duplicate names the file and line of
// the first), partition directories checked against, or restored into,
// each row.
func readMulti(path string, opt ReadOptions, one func(path string, opt ReadOptions) error) error {
	srcs, err := ExpandInput(path)
	if err != nil {
		return err
	}
	ids := newIDSet()
	for _, s := range srcs {
		o := opt
		o.ids = ids
		o.siblings = [2]string{s.calls, s.effects}
		format, _ := formatOf(s.Path, opt.Format)
		ids.startFile(s.Path, format == "parquet")
		if len(s.Partition) > 0 {
			if err := applyPartition(s, &o); err != nil {
				return err
			}
		}
		if err := one(s.Path, o); err != nil {
			return err
		}
	}
	return nil
}

// applyPartition sets opt.fill (and opt.absent) so that the readers check
// each row of the file s against its partition directories, or, for a
// column the file does not carry (a dataset written by another tool),
// restore it from the path with the column's schema type.
func applyPartition(s Source, opt *ReadOptions) error {
	have, err := FileColumns(s.Path, opt.Format)
	if err != nil {
		return err
	}
	// have is nil for JSONL, whose lines each carry their fields: checked.
	inFile := func(c string) bool { return have == nil || slices.Contains(have, c) }
	wanted := func(c string) bool { return opt.Columns == nil || slices.Contains(opt.Columns, c) }
	var tmpl Episode
	var check, restore colMask
	var checkX, restoreX []PartitionValue
	for _, pv := range s.Partition {
		v := pv.Value
		if v == HiveDefaultPartition {
			v = "" // how Hive and Spark spell an empty or null value
		}
		i, schema := colIndex[pv.Column]
		if !schema {
			switch {
			case inFile(pv.Column) && wanted(pv.Column):
				checkX = append(checkX, PartitionValue{pv.Column, v})
			case !inFile(pv.Column) && wanted(pv.Column):
				restoreX = append(restoreX, PartitionValue{pv.Column, v})
				if opt.Columns != nil {
					opt.Columns = slices.DeleteFunc(slices.Clone(opt.Columns), func(c string) bool { return c == pv.Column })
				}
			}
			continue
		}
		if msg := setCell(&tmpl, i, v); msg != "" {
			return Problem{File: s.Path, Field: pv.Column, Msg: "partition directory " + pv.Column + "=" + pv.Value + ": " + msg}
		}
		if !wanted(pv.Column) {
			continue
		}
		if inFile(pv.Column) {
			check |= 1 << uint(i)
			continue
		}
		var ps []Problem
		validateEpisode(&tmpl, 1<<uint(i), func(p Problem) {
			if !p.Warning {
				ps = append(ps, p)
			}
		})
		if len(ps) > 0 {
			return Problem{File: s.Path, Field: pv.Column, Msg: "partition directory " + pv.Column + "=" + pv.Value + ": " + ps[0].Msg}
		}
		restore |= 1 << uint(i)
	}
	opt.absent = restore
	opt.fill = func(e *Episode, ps []Problem) []Problem {
		for rest := restore; rest != 0; rest &= rest - 1 {
			i := bits.TrailingZeros64(uint64(rest))
			copyField(e.ref(i), tmpl.ref(i))
		}
		for rest := check; rest != 0; rest &= rest - 1 {
			i := bits.TrailingZeros64(uint64(rest))
			if !equalField(e.ref(i), tmpl.ref(i)) {
				v, _ := e.Get(EpisodeColumns[i].Name)
				want, _ := tmpl.Get(EpisodeColumns[i].Name)
				ps = append(ps, Problem{Field: EpisodeColumns[i].Name, Msg: "value " + strconv.Quote(v.String()) + " differs from the partition directory's " + strconv.Quote(want.String())})
			}
		}
		for _, x := range restoreX {
			if e.Extra == nil {
				e.Extra = map[string]string{}
			}
			e.Extra[x.Column] = x.Value
		}
		for _, x := range checkX {
			if got := e.Extra[x.Column]; got != x.Value {
				ps = append(ps, Problem{Field: x.Column, Msg: "value " + strconv.Quote(got) + " differs from the partition directory's " + strconv.Quote(x.Value)})
			}
		}
		return ps
	}
	return nil
}

// copyField sets the field dst to the value of src (same column).
func copyField(dst, src fieldRef) {
	switch {
	case dst.s != nil:
		*dst.s = *src.s
	case dst.i != nil:
		*dst.i = *src.i
	case dst.f != nil:
		*dst.f = *src.f
	case dst.b != nil:
		*dst.b = *src.b
	default:
		*dst.opt = *src.opt
	}
}

// equalField reports whether two references to the same column hold the
// same value (NaN equal to NaN: an empty float in a path and in a file).
func equalField(a, b fieldRef) bool {
	switch {
	case a.s != nil:
		return *a.s == *b.s
	case a.i != nil:
		return *a.i == *b.i
	case a.f != nil:
		return *a.f == *b.f || (math.IsNaN(*a.f) && math.IsNaN(*b.f))
	case a.b != nil:
		return *a.b == *b.b
	}
	if *a.opt == nil || *b.opt == nil {
		return *a.opt == nil && *b.opt == nil
	}
	return **a.opt == **b.opt
}
