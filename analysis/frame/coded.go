package frame

import (
	"unsafe"

	"github.com/limbo-toolkit/limbo/ledger"
)

// A column scan (one that reads dictionary codes rather than rows) feeds a
// Builder through Intern (or Share), AddCoded and AddToCell; the frame it
// builds is the one Add would build from the same rows in the same order:
// the same levels, cells in order of first appearance, sums in row order.

// Intern returns the code of value s (Value.String of a value of kind k)
// in column j, adding the level when new. The first value interned or
// added sets the column's kind.
func (b *Builder) Intern(j int, k ledger.Kind, s string) int32 {
	b.setKind(j, k)
	return b.internText(j, s)
}

// Share makes texts column j's dictionary: a source's dictionary by its
// codes, such as the one a held table.Data hands out with every batch of
// a text column, which the builder then only reads. The source's codes
// are then column j's codes, for AddCoded as they are, and no text is
// interned again. It does so while column j has no level yet, and reports
// whether column j's dictionary is texts (the same slice: a Data's batches
// all carry its one dictionary); when false, Intern the texts. The frame's
// levels are still those of the rows added: Frame drops the texts no row
// used before it sorts them.
func (b *Builder) Share(j int, k ledger.Kind, texts []string) bool {
	d := &b.dicts[j]
	if d.Len() == 0 && len(texts) > 0 && !d.shared {
		b.setKind(j, k)
		d.share(texts)
		return true
	}
	return d.shared && len(d.texts) == len(texts) && len(texts) > 0 && unsafe.SliceData(d.texts) == unsafe.SliceData(texts)
}

// setKind sets column j's kind when it has none yet.
func (b *Builder) setKind(j int, k ledger.Kind) {
	if !b.kinds[j] {
		b.kinds[j] = true
		b.cols[j].Kind = k
	}
}

// internText returns the code of s in column j, adding it when new.
func (b *Builder) internText(j int, s string) int32 {
	d := &b.dicts[j]
	if !d.shared && b.interned[j] == nil {
		return d.Intern(s)
	}
	// A shared dictionary: the code is marked as a level of the frame
	// (a copy, made when s is new, stays marked the same way).
	k := d.Intern(s)
	m := b.interned[j]
	for int(k) >= len(m) {
		m = append(m, false)
	}
	m[k] = true
	b.interned[j] = m
	return k
}

// levels sets column j's levels from its dictionary: every text, or for a
// dictionary shared with a source those the cells' codes or Intern used,
// in the order of their codes, the codes renumbered to match.
func (b *Builder) levels(j int) {
	c, d := b.cols[j], &b.dicts[j]
	if b.interned[j] == nil && !d.shared {
		c.Levels = d.Texts()
		return
	}
	used := make([]bool, d.Len())
	copy(used, b.interned[j])
	for _, k := range c.Codes {
		used[k] = true
	}
	remap := make([]int32, d.Len())
	c.Levels = nil
	for k, u := range used {
		if u {
			remap[k] = int32(len(c.Levels))
			c.Levels = append(c.Levels, d.Text(int32(k)))
		}
	}
	for i, k := range c.Codes {
		c.Codes[i] = remap[k]
	}
}

// AddCoded adds a row given its codes (from Intern, or a shared
// dictionary's, one per column of the spec), its 0/1 outcome y and its
// weight w (1 for unit weights; finite and ≥ 0, which the caller has
// checked), and returns the cell it went to. It does not check the
// columns as Add does on its first row.
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
	w = b.scaleWeight(w)
	b.cells[i].Add(Cell{N: 1, Events: int64(y), SumW: w, SumW2: w * w, SumWY: w * y})
}
