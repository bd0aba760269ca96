package ledger

import (
	"fmt"
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
