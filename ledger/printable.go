package ledger

import (
	"encoding/binary"
	"fmt"
	"unicode/utf8"
)

// Labels are printable text. A design string (a model, a harness, an
// episode id) is printed by every command, in tables and messages: a
// control character in it (an OSC escape, BEL, a newline) would reach a
// terminal as a command or split a Markdown row or a LaTeX line. Such a
// label is an error on read; text that is only data (call arguments, keys,
// a user's extra columns) is kept and escaped where it is shown.

// controlIn returns the first control character of the valid UTF-8 text
// s — C0 (U+0000–U+001F), DEL (U+007F) or C1 (U+0080–U+009F) — and
// whether there is one.
func controlIn[S string | []byte](s S) (rune, bool) {
	b := []byte(s) // no copy for a []byte; for a string the compiler avoids it when it does not escape
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		// Any byte below 0x20 or equal to 0x7f, or any byte ≥ 0x80 (a
		// multi-byte rune, perhaps C1): look closer.
		y := x ^ 0x7f7f7f7f7f7f7f7f
		if ((x-0x2020202020202020)|(y-0x0101010101010101)|x)&0x8080808080808080 != 0 {
			break
		}
		b = b[8:]
	}
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
			return r, true
		}
		b = b[n:]
	}
	return 0, false
}

// controlMsg is the error of a label holding control character r.
func controlMsg(r rune) string {
	return fmt.Sprintf("control character %U (labels must be printable text)", r)
}
