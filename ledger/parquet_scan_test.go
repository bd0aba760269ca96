package ledger

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

func TestAppendRLEDict(t *testing.T) {
	// Width 3: a run of 5 threes, then one bit-packed group of the 8
	// values 0..7 (LSB first: 0x88, 0xC6, 0xFA).
	page := []byte{3, 5 << 1, 3, 1<<1 | 1, 0x88, 0xC6, 0xFA}
	cases := []struct {
		name   string
		page   []byte
		k      int
		size   int
		want   string
		wantOK bool
	}{
		{"run and bit-packed", page, 13, 8, "3 3 3 3 3 0 1 2 3 4 5 6 7", true},
		{"fewer values than packed", page, 9, 8, "3 3 3 3 3 0 1 2 3", true},
		{"index beyond the dictionary", page, 13, 7, "", false},
		{"truncated page", page[:5], 13, 8, "", false},
		{"run longer than the page", []byte{3, 5 << 1, 3}, 4, 8, "", false},
		{"width over 32", []byte{33, 2, 0}, 1, 8, "", false},
	}
	for _, c := range cases {
		got, ok := appendRLEDict(nil, c.page, c.k, c.size)
		s := strings.Trim(fmt.Sprint(got), "[]")
		if ok != c.wantOK || ok && s != c.want {
			t.Errorf("%s: decoded %q, %v; want %q, %v", c.name, s, ok, c.want, c.wantOK)
		}
	}
}

func TestUniqueIDs(t *testing.T) {
	fill := func(hs ...uint64) *idBuckets {
		var b idBuckets
		for _, h := range hs {
			b[h>>56] = append(b[h>>56], h)
		}
		return &b
	}
	cases := []struct {
		name string
		rgs  []*idBuckets
		want bool
	}{
		{"distinct", []*idBuckets{fill(1, 2, 3<<56|5), fill(0, 4, 3<<56|6)}, true},
		{"repeat across row groups", []*idBuckets{fill(1, 2, 3<<56|5), fill(3<<56 | 5)}, false},
		{"repeat within one", []*idBuckets{fill(7, 9, 7)}, false},
		{"zero twice", []*idBuckets{fill(0), fill(0)}, false},
		{"colliding slots", []*idBuckets{fill(1, 1+1<<8, 1+2<<8, 1+3<<8)}, true},
	}
	for _, c := range cases {
		if got := uniqueIDs(c.rgs, 2); got != c.want {
			t.Errorf("%s: uniqueIDs = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestASCIIOnly(t *testing.T) {
	long := strings.Repeat("abcdefgh", 5)
	cases := []struct {
		in   string
		want bool
	}{
		{"", true},
		{"a", true},
		{long, true},
		{long + "\x7f", true},
		{"é", false},
		{long[:16] + "\x80" + long, false}, // in the 16-byte loop
		{long + "\xff", false},             // in the tail
		{"\x00\x01\x02", true},
	}
	for _, c := range cases {
		if got := asciiOnly([]byte(c.in)); got != c.want {
			t.Errorf("asciiOnly(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestPlausible(t *testing.T) {
	str := func(vs ...string) Vec {
		v := Vec{Kind: KindString}
		for _, s := range vs {
			v.Offsets = append(v.Offsets, int32(len(v.Data)))
			v.Data = append(v.Data, s...)
		}
		v.Offsets = append(v.Offsets, int32(len(v.Data)))
		return v
	}
	dict := func(vs ...string) Vec { // one dictionary entry per row
		v := Vec{Kind: KindString, Dict: vs}
		for i := range vs {
			v.Codes = append(v.Codes, int32(i))
		}
		return v
	}
	cases := []struct {
		name  string
		vecs  []Vec
		which string // platform, delay or batch: the columns are vecs 0, 1(, 2)
		want  bool
	}{
		{"social with platform", []Vec{dict("social", "mail"), str("x", "")}, "platform", true},
		{"social without platform", []Vec{dict("mail", "social"), str("", "")}, "platform", false},
		{"platform off social", []Vec{dict("mail"), str("x")}, "platform", false},
		{"late with delay", []Vec{dict(FaultTimeoutLate, FaultNone), {Bools: []bool{true, true}}, {Floats: []float64{90, 0}}}, "delay", true},
		{"late fired without delay", []Vec{str(FaultNone, FaultTimeoutLateTail), {Bools: []bool{true, true}}, {Floats: []float64{0, 0}}}, "delay", false},
		{"late not fired without delay", []Vec{dict(FaultTimeoutLate), {Bools: []bool{false}}, {Floats: []float64{0}}}, "delay", true},
		{"delay on a non-late mode", []Vec{dict(FaultTimeoutPost), {Bools: []bool{true}}, {Floats: []float64{5}}}, "delay", false},
		{"partial batch on the batch tool", []Vec{dict("data_insert_many"), dict(FaultPartialBatch)}, "batch", true},
		{"partial batch on another paper write", []Vec{dict("mail_send"), dict(FaultPartialBatch)}, "batch", false},
		{"partial batch on a user's tool", []Vec{dict("my_write"), dict(FaultPartialBatch)}, "batch", true},
	}
	for _, c := range cases {
		n := len(c.vecs[len(c.vecs)-1].Codes) + len(c.vecs[len(c.vecs)-1].Bools) + len(c.vecs[len(c.vecs)-1].Floats)
		if o := c.vecs[len(c.vecs)-1].Offsets; o != nil {
			n = len(o) - 1
		}
		var pl, de, ba []int
		switch c.which {
		case "platform":
			pl = []int{0, 1}
		case "delay":
			de = []int{0, 1, 2}
		case "batch":
			ba = []int{0, 1}
		}
		if got := plausible(c.vecs, pl, de, ba, n); got != c.want {
			t.Errorf("%s: plausible = %v, want %v", c.name, got, c.want)
		}
	}
}

// An optional column's nulls send ScanParquet to the row reader, and
// ScanParquetNulls marks them in Vec.Valid, the other values as read.
func TestScanOptionalNulls(t *testing.T) {
	for _, nulls := range []int{0, 1, 3000} {
		var eps []*Episode
		for i := range 5000 {
			e := synthEpisode(i)
			x := float64(i) / 8
			e.CostUSD = &x
			if i < nulls && i%3 == 0 || nulls == 1 && i == 4321 {
				e.CostUSD = nil
			}
			eps = append(eps, e)
		}
		path := filepath.Join(t.TempDir(), "n.parquet")
		writeEpisodes(t, path, eps, nil)
		err := ScanParquet(path, []string{"cost_usd"}, func(*Batch) error { return nil })
		if (err == ErrRowScan) != (nulls > 0) {
			t.Fatalf("%d nulls: ScanParquet: %v", nulls, err)
		}
		row := 0
		err = ScanParquetNulls(path, []string{"cost_usd"}, nil, func(b *Batch) error {
			v := &b.Cols[0]
			for r := range b.Rows {
				e := eps[row]
				valid := v.Valid == nil || v.Valid[r]
				if valid != (e.CostUSD != nil) || valid && v.Floats[r] != *e.CostUSD {
					return fmt.Errorf("row %d: %v, %v; want %v", row, v.Floats[r], valid, e.CostUSD)
				}
				row++
			}
			return nil
		})
		if err != nil || row != len(eps) {
			t.Fatalf("%d nulls: ScanParquetNulls: %v after %d rows", nulls, err, row)
		}
	}
}
