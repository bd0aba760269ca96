package table

import (
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Column views: a caller's own analysis over held Data (a table of its own,
// a derived outcome, a predicate no --where expression states) reads a
// column of every row through one of these, without a value boxed per row
// as Row's Get does. A view is a few words and reads d's storage: it stays
// valid as long as d does, and sees rows appended later only if they fit
// the storage it was taken on, so take views once d is complete.

// Strings is a text column of a Data: each row's value and its code in
// the column's dictionary.
type Strings struct{ c *frame.Coded }

// Strings returns the text column name of d: a schema column (one not
// read is "" in every row) or a user's extra column ("" where a row lacks
// it). ok is false when d has no text column of that name.
func (d *Data) Strings(name string) (s Strings, ok bool) {
	c, ok := d.strColumn(name)
	if !ok {
		return Strings{}, false
	}
	return Strings{c}, true
}

// Value is row i's text.
func (s Strings) Value(i int) string { return s.c.Value(i) }

// Code is row i's code in the column's dictionary: within one Data the
// same text has the same code, so codes key maps and compare without a
// string. It is −1 for a column that was not read.
func (s Strings) Code(i int) int32 {
	if !s.c.Active() {
		return -1
	}
	return s.c.Code(i)
}

// Bools is a boolean column of a Data (a schema column or a derived one,
// WithBools).
type Bools struct{ bits bitset }

// Bools returns the boolean column name of d, derived columns first; a
// schema column not read is false in every row. ok is false when d has
// no boolean column of that name.
func (d *Data) Bools(name string) (b Bools, ok bool) {
	if s, ok := d.derived[name]; ok {
		return Bools{s}, true
	}
	s, ok := slots[name]
	if !ok || s.kind != ledger.KindBool {
		return Bools{}, false
	}
	return Bools{d.bools[s.i].bits}, true
}

// Value is row i's value.
func (b Bools) Value(i int) bool { return b.bits.get(i) }

// Ints is an integer column of a Data.
type Ints struct{ c *intCol }

// Ints returns the integer column name of d (a schema column; one not
// read is 0 in every row). ok is false when the schema has no integer
// column of that name.
func (d *Data) Ints(name string) (v Ints, ok bool) {
	s, ok := slots[name]
	if !ok || s.kind != ledger.KindInt {
		return Ints{}, false
	}
	return Ints{&d.ints[s.i]}, true
}

// Value is row i's value.
func (v Ints) Value(i int) int64 { return v.c.get(int32(i)) }

// Floats is a real column of a Data.
type Floats struct{ c *floatCol }

// Floats returns the real column name of d (a schema column; one not read
// is 0 and missing in every row). ok is false when the schema has no real
// column of that name.
func (d *Data) Floats(name string) (v Floats, ok bool) {
	s, ok := slots[name]
	if !ok || s.kind != ledger.KindFloat {
		return Floats{}, false
	}
	return Floats{&d.floats[s.i]}, true
}

// Value is row i's value (0 where it is missing).
func (v Floats) Value(i int) float64 { return v.c.get(int32(i)) }

// Valid reports whether row i has a value: false for a null of an
// optional column (cost_usd) and for a column that was not read.
func (v Floats) Valid(i int) bool {
	return v.c.active() && (v.c.valid == nil || v.c.valid.get(i))
}
