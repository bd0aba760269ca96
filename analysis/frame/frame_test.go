package frame

import (
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

type mapRow map[string]ledger.Value

func (m mapRow) Get(name string) (ledger.Value, bool) {
	v, ok := m[name]
	return v, ok
}

func (m mapRow) ColumnNames() []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func s(x string) ledger.Value  { return ledger.Value{Kind: ledger.KindString, Str: x} }
func i(x int64) ledger.Value   { return ledger.Value{Kind: ledger.KindInt, Int: x} }
func f(x float64) ledger.Value { return ledger.Value{Kind: ledger.KindFloat, Num: x} }
func b(x bool) ledger.Value    { return ledger.Value{Kind: ledger.KindBool, Bool: x} }

func rows() []mapRow {
	return []mapRow{
		{"g": s("b"), "n": i(10), "y": b(true), "w": f(1), "x": s("2.5")},
		{"g": s("a"), "n": i(2), "y": b(false), "w": f(2), "x": s("10")},
		{"g": s("b"), "n": i(10), "y": b(false), "w": f(3), "x": s("2.5")},
		{"g": s("a"), "n": i(9), "y": i(1), "w": f(0), "x": s("-1")},
		{"g": s("b"), "n": i(10), "y": s("true"), "w": s("4"), "x": {Kind: ledger.KindString, Null: true}},
	}
}

func TestBuilderRows(t *testing.T) {
	bl := NewBuilder(Spec{Columns: []string{"g", "n", "x"}, Outcome: "y", Weight: "w"})
	for _, r := range rows() {
		if err := bl.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	fr := bl.Frame()
	if fr.Len() != 4 || fr.Rows != 4 || fr.Dropped["x"] != 1 {
		t.Fatalf("len %d, rows %d, dropped %v; want 4, 4, x:1", fr.Len(), fr.Rows, fr.Dropped)
	}
	g, n, x := fr.Col("g"), fr.Col("n"), fr.Col("x")
	// Levels sorted: bytewise for text, numerically for numbers (2 < 9 < 10,
	// and for the extra text column -1 < 2.5 < 10).
	if !reflect.DeepEqual(g.Levels, []string{"a", "b"}) || !reflect.DeepEqual(n.Levels, []string{"2", "9", "10"}) ||
		!reflect.DeepEqual(x.Levels, []string{"-1", "2.5", "10"}) {
		t.Errorf("levels g %v, n %v, x %v", g.Levels, n.Levels, x.Levels)
	}
	if g.Numeric || !n.Numeric || !x.Numeric {
		t.Errorf("numeric g %v n %v x %v, want false true true", g.Numeric, n.Numeric, x.Numeric)
	}
	if got := []string{g.Level(0), g.Level(1), g.Level(2), g.Level(3)}; !reflect.DeepEqual(got, []string{"b", "a", "b", "a"}) {
		t.Errorf("g rows = %v", got)
	}
	if x.Value(1) != 10 || n.Value(3) != 9 {
		t.Errorf("values x[1] = %v, n[3] = %v", x.Value(1), n.Value(3))
	}
	if y := fr.Y(); y[0] != 1 || y[1] != 0 || !math.IsNaN(y[3]) {
		t.Errorf("Y = %v, want 1, 0, 0, NaN (zero weight)", y)
	}
}

func TestBuilderCollapse(t *testing.T) {
	bl := NewBuilder(Spec{Columns: []string{"g"}, Outcome: "y", Weight: "w", Collapse: true})
	for _, r := range rows() {
		if err := bl.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	fr := bl.Frame()
	if fr.Len() != 2 || fr.Rows != 5 {
		t.Fatalf("patterns %d rows %d, want 2, 5", fr.Len(), fr.Rows)
	}
	// Pattern order is first appearance (b, then a); levels are sorted.
	want := []Cell{
		{N: 3, Events: 2, SumW: 8, SumW2: 26, SumWY: 5},
		{N: 2, Events: 1, SumW: 2, SumW2: 4, SumWY: 0},
	}
	if !reflect.DeepEqual(fr.Cells, want) {
		t.Errorf("cells = %+v, want %+v", fr.Cells, want)
	}
	if fr.Col("g").Level(0) != "b" {
		t.Errorf("first pattern is %s, want b", fr.Col("g").Level(0))
	}
	if w := fr.W(); !reflect.DeepEqual(w, []float64{8, 2}) {
		t.Errorf("W = %v", w)
	}
	if y := fr.Y(); y[0] != 5.0/8 || y[1] != 0 {
		t.Errorf("Y = %v", y)
	}
	if tot := fr.Total(); tot.N != 5 || tot.Events != 3 || tot.SumW != 10 {
		t.Errorf("total = %+v", tot)
	}
}

func TestBuilderErrors(t *testing.T) {
	tests := []struct {
		spec Spec
		row  mapRow
		msg  string
	}{
		{Spec{Columns: []string{"gg"}}, rows()[0], `unknown column "gg" (did you mean g?)`},
		// Without a place: the ledger reader (or Query) adds the row's.
		{Spec{Outcome: "n"}, mapRow{"n": i(10), "episode_id": s("e7")}, `n: outcome: value 10 is not binary`},
		{Spec{Outcome: "g"}, rows()[0], `g: outcome: value "b" is not binary`},
		{Spec{Weight: "w"}, mapRow{"w": f(-1)}, "not a finite number ≥ 0"},
		{Spec{Weight: "w"}, mapRow{"w": s("heavy")}, `value "heavy"`},
		{Spec{Weight: "w"}, mapRow{"w": f(math.Inf(1))}, "not a finite number"},
	}
	for _, tt := range tests {
		err := NewBuilder(tt.spec).Add(tt.row)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("%+v: err = %v, want %q", tt.spec, err, tt.msg)
		}
	}
}

func TestSimilar(t *testing.T) {
	cands := []string{"condition", "contract", "cue", "fault_mode", "fault_fired", "duplicated"}
	tests := []struct {
		name string
		want []string
	}{
		{"condtion", []string{"condition"}},
		{"fault", []string{"fault_mode", "fault_fired"}},
		{"dup", []string{"duplicated"}},
		{"cu", []string{"cue"}},
		{"duplicate", []string{"duplicated"}},
		{"zzzzzzzz", nil},
	}
	for _, tt := range tests {
		if got := Similar(tt.name, cands); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Similar(%q) = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestBinary(t *testing.T) {
	ok := []ledger.Value{b(true), i(1), f(1), s("TRUE"), s(" 1 ")}
	for _, v := range ok {
		if y, err := Binary(v); err != nil || y != 1 {
			t.Errorf("Binary(%+v) = %v, %v; want 1", v, y, err)
		}
	}
	for _, v := range []ledger.Value{i(2), f(0.5), s("yes")} {
		if _, err := Binary(v); err == nil {
			t.Errorf("Binary(%+v): no error", v)
		}
	}
}

// BenchmarkCollapse measures the streaming path of rates and shapley: 1M
// rows into a few hundred covariate patterns.
func BenchmarkCollapse(bm *testing.B) {
	var rs []mapRow
	for k := range 1000 {
		rs = append(rs, mapRow{"a": s([]string{"x", "y", "z"}[k%3]), "b": s([]string{"p", "q"}[k%2]),
			"c": i(int64(k % 12)), "y": b(k%7 == 0), "w": f(1)})
	}
	for bm.Loop() {
		bl := NewBuilder(Spec{Columns: []string{"a", "b", "c"}, Outcome: "y", Weight: "w", Collapse: true})
		for k := range 1_000_000 {
			if err := bl.Add(rs[k%len(rs)]); err != nil {
				bm.Fatal(err)
			}
		}
		bl.Frame()
	}
}

func TestKishESS(t *testing.T) {
	// stats.KishESS on the same weights (docs/methods.md, Reference values: w = [1,1,2,2,4]
	// gives n_eff = 3.8461538461538463); compared to 1e-12 relative.
	tests := []struct {
		w    []float64
		want float64
	}{
		{[]float64{1, 1, 2, 2, 4}, 3.8461538461538463},
		{[]float64{1, 1, 1}, 3},
		{[]float64{0, 0}, math.NaN()},
	}
	for _, tt := range tests {
		var c Cell
		for _, w := range tt.w {
			c.Add(Cell{N: 1, SumW: w, SumW2: w * w})
		}
		got := c.KishESS()
		if math.IsNaN(tt.want) != math.IsNaN(got) || !math.IsNaN(got) && math.Abs(got-tt.want) > 1e-12*tt.want {
			t.Errorf("KishESS(%v) = %v, want %v", tt.w, got, tt.want)
		}
	}
}

// TestCollapseLimit: with many distinct patterns the builder stops merging
// after CollapseProbe rows; with few it collapses throughout.
func TestCollapseLimit(t *testing.T) {
	for _, tc := range []struct {
		name     string
		distinct int64 // x cycles through this many values
		want     int   // cells
	}{
		{"few patterns", 10, 10},
		// The first CollapseProbe rows are distinct patterns; merging stops,
		// so the repeats that follow are kept one per row.
		{"many patterns", CollapseProbe, 2 * CollapseProbe},
	} {
		bl := NewBuilder(Spec{Columns: []string{"x"}, Outcome: "y", Collapse: true, CollapseLimit: 0.5})
		for r := range int64(2 * CollapseProbe) {
			if err := bl.Add(mapRow{"x": i(r % tc.distinct), "y": b(r%3 == 0)}); err != nil {
				t.Fatal(err)
			}
		}
		fr := bl.Frame()
		tot := fr.Total()
		if fr.Len() != tc.want || tot.N != 2*CollapseProbe || fr.Rows != 2*CollapseProbe || tot.Events != (2*CollapseProbe+2)/3 {
			t.Errorf("%s: %d cells, N %d, events %d; want %d cells, N %d, events %d", tc.name, fr.Len(), tot.N, tot.Events,
				tc.want, 2*CollapseProbe, (2*CollapseProbe+2)/3)
		}
	}
}
