package ledger

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// appendJSONStringBytewise is AppendJSONString written plainly, each
// byte tested by comparisons: the reference its table must match.
func appendJSONStringBytewise(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf:
			b = append(b, c)
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < utf8.RuneSelf:
			b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xF])
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			switch {
			case r == utf8.RuneError && size == 1:
				b = append(b, `\ufffd`...)
			case r == '\u2028':
				b = append(b, `\u2028`...)
			case r == '\u2029':
				b = append(b, `\u2029`...)
			default:
				b = append(b, s[i:i+size]...)
			}
			i += size
			continue
		}
		i++
	}
	return append(b, '"')
}

// Every byte, at every offset, is written as the reference writes it.
func TestAppendJSONStringEveryByteEveryOffset(t *testing.T) {
	for c := 0; c < 256; c++ {
		for off := range 17 {
			s := strings.Repeat("a", off) + string([]byte{byte(c)}) + strings.Repeat("b", 16-off)
			if got, want := string(AppendJSONString(nil, s)), string(appendJSONStringBytewise(nil, s)); got != want {
				t.Fatalf("byte %#x at %d: %q, want %q", c, off, got, want)
			}
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	f.Add(`{"platform":"weibo","text":"Aurora 2.0 今天发布！Release notes"}`)
	f.Add("tab\tnew\nline\u2028sep\u2029\xff\x7f~ end")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendJSONString(nil, s)), string(appendJSONStringBytewise(nil, s)); got != want {
			t.Errorf("AppendJSONString(%q) = %q, want %q", s, got, want)
		}
	})
}

func BenchmarkAppendJSONString(b *testing.B) {
	s := `{"idempotency_key":"k-huelpjcq0-1","platform":"mastodon","text":"Aurora 2.0 is out today. Release notes: https://example.com/releases/2.0"}`
	buf := make([]byte, 0, 512)
	for b.Loop() {
		buf = AppendJSONString(buf[:0], s)
	}
}
