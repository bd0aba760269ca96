package table

import "github.com/limbo-toolkit/limbo/ledger"

// row is episode i of d; its Get makes it a frame.Row (Data.Episode
// materialises it).
type row struct {
	d *Data
	i int32
}

// costUSD is the optional cost; ok is false when the episode has none.
func (r row) costUSD() (float64, bool) {
	c := &r.d.floats[fCostUSD]
	if !c.active() || c.valid != nil && !c.valid.get(int(r.i)) {
		return 0, false
	}
	return c.get(r.i), true
}

// episodeID is the episode's id ("" when not read).
func (r row) episodeID() string {
	st := r.d.ids
	if st == nil {
		return ""
	}
	if st.end == nil {
		r.d.loadIDs()
	}
	lo := int64(0)
	if r.i > 0 {
		lo = st.end[r.i-1]
	}
	return string(st.bytes[lo:st.end[r.i]])
}

// Get returns the named column as ledger.Episode.Get does (a schema
// column not read is its zero value), so a row is a frame.Row; derived
// columns (WithBools) come first.
func (r row) Get(name string) (ledger.Value, bool) {
	if s, ok := r.d.derived[name]; ok {
		return ledger.Value{Kind: ledger.KindBool, Bool: s.get(int(r.i))}, true
	}
	s, ok := slots[name]
	if !ok {
		if name == "episode_id" {
			return ledger.Value{Kind: ledger.KindString, Str: r.episodeID()}, true
		}
		x := r.d.extras[name]
		if x == nil || !x.has.get(int(r.i)) {
			return ledger.Value{}, false
		}
		v := x.Value(int(r.i))
		return ledger.Value{Kind: ledger.KindString, Str: v, Null: v == ""}, true
	}
	switch s.kind {
	case ledger.KindString:
		return ledger.Value{Kind: ledger.KindString, Str: r.d.strs[s.i].Value(int(r.i))}, true
	case ledger.KindInt:
		return ledger.Value{Kind: ledger.KindInt, Int: r.d.ints[s.i].get(r.i)}, true
	case ledger.KindFloat:
		if s.i == fCostUSD {
			c, ok := r.costUSD()
			return ledger.Value{Kind: ledger.KindFloat, Num: c, Null: !ok}, true
		}
		return ledger.Value{Kind: ledger.KindFloat, Num: r.d.floats[s.i].get(r.i)}, true
	}
	return ledger.Value{Kind: ledger.KindBool, Bool: r.d.bools[s.i].bits.get(int(r.i))}, true
}

// rowPtr is a row behind a pointer, so that one value serves as the
// frame.Row of every row of a scan without an allocation each.
type rowPtr struct{ row }

func (r *rowPtr) Get(name string) (ledger.Value, bool) { return r.row.Get(name) }
