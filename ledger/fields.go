package ledger

import (
	"math/bits"
	"slices"
)

// Column indices into EpisodeColumns, and typed access to an episode's
// fields by index, shared by the readers and writers so that no format
// walks the schema by name per row. The indices (col*) and the ref
// methods that map an index to its field are generated from the tables,
// in columns_gen.go.

// colMask is a set of EpisodeColumns indices.
type colMask uint64

func (m colMask) has(i int) bool { return m&(1<<uint(i)) != 0 }

var (
	colIndex    = map[string]int{} // name → index in EpisodeColumns
	allCols     colMask            // every schema column
	requiredSet colMask            // columns a graded row must have
	designCols  colMask            // design columns (what a raw line carries)
	sparseCols  colMask            // columns of a group (Column.Group)
)

// groupCols returns the columns of group g.
func groupCols(g string) colMask {
	var m colMask
	for i, c := range EpisodeColumns {
		if c.Group == g && g != "" {
			m |= 1 << uint(i)
		}
	}
	return m
}

// groupsMask returns the columns of the named groups; an unknown name
// selects nothing.
func groupsMask(groups []string) colMask {
	var m colMask
	for _, g := range groups {
		m |= groupCols(g)
	}
	return m
}

// ColumnGroups lists the column groups of the schema (Column.Group), in
// the order of their first column.
func ColumnGroups() []string {
	var out []string
	for _, c := range EpisodeColumns {
		if c.Group != "" && !slices.Contains(out, c.Group) {
			out = append(out, c.Group)
		}
	}
	return out
}

// zeroAt reports whether e's column i holds its zero value (a sparse
// column's "absent").
func (e *Episode) zeroAt(i int) bool {
	r := e.ref(i)
	switch {
	case r.s != nil:
		return *r.s == ""
	case r.i != nil:
		return *r.i == 0
	case r.f != nil:
		return *r.f == 0
	case r.b != nil:
		return !*r.b
	}
	return *r.opt == nil
}

// heldSparse returns the sparse columns of the groups e holds a value in.
func (e *Episode) heldSparse() colMask {
	var held colMask
	for rest := sparseCols &^ held; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(uint64(rest))
		if !held.has(i) && !e.zeroAt(i) {
			held |= groupCols(EpisodeColumns[i].Group)
		}
	}
	return held
}

// Groups lists the column groups whose columns e holds a value in (a
// non-zero value in one of them), in schema order.
func (e *Episode) Groups() []string {
	var out []string
	for rest := sparseCols; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(uint64(rest))
		if g := EpisodeColumns[i].Group; !e.zeroAt(i) && !slices.Contains(out, g) {
			out = append(out, g)
		}
	}
	return out
}

func init() {
	if len(EpisodeColumns) > 64 {
		panic("ledger: more than 64 episode columns; widen colMask")
	}
	for i, c := range EpisodeColumns {
		colIndex[c.Name] = i
		allCols |= 1 << uint(i)
		if !c.Optional {
			requiredSet |= 1 << uint(i)
		}
		if !c.Outcome {
			designCols |= 1 << uint(i)
		}
		if c.Group != "" {
			sparseCols |= 1 << uint(i)
		}
	}
}

// maskOf returns the set of the named schema columns; unknown names are
// ignored (they may be extra columns).
func maskOf(names []string) colMask {
	if names == nil {
		return allCols
	}
	var m colMask
	for _, n := range names {
		if i, ok := colIndex[n]; ok {
			m |= 1 << uint(i)
		}
	}
	return m
}

// fieldRef points at one field of an episode; exactly one pointer is set,
// as the column's Kind says (cost_usd uses opt).
type fieldRef struct {
	s   *string
	i   *int64
	f   *float64
	b   *bool
	opt **float64
}

// Column returns the value of e's column i, an index into EpisodeColumns
// (the typed counterpart of Get, with no lookup by name: for code that
// walks the schema once per episode). A nil cost_usd is Null.
func (e *Episode) Column(i int) Value {
	r := e.ref(i)
	switch {
	case r.s != nil:
		return Value{Kind: KindString, Str: *r.s}
	case r.i != nil:
		return Value{Kind: KindInt, Int: *r.i}
	case r.f != nil:
		return Value{Kind: KindFloat, Num: *r.f}
	case r.b != nil:
		return Value{Kind: KindBool, Bool: *r.b}
	}
	if *r.opt == nil {
		return Value{Kind: KindFloat, Null: true}
	}
	return Value{Kind: KindFloat, Num: **r.opt}
}

// SetColumn sets e's column i, an index into EpisodeColumns, to v: the
// counterpart of Column, for code that fills an episode column by column.
// v's Kind must be the column's (SetColumn panics otherwise, as for an
// index out of range); a Null v sets cost_usd to nil.
func (e *Episode) SetColumn(i int, v Value) {
	r := e.ref(i)
	if k := EpisodeColumns[i].Kind; v.Kind != k {
		panic("ledger: SetColumn: a " + v.Kind.String() + " value for " + k.String() + " column " + EpisodeColumns[i].Name)
	}
	switch {
	case r.s != nil:
		*r.s = v.Str
	case r.i != nil:
		*r.i = v.Int
	case r.f != nil:
		*r.f = v.Num
	case r.b != nil:
		*r.b = v.Bool
	case v.Null:
		*r.opt = nil
	default:
		x := v.Num
		*r.opt = &x
	}
}
