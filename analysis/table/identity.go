package table

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"strconv"
	"sync"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Episode identity of held data. A ledger file's ids are checked unique
// by the ledger readers on every read, whatever columns it reads; episodes
// held in memory (Episodes, Rows, a Data built with NewData or Append)
// never passed a reader, so their source checks them once, before its
// first scan: no analysis counts an episode twice, wherever it came from
// (docs/design.md, "Nothing doubled, nothing lost").

// identity is the one check of the ids of rows held in memory.
type identity struct {
	once sync.Once
	err  error
}

// check runs find once and returns its error every time.
func (c *identity) check(find func() error) error {
	c.once.Do(func() { c.err = find() })
	return c.err
}

// firstDuplicate returns the first row (in order) of n whose id repeats
// an earlier one, and that earlier row; ok is false when every id is
// unique. id(i) is row i's id, nil for a row without one (not checked).
func firstDuplicate(n int, id func(i int) []byte) (first, dup int, ok bool) {
	seed := maphash.MakeSeed()
	seen := make(map[uint64]int32, n)
	var exact map[string]int32 // ids whose hash another id had first
	for i := range n {
		b := id(i)
		if b == nil {
			continue
		}
		h := maphash.Bytes(seed, b)
		j, hit := seen[h]
		if !hit {
			seen[h] = int32(i)
			continue
		}
		if bytes.Equal(id(int(j)), b) {
			return int(j), i, true
		}
		if k, hit := exact[string(b)]; hit {
			return int(k), i, true
		}
		if exact == nil {
			exact = map[string]int32{}
		}
		exact[string(b)] = int32(i)
	}
	return 0, 0, false
}

// duplicateError names a repeated id of held rows: the later row by its
// id, as every error about held rows names it, and the earlier by its
// index.
func duplicateError(id string, first, dup int) error {
	p := ledger.Problem{Field: "episode_id", Msg: "duplicate " + strconv.Quote(id) + " (first at row " + strconv.Itoa(first) + ")"}
	return fmt.Errorf("%s: row %d: %w", heldName, dup, p)
}

// checkIdentity checks the episode ids of the rows of a held source.
func (s *heldSource) checkIdentity() error {
	return s.ident.check(func() error {
		rows := make([]frame.Row, 0, len(s.eps)+len(s.rows))
		for _, e := range s.eps {
			rows = append(rows, e)
		}
		rows = append(rows, s.rows...)
		id := func(i int) []byte {
			v, ok := rows[i].Get("episode_id")
			if !ok || v.Null || v.Str == "" {
				return nil
			}
			return []byte(v.Str)
		}
		if first, dup, ok := firstDuplicate(len(rows), id); ok {
			return duplicateError(string(id(dup)), first, dup)
		}
		return nil
	})
}

// checkIdentity checks the episode ids of rows appended to d (NewData,
// Append); a Data read from a ledger (Read) was checked by the reader.
func (d *Data) checkIdentity() error {
	if d.ident == nil || d.ids == nil || d.ids.end == nil {
		return nil
	}
	return d.ident.check(func() error {
		st := d.ids
		id := func(i int) []byte {
			lo := int64(0)
			if i > 0 {
				lo = st.end[i-1]
			}
			if lo == st.end[i] {
				return nil // built in code without an id
			}
			return st.bytes[lo:st.end[i]]
		}
		if first, dup, ok := firstDuplicate(len(st.end), id); ok {
			return duplicateError(string(id(dup)), first, dup)
		}
		return nil
	})
}

// checkAcross checks that no episode id of one of several files is in
// another (each file's own ids are checked by its reader): the ledger
// readers see one file, or the files of one directory or glob, at a time.
func (s *Files) checkAcross() error {
	if len(s.Paths) < 2 {
		return nil
	}
	seed := maphash.MakeSeed()
	first := map[uint64]int{} // id hash → the file it was first seen in
	for k, in := range s.Paths {
		var dup error
		one := &Files{Paths: []string{in}, Format: s.Format, Strict: s.Strict, Grader: s.Grader, rows: s.rows}
		_, err := one.IDs(func(int64) bool { return true }, func(id []byte) {
			if dup != nil {
				return
			}
			h := maphash.Bytes(seed, id)
			if j, ok := first[h]; ok && j != k {
				p := ledger.Problem{File: in, Field: "episode_id", Msg: "duplicate " + strconv.Quote(string(id)) + " (also in " + s.Paths[j] + ")"}
				dup = p
				return
			}
			first[h] = k
		})
		if err != nil {
			return err
		}
		if dup != nil {
			return dup
		}
	}
	return nil
}
