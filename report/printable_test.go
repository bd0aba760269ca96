package report

import (
	"testing"
	"unicode/utf8"
)

// Printable escapes control characters and bytes that are not UTF-8, and
// leaves other text, any script, as it is.
func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"gpt-4.1", "gpt-4.1"},
		{"Aurora 2.0 今天发布 — ≥ δ", "Aurora 2.0 今天发布 — ≥ δ"},
		{"\x1b]0;pwned\x07", `\x1b]0;pwned\a`},
		{"a\nb\tc\r", `a\nb\tc\r`},
		{"x\x00y\x7f", `x\x00y\x7f`},
		{"c1\u0085\u009b", `c1\u0085\u009b`},
		{"bad\xffutf8\xc3", `bad\xffutf8\xc3`},
		{"\u2028ok", "\u2028ok"}, // a line separator is printable Unicode
	} {
		if got := Printable(tc.in); got != tc.want {
			t.Errorf("Printable(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := Printable(tc.in); !utf8.ValidString(got) {
			t.Errorf("Printable(%q) is not UTF-8", tc.in)
		}
	}
	if got := PrintableLines("one\x1b\ntwo"); got != "one\\x1b\ntwo" {
		t.Errorf("PrintableLines = %q", got)
	}
}
