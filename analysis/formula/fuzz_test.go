package formula

import (
	"testing"
	"time"
	"unicode/utf8"
)

// parseBudget is how long one parse of a fuzz input may take beyond a
// microsecond a byte: the parsers are linear (issue 37, case 7: nested
// parentheses took quadratic time).
const parseBudget = 200 * time.Millisecond

// checkParse checks what every parse of s must hold, whether it failed
// (err) or not: it took linear time, and a failure is a *SyntaxError at
// an offset inside s whose message stays short and UTF-8 for UTF-8 input.
func checkParse(t *testing.T, s string, err error, took time.Duration) {
	t.Helper()
	if took > parseBudget+time.Duration(len(s))*time.Microsecond {
		t.Errorf("%d bytes parsed in %v", len(s), took)
	}
	if err == nil {
		return
	}
	se, ok := err.(*SyntaxError)
	if !ok {
		t.Fatalf("%q: %T %v, want a *SyntaxError", s, err, err)
	}
	if se.Pos < 0 || se.Pos > len(s) {
		t.Fatalf("%q: offset %d outside the input", s, se.Pos)
	}
	if utf8.ValidString(s) && !utf8.ValidString(err.Error()) {
		t.Fatalf("%q: the message is not UTF-8: %q", s, err)
	}
	if len(s) > 1000 && len(err.Error()) > 1000+len(se.Msg) {
		t.Fatalf("the message repeats a %d-byte input", len(s))
	}
}
