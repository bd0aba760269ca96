package frame

import (
	"hash/maphash"
	"slices"
	"unsafe"
)

// The engine codes text once, here: a Dict numbers distinct texts in order
// of first appearance, and a Coded column is a Dict and one code per row.
// table.Data's string columns are Coded columns; a Builder interns a
// frame's levels in a Dict per column (Frame then sorts them, Column.Sort,
// mapping the first-seen codes to sorted ones explicitly); the pairings of
// package analysis number their arms and keys with Dicts. A frame built
// from a Data's column batches reuses the Data's codes (Builder.Share):
// no text is interned again.

// Dict is a dictionary of distinct texts, numbered from 0 in order of
// first appearance. The zero Dict is empty and ready to use.
type Dict struct {
	texts []string
	idx   dictIndex // finds a text's code; empty until needed, or once released
	// arena holds the texts, copied from the callers' (often a reader's
	// reused) buffers a chunk at a time rather than one allocation each.
	arena []byte
	// shared is set when texts belong to someone else (Share): the first
	// text added copies them.
	shared bool
}

// Len is the number of distinct texts.
func (d *Dict) Len() int { return len(d.texts) }

// Text returns the text of code k.
func (d *Dict) Text(k int32) string { return d.texts[k] }

// Texts returns the texts by code. The slice is d's: read it only, and
// only until the next text is added.
func (d *Dict) Texts() []string { return d.texts }

// Intern returns the code of s, adding it (a copy: s may point into a
// buffer its caller reuses) when new.
func (d *Dict) Intern(s string) int32 {
	if d.idx.slots == nil {
		d.idx.build(d.texts, len(d.texts)) // first, or after Release
	}
	k, h := d.idx.lookup(d.texts, s)
	if k >= 0 {
		return k
	}
	return d.insert(s, h)
}

// InternBytes is Intern for a text given as bytes.
func (d *Dict) InternBytes(b []byte) int32 {
	if d.idx.slots == nil {
		d.idx.build(d.texts, len(d.texts))
	}
	k, h := d.idx.lookupBytes(d.texts, b)
	if k >= 0 {
		return k
	}
	return d.insert(unsafe.String(unsafe.SliceData(b), len(b)), h)
}

// insert adds s, whose hash is h, and returns its code.
func (d *Dict) insert(s string, h uint64) int32 {
	if d.shared {
		d.texts, d.shared = slices.Clone(d.texts), false
	}
	k := int32(len(d.texts))
	d.texts = append(d.texts, d.keep(s))
	d.idx.insert(k, h)
	return k
}

// keep returns a copy of s in d's arena.
func (d *Dict) keep(s string) string {
	if len(s) == 0 {
		return ""
	}
	if len(s) > cap(d.arena)-len(d.arena) {
		// Chunks double up to 64 KiB: a frame's few levels take a few
		// hundred bytes, a Data's pair_key megabytes.
		d.arena = make([]byte, 0, max(len(s), min(64<<10, max(256, 2*cap(d.arena)))))
	}
	d.arena = append(d.arena, s...)
	return unsafe.String(unsafe.SliceData(d.arena[len(d.arena)-len(s):]), len(s))
}

// Reserve makes room for n distinct texts, for a column known to have
// many (pair_key has one per world): its index is sized once rather than
// doubled a dozen times.
func (d *Dict) Reserve(n int) {
	d.idx.build(d.texts, n)
	if !d.shared {
		d.texts = slices.Grow(d.texts, n-len(d.texts))
	}
}

// Release drops d's index once no text is to be added; the texts stay.
// Intern builds the index again if needed.
func (d *Dict) Release() { d.idx = dictIndex{} }

// share makes texts, read only, d's texts (d must be empty).
func (d *Dict) share(texts []string) {
	d.texts, d.shared, d.idx = texts, true, dictIndex{}
}

// dictIndex maps the texts of a dictionary to their codes: open addressing
// on a 64-bit hash, every hit confirmed on the text. It holds no pointer,
// so that the garbage collector does not scan millions of entries, and
// grows by copying two flat arrays.
type dictIndex struct {
	seed  maphash.Seed
	slots []uint32 // code + 1, 0 for an empty slot; a power of two long
	hash  []uint64 // by code
}

// build indexes the texts, with room for n.
func (x *dictIndex) build(texts []string, n int) {
	x.seed = maphash.MakeSeed()
	size := 64
	for size < 2*max(n, len(texts)) {
		size *= 2
	}
	x.slots = make([]uint32, size)
	x.hash = make([]uint64, 0, max(n, len(texts)))
	for k, s := range texts {
		x.insert(int32(k), maphash.String(x.seed, s))
	}
}

// lookup returns the code of s in texts (−1 when absent) and s's hash.
func (x *dictIndex) lookup(texts []string, s string) (int32, uint64) {
	h := maphash.String(x.seed, s)
	mask := uint64(len(x.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		k := x.slots[j]
		if k == 0 {
			return -1, h
		}
		if x.hash[k-1] == h && texts[k-1] == s {
			return int32(k - 1), h
		}
	}
}

// lookupBytes is lookup for a text given as bytes.
func (x *dictIndex) lookupBytes(texts []string, b []byte) (int32, uint64) {
	h := maphash.Bytes(x.seed, b)
	mask := uint64(len(x.slots) - 1)
	for j := h & mask; ; j = (j + 1) & mask {
		k := x.slots[j]
		if k == 0 {
			return -1, h
		}
		if x.hash[k-1] == h && texts[k-1] == string(b) {
			return int32(k - 1), h
		}
	}
}

// insert records code k, the next one, with hash h.
func (x *dictIndex) insert(k int32, h uint64) {
	if 2*(len(x.hash)+1) > len(x.slots) {
		x.slots = make([]uint32, 2*len(x.slots))
		for c, hc := range x.hash {
			x.place(int32(c), hc)
		}
	}
	x.hash = append(x.hash, h)
	x.place(k, h)
}

func (x *dictIndex) place(k int32, h uint64) {
	mask := uint64(len(x.slots) - 1)
	j := h & mask
	for x.slots[j] != 0 {
		j = (j + 1) & mask
	}
	x.slots[j] = uint32(k) + 1
}

// Coded is a text column: a Dict and one code per row, a byte while the
// dictionary has at most 256 texts and an int32 after, so that ten million
// rows of a column of few values take ten megabytes. The zero Coded is
// inactive (see Active) and has no rows.
type Coded struct {
	Dict
	c8  []uint8
	c32 []int32
}

// Active reports whether the column holds rows (Grow or Append was
// called), as opposed to a column nobody read.
func (c *Coded) Active() bool { return c.c8 != nil || c.c32 != nil }

// Rows is the number of rows.
func (c *Coded) Rows() int { return len(c.c8) + len(c.c32) }

// Code returns row i's code.
func (c *Coded) Code(i int) int32 {
	if c.c32 != nil {
		return c.c32[i]
	}
	return int32(c.c8[i])
}

// Value returns row i's text ("" in a column that is not active).
func (c *Coded) Value(i int) string {
	switch {
	case c.c32 != nil:
		return c.texts[c.c32[i]]
	case c.c8 != nil:
		return c.texts[c.c8[i]]
	}
	return ""
}

// Append adds a row of code k (from c's Intern).
func (c *Coded) Append(k int32) {
	if c.c32 != nil {
		c.c32 = append(c.c32, k)
		return
	}
	if k > 255 {
		c.c32 = make([]int32, len(c.c8), max(cap(c.c8), len(c.c8)+1))
		for j, x := range c.c8 {
			c.c32[j] = int32(x)
		}
		c.c8 = nil
		c.c32 = append(c.c32, k)
		return
	}
	c.c8 = append(c.c8, uint8(k))
}

// Grow makes room for n more rows; it also makes the column active.
func (c *Coded) Grow(n int) {
	if c.c32 != nil {
		c.c32 = slices.Grow(c.c32, n)
	} else if c.c8 = slices.Grow(c.c8, n); c.c8 == nil {
		c.c8 = []uint8{}
	}
}

// AppendCodes appends the codes of rows lo..hi to dst (rows, when not
// nil, names the rows instead) and returns it with c's texts, the
// dictionary they index: a batch of the column as the Parquet column scan
// hands one out. An inactive column is "" in every row.
func (c *Coded) AppendCodes(dst []int32, lo, hi int, rows []int32) ([]string, []int32) {
	switch {
	case !c.Active():
		for range hi - lo {
			dst = append(dst, 0)
		}
		return []string{""}, dst
	case rows != nil:
		for _, i := range rows {
			dst = append(dst, c.Code(int(i)))
		}
	case c.c32 != nil:
		dst = append(dst, c.c32[lo:hi]...)
	default:
		for _, x := range c.c8[lo:hi] {
			dst = append(dst, int32(x))
		}
	}
	return c.texts, dst
}
