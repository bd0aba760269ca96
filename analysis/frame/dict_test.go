package frame

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// A Dict numbers its texts in order of first appearance, by text or by
// bytes, before and after its index is released (rebuilt from the texts)
// and through the index's growth; a Coded column keeps each row's code
// across its widening from bytes to int32 at the 257th text.
func TestDictIntern(t *testing.T) {
	for _, n := range []int{1, 300, 5000} {
		var c Coded
		c.Grow(0)
		if !c.Active() || c.Rows() != 0 {
			t.Fatalf("n %d: after Grow(0) active %v rows %d, want true 0", n, c.Active(), c.Rows())
		}
		var want []string
		for pass := range 3 {
			for i := range n {
				s := fmt.Sprintf("v%d", i*7919%n)
				var k int32
				if i%2 == 0 {
					k = c.Intern(s)
				} else {
					k = c.InternBytes([]byte(s))
				}
				if c.Text(k) != s {
					t.Fatalf("n %d pass %d: %q has code %d, which is %q", n, pass, s, k, c.Text(k))
				}
				if pass == 0 && int(k) != i {
					t.Fatalf("n %d: %q got code %d, want %d (first appearance)", n, s, k, i)
				}
				c.Append(k)
				want = append(want, s)
			}
			if c.Len() != n {
				t.Fatalf("n %d pass %d: %d values, want %d", n, pass, c.Len(), n)
			}
			c.Release()
		}
		for i, s := range want {
			if c.Value(i) != s || c.Text(c.Code(i)) != s {
				t.Fatalf("n %d: row %d is %q (code %d), want %q", n, i, c.Value(i), c.Code(i), s)
			}
		}
		texts, codes := c.AppendCodes(nil, 1, len(want), nil)
		sub, subCodes := c.AppendCodes(nil, 0, 0, []int32{int32(len(want) - 1), 0})
		if len(codes) != len(want)-1 || texts[codes[0]] != want[1] || sub[subCodes[0]] != want[len(want)-1] || sub[subCodes[1]] != want[0] {
			t.Errorf("n %d: AppendCodes gives %d codes, first %q; want %d, %q", n, len(codes), texts[codes[0]], len(want)-1, want[1])
		}
	}
	var idle Coded
	if texts, codes := idle.AppendCodes(nil, 0, 2, nil); idle.Active() || !slices.Equal(texts, []string{""}) || !slices.Equal(codes, []int32{0, 0}) {
		t.Errorf("an inactive column gives %q %v, want \"\" in every row", texts, codes)
	}
}

// A Dict sharing a source's texts (Builder.Share) copies them before it
// adds one of its own, leaving the source's untouched.
func TestDictShare(t *testing.T) {
	src := make([]string, 2, 8) // room to append: the copy must not use it
	src[0], src[1] = "a", "b"
	var d Dict
	d.share(src)
	if d.Intern("b") != 1 || d.Intern("c") != 2 || d.Intern("a") != 0 {
		t.Fatalf("codes of b, c, a = %d %d %d, want 1 2 0", d.Intern("b"), d.Intern("c"), d.Intern("a"))
	}
	if src[:3][2] != "" || !slices.Equal(d.Texts(), []string{"a", "b", "c"}) {
		t.Errorf("source %q, dict %q; want the source untouched and a b c", src[:3], d.Texts())
	}
}

// A frame whose column shares a source's dictionary (Share, as a column
// scan of a held Data does) is the frame Add builds from the same rows:
// the levels the rows used (a text no row used is dropped; one interned
// for a row dropped for a null is kept, as Add keeps it), sorted, and the
// cells in order of first appearance.
func TestBuilderShare(t *testing.T) {
	texts := []string{"z", "a", "unused", "m"}
	type in struct {
		g    int32 // code in texts; −1: Add the row with text extra
		y    bool
		null bool // h is null: Add drops the row
	}
	rows := []in{{0, true, false}, {3, false, false}, {0, false, false}, {-1, true, true}, {1, true, false}, {3, true, false}}
	const extra = "b"
	spec := Spec{Columns: []string{"g", "h"}, Outcome: "y", Collapse: true}
	row := func(r in) mapRow {
		g := extra
		if r.g >= 0 {
			g = texts[r.g]
		}
		h := s("x")
		h.Null = r.null
		return mapRow{"g": s(g), "h": h, "y": b(r.y)}
	}
	want := NewBuilder(spec)
	for _, r := range rows {
		if err := want.Add(row(r)); err != nil {
			t.Fatal(err)
		}
	}
	got := NewBuilder(spec)
	if !got.Share(0, ledger.KindString, texts) {
		t.Fatal("Share of an empty column: false")
	}
	if !got.Share(0, ledger.KindString, texts) {
		t.Fatal("Share of the texts shared already: false")
	}
	if got.Share(0, ledger.KindString, slices.Clone(texts)) {
		t.Error("Share of other texts: true")
	}
	hx := got.Intern(1, ledger.KindString, "x")
	for _, r := range rows {
		if r.g < 0 {
			if err := got.Add(row(r)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		y := 0.0
		if r.y {
			y = 1
		}
		got.AddCoded([]int32{r.g, hx}, y, 1)
	}
	gf, wf := got.Frame(), want.Frame()
	if !reflect.DeepEqual(gf.Cells, wf.Cells) || gf.Rows != wf.Rows || !reflect.DeepEqual(gf.Dropped, wf.Dropped) {
		t.Errorf("shared frame\n%+v\nwant (Add)\n%+v", gf, wf)
	}
	for j := range gf.Cols {
		// As text: LevelNum holds NaNs, which DeepEqual finds unequal.
		if fmt.Sprintf("%+v", gf.Cols[j]) != fmt.Sprintf("%+v", wf.Cols[j]) {
			t.Errorf("shared frame's column %d\n%+v\nwant (Add)\n%+v", j, gf.Cols[j], wf.Cols[j])
		}
	}
	if g := gf.Col("g"); !slices.Equal(g.Levels, []string{"a", "b", "m", "z"}) {
		t.Errorf("levels %q, want a b m z (b from the dropped row, unused gone)", g.Levels)
	}
	if !slices.Equal(texts, []string{"z", "a", "unused", "m"}) {
		t.Errorf("the source's texts changed: %q", texts)
	}
}
