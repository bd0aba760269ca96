package table

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

// The columns of a Data: a string column (a schema one or a user's extra
// one) as a frame.Coded, the engine's one dictionary-coded column (a
// frame.Dict of its texts in order of first appearance and one code per
// row, a byte while it has at most 256 distinct values), which a frame
// built from the Data takes as it is (frame.Builder.Share); integers and
// floats coded in a byte the same way while they have at most 256 values
// and held as they are after; booleans as bits. Ten million episodes take a few
// hundred megabytes this way, where one *ledger.Episode per row took five
// gigabytes.

// Each schema column but episode_id has a slot: its kind and its index
// among the columns of that kind (sExperiment, iSeed, fCostUSD, …), in
// ledger.EpisodeColumns order. The slots are generated from that table,
// in slots_gen.go.

// slot is where a schema column lives in Data.
type slot struct {
	kind ledger.Kind
	i    int
}

// intCol is an integer column: codes into a dictionary of at most 256
// values while it has no more (a seed, an instance number), then int32
// while every value fits, else int64.
type intCol struct {
	dict []int64
	ids  map[int64]uint8
	c8   []uint8
	i32  []int32
	i64  []int64
}

func (c *intCol) active() bool { return c.c8 != nil || c.i32 != nil || c.i64 != nil }

func (c *intCol) get(i int32) int64 {
	switch {
	case c.c8 != nil:
		return c.dict[c.c8[i]]
	case c.i32 != nil:
		return int64(c.i32[i])
	case c.i64 != nil:
		return c.i64[i]
	}
	return 0
}

func (c *intCol) add(x int64) {
	if c.c8 != nil {
		k, ok := c.ids[x]
		if !ok && c.ids == nil && len(c.dict) > 0 { // after release
			c.ids = make(map[int64]uint8, len(c.dict))
			for j, v := range c.dict {
				c.ids[v] = uint8(j)
			}
			k, ok = c.ids[x]
		}
		if ok {
			c.c8 = append(c.c8, k)
			return
		}
		if len(c.dict) < 256 {
			if c.ids == nil {
				c.ids = map[int64]uint8{}
			}
			k = uint8(len(c.dict))
			c.dict = append(c.dict, x)
			c.ids[x] = k
			c.c8 = append(c.c8, k)
			return
		}
		// A 257th value: the values themselves from now on.
		c.i32 = make([]int32, 0, max(cap(c.c8), 1))
		for _, k := range c.c8 {
			c.add32(c.dict[k])
		}
		c.c8, c.dict, c.ids = nil, nil, nil
	}
	c.add32(x)
}

// add32 appends x to the values, as int32 while they all fit.
func (c *intCol) add32(x int64) {
	if c.i64 == nil && x == int64(int32(x)) {
		c.i32 = append(c.i32, int32(x))
		return
	}
	if c.i64 == nil {
		c.i64 = make([]int64, len(c.i32), max(cap(c.i32), 1))
		for j, v := range c.i32 {
			c.i64[j] = int64(v)
		}
		c.i32 = nil
	}
	c.i64 = append(c.i64, x)
}

func (c *intCol) grow(n int) {
	switch {
	case c.i64 != nil:
		c.i64 = slices.Grow(c.i64, n)
	case c.i32 != nil:
		c.i32 = slices.Grow(c.i32, n)
	default:
		if c.c8 = slices.Grow(c.c8, n); c.c8 == nil {
			c.c8 = []uint8{}
		}
	}
}

// floatCol is a float column: codes into a dictionary of at most 256
// values (by their bits: -0 and 0 stay apart), else the values; valid,
// for the optional cost_usd, marks the rows that have one.
type floatCol struct {
	dict  []float64
	ids   map[uint64]uint8
	c8    []uint8
	raw   []float64
	valid bitset // nil: every row has a value
}

func (c *floatCol) active() bool { return c.c8 != nil || c.raw != nil }

func (c *floatCol) get(i int32) float64 {
	switch {
	case c.raw != nil:
		return c.raw[i]
	case c.c8 != nil:
		return c.dict[c.c8[i]]
	}
	return 0
}

func (c *floatCol) add(x float64) {
	if c.raw != nil {
		c.raw = append(c.raw, x)
		return
	}
	b := math.Float64bits(x)
	k, ok := c.ids[b]
	if !ok {
		if len(c.dict) == 256 {
			c.raw = make([]float64, len(c.c8), max(cap(c.c8), 1))
			for j, v := range c.c8 {
				c.raw[j] = c.dict[v]
			}
			c.c8, c.dict, c.ids = nil, nil, nil
			c.raw = append(c.raw, x)
			return
		}
		if c.ids == nil {
			c.ids = make(map[uint64]uint8, len(c.dict))
			for j, v := range c.dict { // after release
				c.ids[math.Float64bits(v)] = uint8(j)
			}
		}
		if k, ok = c.ids[b]; ok {
			c.c8 = append(c.c8, k)
			return
		}
		k = uint8(len(c.dict))
		c.dict = append(c.dict, x)
		c.ids[b] = k
	}
	c.c8 = append(c.c8, k)
}

func (c *floatCol) grow(n int) {
	if c.raw != nil {
		c.raw = slices.Grow(c.raw, n)
	} else if c.c8 = slices.Grow(c.c8, n); c.c8 == nil {
		c.c8 = []uint8{}
	}
}

// extraCol is a user's extra (text) column; has marks the rows that carry
// it (episodes built in code may differ in their extra columns).
type extraCol struct {
	frame.Coded
	has bitset
}

// boolCol is a boolean column as bits; on marks a column that was read.
type boolCol struct {
	bits bitset
	on   bool
}

// Data is an episode table held in memory for analysis, as columns (see
// the comment above the slots). Rows are numbered from 0 in the order
// they were read or appended. The zero Data is empty and holds every
// schema column; Append adds episodes one at a time (NewData all at
// once), Read fills it from a ledger, a Parquet one by columns. Queries
// read it by its columns (Held), a caller's own code through
// column views (Strings, Bools, Ints, Floats); Episode materialises one
// row for a caller that needs a whole episode.
type Data struct {
	// Columns names the columns the source carried; nil means every
	// schema column (episodes built in code).
	Columns []string

	n      int
	strs   [numStr]frame.Coded
	ints   [numInt]intCol
	floats [numFloat]floatCol
	bools  [numBool]boolCol
	extras map[string]*extraCol
	// derived are boolean columns added by WithBools (a
	// preregistration's derived columns), answered before the others.
	derived map[string]bitset

	// Episode ids (nil when not read), kept for episodes appended and
	// read again from src for a Parquet ledger, where they are checked
	// unique but not held (seventy bytes a row): by row for a pairing
	// (EpisodeIDs), all at once the first time a row's id is asked for.
	// Views (WithBools) share them.
	ids *idStore
	src string
	// ident checks the ids of rows appended in code once (identity.go);
	// nil for a Data read from a ledger, whose reader checked them.
	ident *identity
	// started is set once the active columns are chosen.
	started bool
}

// NewData holds eps (already validated) as columns, e.g. episodes built
// in code or a test's.
func NewData(eps []*ledger.Episode) *Data {
	d := &Data{}
	d.start(len(eps))
	d.Append(eps...)
	return d
}

// Len is the number of episodes.
func (d *Data) Len() int { return d.n }

// reads reports whether column c is held (Columns nil: every one).
func (d *Data) reads(c string) bool { return d.Columns == nil || slices.Contains(d.Columns, c) }

// start activates the columns d reads, with room for n rows.
func (d *Data) start(n int) { d.startOnly(n, nil) }

// startOnly is start that activates only the columns in only (when not
// nil): those a file has. A column not activated reads as its zero value
// (cost_usd as missing), as an episode's unread field did.
func (d *Data) startOnly(n int, only []string) {
	if d.started {
		return
	}
	d.started = true
	for name, s := range slots {
		if !d.reads(name) || only != nil && !slices.Contains(only, name) {
			continue
		}
		switch s.kind {
		case ledger.KindString:
			d.strs[s.i].Grow(n)
		case ledger.KindInt:
			d.ints[s.i].grow(n)
		case ledger.KindFloat:
			d.floats[s.i].grow(n)
		case ledger.KindBool:
			d.bools[s.i].on = true
			d.bools[s.i].bits = make(bitset, 0, (n+63)/64)
		}
	}
	if d.src == "" && d.reads("episode_id") {
		d.ids = &idStore{end: make([]int64, 0, n)}
	}
}

// Append adds copies of episodes (already validated) as the next rows.
// Their episode ids are checked unique (with the rows before them) when
// the Data is first read by a source (Held).
func (d *Data) Append(eps ...*ledger.Episode) {
	d.start(0)
	for _, e := range eps {
		d.append(e)
	}
	d.ident = &identity{}
}

func (d *Data) append(e *ledger.Episode) {
	for i := range d.strs {
		if c := &d.strs[i]; c.Active() {
			c.Append(c.Intern(e.Column(schemaIndex.str[i]).Str))
		}
	}
	for i := range d.ints {
		if c := &d.ints[i]; c.active() {
			c.add(e.Column(schemaIndex.int[i]).Int)
		}
	}
	for i := range d.floats {
		c := &d.floats[i]
		if !c.active() {
			continue
		}
		x := e.Column(schemaIndex.float[i]).Num // 0 for a nil cost_usd
		if i == fCostUSD {
			if e.CostUSD == nil && c.valid == nil {
				c.valid = make(bitset, (d.n+64)/64)
				for r := range d.n {
					c.valid.set(r, true)
				}
			}
			if c.valid != nil {
				c.valid.set(d.n, e.CostUSD != nil)
			}
		}
		c.add(x)
	}
	for i := range d.bools {
		if c := &d.bools[i]; c.on {
			c.bits.set(d.n, e.Column(schemaIndex.bool[i]).Bool)
		}
	}
	for name, v := range e.Extra {
		x := d.extras[name]
		if x == nil {
			if d.extras == nil {
				d.extras = map[string]*extraCol{}
			}
			x = &extraCol{}
			x.Grow(d.n + 1)
			for k := x.Intern(""); x.Rows() < d.n; {
				x.Append(k)
			}
			d.extras[name] = x
		}
		x.Append(x.Intern(v))
		x.has.set(d.n, true)
	}
	d.n++
	for _, x := range d.extras {
		if x.Rows() < d.n { // not in e.Extra
			x.Append(x.Intern(""))
		}
	}
	if d.ids != nil {
		d.ids.bytes = append(d.ids.bytes, e.EpisodeID...)
		d.ids.end = append(d.ids.end, int64(len(d.ids.bytes)))
	}
}

// schemaIndex holds, for each slot of each kind, the column's index in
// ledger.EpisodeColumns, for Episode.Column.
var schemaIndex = func() (x struct{ str, int, float, bool []int }) {
	x.str, x.int, x.float, x.bool = make([]int, numStr), make([]int, numInt), make([]int, numFloat), make([]int, numBool)
	for i, c := range ledger.EpisodeColumns {
		s, ok := slots[c.Name]
		if !ok {
			continue
		}
		switch s.kind {
		case ledger.KindString:
			x.str[s.i] = i
		case ledger.KindInt:
			x.int[s.i] = i
		case ledger.KindFloat:
			x.float[s.i] = i
		case ledger.KindBool:
			x.bool[s.i] = i
		}
	}
	return x
}()

// Episode materialises row i as an episode, for the rare caller that
// needs a whole one. Its EpisodeID is empty for a Parquet ledger, whose
// ids are not held (see EpisodeIDs).
func (d *Data) Episode(i int) *ledger.Episode {
	r := row{d, int32(i)}
	e := &ledger.Episode{}
	for s, j := range schemaIndex.str {
		e.SetColumn(j, ledger.Value{Kind: ledger.KindString, Str: d.strs[s].Value(i)})
	}
	for s, j := range schemaIndex.int {
		e.SetColumn(j, ledger.Value{Kind: ledger.KindInt, Int: d.ints[s].get(r.i)})
	}
	for s, j := range schemaIndex.float {
		if s == fCostUSD {
			c, ok := r.costUSD()
			e.SetColumn(j, ledger.Value{Kind: ledger.KindFloat, Num: c, Null: !ok})
			continue
		}
		e.SetColumn(j, ledger.Value{Kind: ledger.KindFloat, Num: d.floats[s].get(r.i)})
	}
	for s, j := range schemaIndex.bool {
		e.SetColumn(j, ledger.Value{Kind: ledger.KindBool, Bool: d.bools[s].bits.get(i)})
	}
	e.EpisodeID = r.episodeID()
	for name, x := range d.extras {
		if x.has.get(i) {
			if e.Extra == nil {
				e.Extra = map[string]string{}
			}
			e.Extra[name] = x.Value(i)
		}
	}
	return e
}

// Episodes materialises every row (tests and small ledgers only).
func (d *Data) Episodes() []*ledger.Episode {
	eps := make([]*ledger.Episode, d.n)
	for i := range eps {
		eps[i] = d.Episode(i)
	}
	return eps
}

// EpisodeIDs returns the episode ids of rows, read again from the
// ledger when they are not held.
func (d *Data) EpisodeIDs(rows []int32) ([]string, error) {
	out := make([]string, len(rows))
	if d.ids == nil {
		return out, nil // not read (Columns without episode_id)
	}
	if d.ids.end != nil {
		for k, i := range rows {
			out[k] = row{d, i}.episodeID()
		}
		return out, nil
	}
	order := make([]int, len(rows))
	for k := range order {
		order[k] = k
	}
	sort.Slice(order, func(a, b int) bool { return rows[order[a]] < rows[order[b]] })
	next, at := 0, int32(0)
	err := ledger.RescanParquet(d.src, []string{"episode_id"}, func(b *ledger.Batch) error {
		v := &b.Cols[0]
		for next < len(order) && rows[order[next]] < at+int32(b.Rows) {
			r := int(rows[order[next]] - at)
			if v.Dict != nil {
				out[order[next]] = v.Dict[v.Codes[r]]
			} else {
				out[order[next]] = string(v.Bytes(r))
			}
			next++
		}
		at += int32(b.Rows)
		return nil
	})
	if err == nil && int(at) != d.n {
		err = errors.New("the ledger changed since it was read")
	}
	if err != nil {
		return nil, fmt.Errorf("%s: episode ids: %w", d.src, err)
	}
	return out, nil
}

// WithBools returns a view of d with boolean columns added (each a bit
// per row), sharing d's columns; a name of d's is shadowed.
func (d *Data) WithBools(names []string, sets [][]uint64) *Data {
	v := *d
	v.derived = make(map[string]bitset, len(d.derived)+len(names))
	for k, s := range d.derived {
		v.derived[k] = s
	}
	for j, n := range names {
		v.derived[n] = sets[j]
	}
	return &v
}

// fill reads the Parquet ledger at path by columns into d (which must be
// empty with Columns set); ledger.ErrRowScan when the row reader must
// read it.
func (d *Data) fill(path string, cols []string) error {
	var checked []string
	if slices.Contains(cols, "episode_id") {
		d.ids = &idStore{} // in the file: read again when asked for
		checked = []string{"episode_id"}
		cols = slices.DeleteFunc(slices.Clone(cols), func(c string) bool { return c == "episode_id" })
	}
	if len(cols) == 0 {
		return ledger.ErrRowScan
	}
	d.src = path
	var local []int32
	err := ledger.ScanParquetNulls(path, cols, checked, func(b *ledger.Batch) error {
		if !d.started {
			d.startOnly(int(b.FileRows), cols)
		}
		for j := range b.Cols {
			v := &b.Cols[j]
			s, ok := slots[v.Name]
			if !ok {
				x := d.extras[v.Name]
				if x == nil {
					if d.extras == nil {
						d.extras = map[string]*extraCol{}
					}
					x = &extraCol{}
					x.Grow(int(b.FileRows))
					d.extras[v.Name] = x
				}
				local = addStrings(&x.Coded, v, b.Rows, b.FileRows, local)
				for r := range b.Rows {
					x.has.set(d.n+r, true)
				}
				continue
			}
			switch s.kind {
			case ledger.KindString:
				local = addStrings(&d.strs[s.i], v, b.Rows, b.FileRows, local)
			case ledger.KindInt:
				c := &d.ints[s.i]
				for _, x := range v.Ints {
					c.add(x)
				}
			case ledger.KindFloat:
				c := &d.floats[s.i]
				if v.Valid != nil && c.valid == nil {
					c.valid = make(bitset, (int(b.FileRows)+63)/64)
					for r := range d.n {
						c.valid.set(r, true)
					}
				}
				for r, x := range v.Floats {
					c.add(x)
					if c.valid != nil {
						c.valid.set(d.n+r, v.Valid == nil || v.Valid[r])
					}
				}
			case ledger.KindBool:
				c := &d.bools[s.i]
				for r, x := range v.Bools {
					c.bits.set(d.n+r, x)
				}
			}
		}
		d.n += b.Rows
		return nil
	})
	if err != nil {
		return err
	}
	if !d.started {
		return ledger.ErrRowScan
	}
	return nil
}

// addStrings appends the rows of a batch's string column to c, through
// local (the batch dictionary's codes in c, reused between calls).
func addStrings(c *frame.Coded, v *ledger.Vec, rows int, fileRows int64, local []int32) []int32 {
	if v.Dict != nil {
		local = slices.Grow(local[:0], len(v.Dict))[:len(v.Dict)]
		for k := range local {
			local[k] = -1
		}
		for _, k := range v.Codes[:rows] {
			g := local[k]
			if g < 0 {
				g = c.Intern(v.Dict[k])
				local[k] = g
			}
			c.Append(g)
		}
		return local
	}
	first := c.Len() == 0
	for r := range rows {
		c.Append(c.InternBytes(v.Bytes(r)))
	}
	if first && rows > 0 && c.Len() > rows/16 {
		// A column of many distinct values (pair_key): size its index for
		// the whole file now, rather than doubling it a dozen times.
		c.Reserve(int(int64(c.Len()) * fileRows / int64(rows)))
	}
	return local
}

// release drops the dictionaries' lookup maps once d is complete.
func (d *Data) release() {
	for i := range d.strs {
		d.strs[i].Release()
	}
	for i := range d.floats {
		d.floats[i].ids = nil
	}
	for i := range d.ints {
		d.ints[i].ids = nil
	}
	for _, x := range d.extras {
		x.Release()
	}
}

// Row returns row i of d as a frame.Row (ledger.Episode.Get's answers).
func (d *Data) Row(i int) frame.Row { return row{d, int32(i)} }

// Keep evaluates the --where expression w on every row of d and returns
// the rows it keeps as bits (row i is bit i%64 of word i/64): once per
// distinct combination of the codes of its columns, as the column scan
// does. On an error of the expression on a row, bad is that row (else
// −1).
func (d *Data) Keep(w *formula.Where) (keep []uint64, bad int, err error) {
	var set bitset = make([]uint64, (d.n+63)/64)
	if w.Empty() {
		for i := range d.n {
			set.set(i, true)
		}
		return set, -1, nil
	}
	cols := w.Columns()
	ev := &whereEval{where: w, pos: make([]int, len(cols))}
	for j := range cols {
		ev.pos[j] = j
	}
	var kept []int32
	bad = -1
	err = (&dataSource{d: d}).Scan(cols, nil, func(b *Batch) error {
		if b.Vec == nil {
			// Row by row, for the expression's own error on the row that has it.
			ok, err := w.Keep(b.Row(0))
			if err != nil {
				bad = int(b.First)
				return err
			}
			set.set(int(b.First), ok)
			return nil
		}
		var err error
		var r int
		if kept, r, err = ev.rows(b.Vec, kept[:0]); err != nil {
			bad = int(b.First) + r
			return err
		}
		for _, r := range kept {
			set.set(int(b.First)+int(r), true)
		}
		return nil
	})
	if err != nil {
		return nil, bad, err
	}
	return set, -1, nil
}

// Levels returns the distinct values (as text, sorted) of column col over
// the rows keep marks (nil: every row), nulls left out, with the rows of
// each level in row order, and whether every value is text; an error
// names a column d does not have.
func (d *Data) Levels(keep []uint64, col string) (levels []string, rows [][]int32, text bool, err error) {
	use := func(i int) bool { return keep == nil || bitset(keep).get(i) }
	byLevel := map[string][]int32{}
	text = true
	sc, isStr := d.strColumn(col)
	if isStr && sc.Active() && d.derived[col] == nil {
		_, extra := d.extras[col]
		byCode := make([][]int32, sc.Len())
		counts := make([]int, sc.Len())
		for pass := range 2 {
			// Counted first: appending millions of rows would copy them
			// again and again.
			for i := range d.n {
				if use(i) && (!extra || d.extras[col].has.get(i)) {
					k := sc.Code(i)
					if pass == 0 {
						counts[k]++
					} else {
						byCode[k] = append(byCode[k], int32(i))
					}
				}
			}
			for k, c := range counts {
				if pass == 0 && c > 0 {
					byCode[k] = make([]int32, 0, c)
				}
			}
		}
		for k, rs := range byCode {
			if len(rs) > 0 && !(extra && sc.Text(int32(k)) == "") {
				byLevel[sc.Text(int32(k))] = rs
			}
		}
	} else {
		for i := range d.n {
			if !use(i) {
				continue
			}
			v, ok := row{d, int32(i)}.Get(col)
			if !ok {
				return nil, nil, false, fmt.Errorf("unknown column %q", col)
			}
			if v.Null {
				continue
			}
			text = text && v.Kind == ledger.KindString
			s := v.String()
			byLevel[s] = append(byLevel[s], int32(i))
		}
	}
	levels = slices.Sorted(maps.Keys(byLevel))
	rows = make([][]int32, len(levels))
	for k, l := range levels {
		rows[k] = byLevel[l]
	}
	return levels, rows, text, nil
}

// strColumn returns string column name (schema or extra) and whether d
// has one by that name.
func (d *Data) strColumn(name string) (*frame.Coded, bool) {
	if s, ok := slots[name]; ok && s.kind == ledger.KindString {
		return &d.strs[s.i], true
	}
	if x := d.extras[name]; x != nil {
		return &x.Coded, true
	}
	return nil, false
}

// ExtraColumns names the user's extra columns d holds, sorted.
func (d *Data) ExtraColumns() []string { return slices.Sorted(maps.Keys(d.extras)) }

// idStore holds episode ids in one byte slice: id i ends at end[i]. A
// nil end means they are in the Data's file, not read yet.
type idStore struct {
	bytes []byte
	end   []int64
}

// loadIDs reads every episode id of d's file into d.ids; a failure (the
// file changed or went away) leaves them empty, as EpisodeIDs reports.
func (d *Data) loadIDs() {
	all := make([]int32, d.n)
	for i := range all {
		all[i] = int32(i)
	}
	ids, err := d.EpisodeIDs(all)
	st := &idStore{end: make([]int64, 0, d.n)}
	for i := range d.n {
		if err == nil {
			st.bytes = append(st.bytes, ids[i]...)
		}
		st.end = append(st.end, int64(len(st.bytes)))
	}
	*d.ids = *st
}
