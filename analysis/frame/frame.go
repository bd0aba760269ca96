package frame

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// Row is one row of an episode table; *ledger.Episode implements it.
type Row interface {
	Get(name string) (ledger.Value, bool)
}

// Cell holds the sufficient statistics of one frame row: a single episode,
// or a covariate pattern of N identical episodes when the frame is
// collapsed. Events is the unweighted count of y = 1.
type Cell struct {
	N      int64
	Events int64
	SumW   float64 // Σw
	SumW2  float64 // Σw²
	SumWY  float64 // Σw·y
}

// Add merges o into c.
func (c *Cell) Add(o Cell) {
	c.N += o.N
	c.Events += o.Events
	c.SumW += o.SumW
	c.SumW2 += o.SumW2
	c.SumWY += o.SumWY
}

// KishESS returns Kish's (1965) effective sample size of the cell's
// weights from its sufficient statistics,
//
//	n_eff = (Σw)² / Σw²,
//
// the value stats.KishESS gives on the weights themselves, without keeping
// them (streaming). NaN when Σw = 0.
func (c Cell) KishESS() float64 {
	if c.SumW == 0 {
		return math.NaN()
	}
	return c.SumW * c.SumW / c.SumW2
}

// Column is a dictionary-coded column.
type Column struct {
	Name string
	// Kind is the kind of the source values; a user's extra CSV columns are
	// strings even when they hold numbers (see Numeric).
	Kind ledger.Kind
	// Levels are the distinct values as text (Value.String), sorted:
	// numerically when every level is a number, else bytewise.
	Levels []string
	// LevelNum is the numeric value of each level (false/true = 0/1; NaN
	// for text that is not a number).
	LevelNum []float64
	// Numeric reports whether every level has a numeric value.
	Numeric bool
	// Codes holds each row's index into Levels.
	Codes []int32
}

// Value returns the numeric value of row i (NaN for a non-numeric level).
func (c *Column) Value(i int) float64 { return c.LevelNum[c.Codes[i]] }

// Level returns the text of row i.
func (c *Column) Level(i int) string { return c.Levels[c.Codes[i]] }

// Frame is a set of equally long columns with one Cell per row.
type Frame struct {
	Cols  []*Column
	Cells []Cell
	// Rows is the number of episodes read into the frame (Σ Cells[i].N).
	Rows int64
	// Dropped counts rows left out because a column was null, by column.
	Dropped map[string]int64
	// HasOutcome and HasWeight record whether Cells carry an outcome and
	// weights (unit weights otherwise).
	HasOutcome, HasWeight bool
	// WeightScale is the power of two every weight was multiplied by
	// before it was summed into Cells (SumW, SumWY; SumW2 by its square):
	// that of the first positive weight, brought into [1, 2), so that the
	// sums neither overflow nor underflow whatever the weights' magnitude.
	// Ratios of sums (a rate, Kish's n_eff, a mean) do not depend on it and
	// keep their bits; W divides it out. 1 for unit weights.
	WeightScale float64
}

// Len returns the number of frame rows (patterns when collapsed).
func (f *Frame) Len() int { return len(f.Cells) }

// Col returns the named column or nil.
func (f *Frame) Col(name string) *Column {
	for _, c := range f.Cols {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// scale is WeightScale, 1 when unset (a Frame built by hand).
func (f *Frame) scale() float64 {
	if f.WeightScale == 0 {
		return 1
	}
	return f.WeightScale
}

// Total returns the sum of all cells.
func (f *Frame) Total() Cell {
	var t Cell
	for _, c := range f.Cells {
		t.Add(c)
	}
	return t
}

// Y returns each row's outcome: Events/N for a pattern, 0 or 1 for a row.
// With weights, the weighted mean ΣwY/Σw (NaN when Σw = 0).
func (f *Frame) Y() []float64 {
	y := make([]float64, len(f.Cells))
	for i, c := range f.Cells {
		if f.HasWeight {
			// Σwy ≤ Σw but for rounding; callers need y in [0, 1].
			y[i] = math.Min(1, c.SumWY/c.SumW)
			if c.SumW == 0 {
				y[i] = math.NaN()
			}
		} else {
			y[i] = float64(c.Events) / float64(c.N)
		}
	}
	return y
}

// W returns each row's frequency (or summed design) weight: N, or Σw.
func (f *Frame) W() []float64 {
	w := make([]float64, len(f.Cells))
	for i, c := range f.Cells {
		if f.HasWeight {
			w[i] = c.SumW / f.scale()
		} else {
			w[i] = float64(c.N)
		}
	}
	return w
}

// Spec says which columns a Builder keeps.
type Spec struct {
	Columns  []string // kept columns (covariates, keys); each once
	Outcome  string   // binary outcome column; "" for none
	Weight   string   // weight column; "" for unit weights
	Collapse bool     // merge identical rows into covariate patterns
	// CollapseLimit, when > 0 with Collapse, stops merging once at least
	// CollapseProbe rows are read and the patterns exceed CollapseLimit ×
	// rows: identical rows are then rare, and the index would cost more
	// memory than it saves. Later rows are kept one per cell, so a pattern
	// may then repeat: only for consumers that pool repeats themselves
	// (e.g. stats.GEECollapsed).
	CollapseLimit float64
	// Check, when set, validates each row that is kept (no null in a kept
	// column) before it is added; its error (a ledger.Problem naming the
	// column, which a ledger reader places at the row's file and line) is
	// Add's.
	Check func(r Row) error
}

// CollapseProbe is the number of rows read before Spec.CollapseLimit is
// checked.
const CollapseProbe = 65536

// Builder accumulates rows into a Frame.
type Builder struct {
	spec  Spec
	cols  []*Column
	dicts []Dict // column j's levels in order of first appearance
	// interned marks, for a column sharing a source's texts (Share), the
	// codes Intern or Add returned: with the codes of the cells, the
	// levels the frame keeps.
	interned [][]bool
	cells    []Cell
	kinds    []bool // kind of column j seen yet
	index    map[string]int32
	key      []byte
	codes    []int32
	rows     int64
	drop     map[string]int64
	first    bool
	wscale   float64 // Frame.WeightScale; 0 until the first positive weight
}

// NewBuilder returns a Builder for spec.
func NewBuilder(spec Spec) *Builder {
	b := &Builder{spec: spec, drop: map[string]int64{}, first: true}
	for _, name := range spec.Columns {
		b.cols = append(b.cols, &Column{Name: name})
	}
	b.dicts = make([]Dict, len(spec.Columns))
	b.interned = make([][]bool, len(spec.Columns))
	b.kinds = make([]bool, len(spec.Columns))
	if spec.Collapse {
		b.index = map[string]int32{}
	}
	b.codes = make([]int32, len(spec.Columns))
	return b
}

// WeightError is the error for value v of weight column col, which is not
// a finite number ≥ 0. It is a ledger.Problem without a place, which a
// ledger reader fills in with the row's file and line.
func WeightError(col string, v ledger.Value) error {
	return ledger.Problem{Field: col, Msg: "weight: value " + strconv.Quote(v.String()) + " is not a finite number ≥ 0"}
}

// OutcomeError is the error for outcome column col whose value Binary
// rejected with err, placed as WeightError is.
func OutcomeError(col string, err error) error {
	return ledger.Problem{Field: col, Msg: "outcome: " + err.Error()}
}

// Add adds one row. It fails on a missing column (UnknownColumnError, on
// the first row), a non-binary outcome (OutcomeError) or a negative or
// non-numeric weight (WeightError).
// A row with a null value in a kept column is counted in Dropped and left
// out.
func (b *Builder) Add(r Row) error {
	if b.first {
		b.first = false
		if err := CheckColumns(r, b.allColumns()); err != nil {
			return err
		}
	}
	w := 1.0
	if b.spec.Weight != "" {
		v, ok := r.Get(b.spec.Weight)
		if !ok {
			return CheckColumns(r, []string{b.spec.Weight})
		}
		if v.Null {
			b.drop[b.spec.Weight]++
			return nil
		}
		f, ok := numberOf(v)
		if !ok || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
			return WeightError(b.spec.Weight, v)
		}
		w = f
	}
	var y float64
	if b.spec.Outcome != "" {
		v, ok := r.Get(b.spec.Outcome)
		if !ok {
			return CheckColumns(r, []string{b.spec.Outcome})
		}
		if v.Null {
			b.drop[b.spec.Outcome]++
			return nil
		}
		yy, err := Binary(v)
		if err != nil {
			return OutcomeError(b.spec.Outcome, err)
		}
		y = yy
	}
	for j, c := range b.cols {
		v, ok := r.Get(c.Name)
		if !ok {
			return CheckColumns(r, []string{c.Name})
		}
		if v.Null {
			b.drop[c.Name]++
			return nil
		}
		if !b.kinds[j] {
			b.kinds[j] = true
			c.Kind = v.Kind
		}
		b.codes[j] = b.internText(j, v.String())
	}
	if b.spec.Check != nil {
		if err := b.spec.Check(r); err != nil {
			return err
		}
	}
	b.push(y, w)
	return nil
}

// CheckRows runs spec.Check on every row of f (as text values of its
// levels), for a frame built without Add (a column scan): the first
// error, which has no place.
func CheckRows(f *Frame, check func(r Row) error) error {
	if check == nil {
		return nil
	}
	for i := range f.Cells {
		if err := check(frameRow{f, i}); err != nil {
			return err
		}
	}
	return nil
}

type frameRow struct {
	f *Frame
	i int
}

func (r frameRow) Get(name string) (ledger.Value, bool) {
	c := r.f.Col(name)
	if c == nil {
		return ledger.Value{}, false
	}
	return ledger.Value{Kind: ledger.KindString, Str: c.Level(r.i)}, true
}

// push adds the row whose codes are in b.codes, with outcome y and weight
// w, and returns its cell.
func (b *Builder) push(y, w float64) int32 {
	b.rows++
	w = b.scaleWeight(w)
	cell := Cell{N: 1, Events: int64(y), SumW: w, SumW2: w * w, SumWY: w * y}
	if b.spec.Collapse && b.spec.CollapseLimit > 0 && b.rows == CollapseProbe && float64(len(b.cells)) > b.spec.CollapseLimit*float64(b.rows) {
		b.spec.Collapse = false
		b.index = nil
	}
	if b.spec.Collapse {
		b.key = b.key[:0]
		for _, code := range b.codes {
			b.key = append(b.key, byte(code), byte(code>>8), byte(code>>16), byte(code>>24))
		}
		if i, ok := b.index[string(b.key)]; ok {
			b.cells[i].Add(cell)
			return i
		}
		b.index[string(b.key)] = int32(len(b.cells))
	}
	for j, c := range b.cols {
		c.Codes = append(c.Codes, b.codes[j])
	}
	b.cells = append(b.cells, cell)
	return int32(len(b.cells) - 1)
}

func (b *Builder) allColumns() []string {
	cols := append([]string(nil), b.spec.Columns...)
	if b.spec.Outcome != "" {
		cols = append(cols, b.spec.Outcome)
	}
	if b.spec.Weight != "" {
		cols = append(cols, b.spec.Weight)
	}
	return cols
}

// Rows returns the number of rows added so far (not counting dropped ones).
func (b *Builder) Rows() int64 { return b.rows }

// Frame finishes the frame: levels are sorted and codes remapped. The
// Builder must not be used afterwards.
func (b *Builder) Frame() *Frame {
	for j, c := range b.cols {
		b.levels(j)
		sortLevels(c)
	}
	f := &Frame{Cols: b.cols, Cells: b.cells, Rows: b.rows, Dropped: b.drop,
		HasOutcome: b.spec.Outcome != "", HasWeight: b.spec.Weight != "", WeightScale: b.wscale}
	if f.WeightScale == 0 {
		f.WeightScale = 1
	}
	return f
}

// scaleWeight returns w in the frame's scaled units (Frame.WeightScale),
// fixing the scale at the first positive weight. Unit weights keep scale 1.
func (b *Builder) scaleWeight(w float64) float64 {
	if b.wscale == 0 {
		if w == 0 {
			return 0
		}
		b.wscale = stats.Pow2Scale(w)
	}
	return w * b.wscale
}

// Sort sorts c.Levels as Builder.Frame does (numerically when every level
// is a number, else bytewise), sets LevelNum and Numeric, remaps c.Codes
// and returns the map from old to new codes, for callers that intern
// levels themselves.
func (c *Column) Sort() []int32 { return sortLevels(c) }

// Number converts a value to a number as weights are read: numbers and
// booleans, and strings that parse as numbers (extra CSV columns are text).
func Number(v ledger.Value) (float64, bool) { return numberOf(v) }

// sortLevels sorts c.Levels (numerically when all are numbers) and remaps
// c.Codes.
func sortLevels(c *Column) []int32 {
	n := len(c.Levels)
	num := make([]float64, n)
	c.Numeric = true
	for i, s := range c.Levels {
		num[i] = levelNumber(c.Kind, s)
		if math.IsNaN(num[i]) {
			c.Numeric = false
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if c.Numeric {
			if r := cmp.Compare(num[a], num[b]); r != 0 {
				return r
			}
		}
		return strings.Compare(c.Levels[a], c.Levels[b])
	})
	remap := make([]int32, n)
	levels := make([]string, n)
	c.LevelNum = make([]float64, n)
	for newi, old := range order {
		remap[old] = int32(newi)
		levels[newi] = c.Levels[old]
		c.LevelNum[newi] = num[old]
	}
	c.Levels = levels
	for i, code := range c.Codes {
		c.Codes[i] = remap[code]
	}
	return remap
}

func levelNumber(k ledger.Kind, s string) float64 {
	if k == ledger.KindBool {
		switch s {
		case "true":
			return 1
		case "false":
			return 0
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsInf(f, 0) {
		return math.NaN()
	}
	return f
}

// numberOf converts a value to a number; strings are parsed (extra CSV
// columns are text).
func numberOf(v ledger.Value) (float64, bool) {
	if f, ok := v.Float(); ok {
		return f, true
	}
	if v.Kind == ledger.KindString {
		f, err := strconv.ParseFloat(strings.TrimSpace(v.Str), 64)
		return f, err == nil
	}
	return 0, false
}

// Binary converts an outcome value to 0 or 1: booleans, the numbers 0 and
// 1, and the strings true/false/0/1.
func Binary(v ledger.Value) (float64, error) {
	switch v.Kind {
	case ledger.KindBool:
		if v.Bool {
			return 1, nil
		}
		return 0, nil
	case ledger.KindString:
		switch strings.ToLower(strings.TrimSpace(v.Str)) {
		case "true", "1":
			return 1, nil
		case "false", "0":
			return 0, nil
		}
		return 0, fmt.Errorf("value %q is not binary (want true/false or 0/1)", v.Str)
	}
	f, _ := v.Float()
	if f == 0 || f == 1 {
		return f, nil
	}
	return 0, fmt.Errorf("value %v is not binary (want true/false or 0/1)", v.String())
}
