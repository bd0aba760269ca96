package ledger

import "testing"

// controlIn finds the first control character of a label, C0, DEL or C1,
// in both its fast (eight bytes at a time) and rune-by-rune paths.
func TestControlIn(t *testing.T) {
	for _, tc := range []struct {
		in   string
		r    rune
		want bool
	}{
		{"", 0, false},
		{"gpt-4.1", 0, false},
		{"a rather long printable label ~~~ 0123456789", 0, false},
		{"今天发布 δ ≥", 0, false},
		{"a rather long printable label\x1b", 0x1b, true},
		{"\x07 at the start of a long label", 0x07, true},
		{"abcdefgh\x7f", 0x7f, true},
		{"abcdefgh\u0085", 0x85, true},
		{"abc\ndef", '\n', true},
		{"tab\there", '\t', true},
		{"\u00a0nbsp is printable", 0, false},
	} {
		r, ok := controlIn(tc.in)
		if ok != tc.want || ok && r != tc.r {
			t.Errorf("controlIn(%q) = %U, %v; want %U, %v", tc.in, r, ok, tc.r, tc.want)
		}
		if r2, ok2 := controlIn([]byte(tc.in)); r2 != r || ok2 != ok {
			t.Errorf("controlIn([]byte(%q)) differs from the string's", tc.in)
		}
	}
	ps := Validate(&Episode{EpisodeID: "e\x1b", Model: "m"})
	found := false
	for _, p := range ps {
		if p.Field == "episode_id" && p.Msg == "control character U+001B (labels must be printable text)" {
			found = true
		}
	}
	if !found {
		t.Errorf("Validate: %v; want the episode_id's control character", ps)
	}
}
