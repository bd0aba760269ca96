package report

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Printable returns s with every control character — C0 (U+0000–U+001F),
// DEL, C1 (U+0080–U+009F) — written as a visible Go escape (\n, \t, \x1b,
// \u0085) and every byte that is not UTF-8 as \xNN, so that text from data
// (a label, a user's extra column) never reaches a terminal or a document
// as a control sequence, a Markdown row or a LaTeX line is never split,
// and two different values never print the same. Text without such
// characters is returned as it is.
func Printable(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, n) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case needsEscape(r, n):
			q := strconv.QuoteRune(r) // '\x1b', '\n', '\u0085'
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// needsEscape reports whether rune r (n bytes) is a control character or
// a byte that is not UTF-8.
func needsEscape(r rune, n int) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || r == utf8.RuneError && n == 1
}

// PrintableLines is Printable line by line: a message's own line breaks
// stay.
func PrintableLines(s string) string {
	if !strings.Contains(s, "\n") {
		return Printable(s)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Printable(l)
	}
	return strings.Join(lines, "\n")
}
