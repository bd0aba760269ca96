package frame

import "github.com/limbo-toolkit/limbo/ledger"

// A column scan (one that reads dictionary codes rather than rows) feeds a
// Builder through Intern, AddCoded and AddToCell; the frame it builds is
// the one Add would build from the same rows in the same order: the same
// levels, cells in order of first appearance, sums in row order.

// Intern returns the code of value s (Value.String of a value of kind k)
// in column j, adding the level when new. The first value interned or
// added sets the column's kind.
func (b *Builder) Intern(j int, k ledger.Kind, s string) int32 {
	c := b.cols[j]
	if !b.kinds[j] {
		b.kinds[j] = true
		c.Kind = k
	}
	code, ok := b.intern[j][s]
	if !ok {
		code = int32(len(c.Levels))
		b.intern[j][s] = code
		c.Levels = append(c.Levels, s)
	}
	return code
}

// AddCoded adds a row given its codes (from Intern, one per column of the
// spec), its 0/1 outcome y and its weight w (1 for unit weights; finite
// and ≥ 0, which the caller has checked), and returns the cell it went to.
// It does not check the columns as Add does on its first row.
func (b *Builder) AddCoded(codes []int32, y, w float64) int32 {
	b.first = false
	copy(b.codes, codes)
	return b.push(y, w)
}

// StableCells reports whether rows with equal codes always go to the same
// cell (collapsing without a limit), so that a caller may remember the
// cell AddCoded returned and use AddToCell for the next such row.
func (b *Builder) StableCells() bool { return b.spec.Collapse && b.spec.CollapseLimit == 0 }

// AddToCell adds a row with outcome y and weight w to cell i, which
// AddCoded returned for a row of the same codes (StableCells only).
func (b *Builder) AddToCell(i int32, y, w float64) {
	b.rows++
	b.cells[i].Add(Cell{N: 1, Events: int64(y), SumW: w, SumW2: w * w, SumWY: w * y})
}
