package guard

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"unicode/utf8"
)

// maxDepth bounds the nesting of arrays and objects, as encoding/json
// does, so that hostile input cannot exhaust the stack.
const maxDepth = 10000

// Canonical returns the canonical JSON encoding of v: a value as
// encoding/json decodes it (map[string]any, []any, string, float64 or
// json.Number, bool, nil), Go integers and floats, or anything else
// encoding/json can marshal, which is marshalled first.
//
// Object members are sorted by the bytes of their UTF-8 names; strings are
// written with only the escapes JSON requires (RFC 8785, section 3.2.2.2:
// \b \t \n \f \r \" \\, \u00xx in lower-case hex for the other control
// characters), invalid UTF-8 becoming U+FFFD as encoding/json decodes it;
// numbers as CanonicalNumber writes them. NaN and infinities are errors.
// The encoding is deterministic and injective on JSON values: two values
// have the same encoding exactly when they are equal as JSON (numbers
// equal as decimals, objects equal as sets of members).
func Canonical(v any) ([]byte, error) {
	return appendCanonical(nil, v, 0)
}

// CanonicalJSON returns the canonical encoding of one JSON text. It
// refuses what is not exactly one JSON value, and objects with two
// members of one name (which decoders resolve differently).
func CanonicalJSON(data []byte) ([]byte, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	return appendCanonical(nil, v, 0)
}

func appendCanonical(b []byte, v any, depth int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendString(b, x), nil
	case json.Number:
		return appendNumber(b, string(x))
	case float64:
		return appendFloat(b, x, 64)
	case float32:
		return appendFloat(b, float64(x), 32)
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int8:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case uint:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint8:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case map[string]any:
		if depth >= maxDepth {
			return nil, fmt.Errorf("guard: canonical JSON: nested deeper than %d", maxDepth)
		}
		keys := make([]string, 0, len(x))
		names := make(map[string]string, len(x)) // valid UTF-8 name → Go key
		for k := range x {
			vk := k
			if !utf8.ValidString(k) {
				vk = string([]rune(k)) // invalid bytes → U+FFFD, as a decoder reads them
			}
			if _, dup := names[vk]; dup {
				return nil, fmt.Errorf("guard: canonical JSON: two member names read as %q", vk)
			}
			names[vk] = k
			keys = append(keys, vk)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var err error
			if b, err = appendCanonical(b, x[names[k]], depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		if depth >= maxDepth {
			return nil, fmt.Errorf("guard: canonical JSON: nested deeper than %d", maxDepth)
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendCanonical(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	// Anything else (structs, typed maps and slices, json.RawMessage)
	// goes through encoding/json and is read back as plain values.
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("guard: canonical JSON: %w", err)
	}
	t, err := decodeJSON(raw)
	if err != nil {
		return nil, err
	}
	return appendCanonical(b, t, depth)
}

func appendFloat(b []byte, f float64, bits int) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("guard: canonical JSON: %v is not a JSON number", f)
	}
	// The shortest decimal that reads back as f, then the number rule:
	// 1250.0 and the JSON text 1250 are one number.
	var tmp [32]byte
	return appendNumber(b, string(strconv.AppendFloat(tmp[:0], f, 'e', -1, bits)))
}

const hexDigits = "0123456789abcdef"

// appendString writes s as a JSON string with RFC 8785's escapes.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c >= 0x20:
				b = append(b, c)
			case c == '\b':
				b = append(b, '\\', 'b')
			case c == '\t':
				b = append(b, '\\', 't')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\f':
				b = append(b, '\\', 'f')
			case c == '\r':
				b = append(b, '\\', 'r')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\ufffd"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// CanonicalNumber returns the canonical form of a JSON number: its exact
// decimal value, written as ECMAScript's Number::toString (ECMA-262,
// 6.1.6.1.20) writes a number with those digits. With the value's
// significant digits d (no leading or trailing zeros, k of them) and its
// decimal point after n of them:
//
//	k ≤ n ≤ 21       d followed by n−k zeros                 1250, 1e21 → "1e+21"
//	0 < n ≤ 21       d with the point after n digits         12.5
//	−6 < n ≤ 0       "0." then −n zeros then d               0.0125
//	otherwise        d₁[.d₂…dₖ] "e" sign (n−1)               1.25e-7, 1.5e+300
//
// with a leading "-" for negative values and "0" for every zero. Unlike
// RFC 8785, which rounds every number to a binary64 first, no digit is
// lost: identifiers longer than 15 digits stay distinct. Every float64
// written by the shortest round-trip algorithm keeps its RFC 8785 form.
func CanonicalNumber(s string) (string, error) {
	b, err := appendNumber(nil, s)
	return string(b), err
}

// maxExponent bounds the decimal exponent of a canonical number (its
// power of ten, n−1 below), and maxParsedExponent the exponent written in
// the input, so that the arithmetic cannot overflow; no real argument
// comes near either.
const (
	maxExponent       = 1 << 40
	maxParsedExponent = 1 << 50
)

func appendNumber(b []byte, s string) ([]byte, error) {
	if n, err := scanNumber([]byte(s)); err != nil || n != len(s) {
		return nil, fmt.Errorf("guard: %q is not a JSON number", s)
	}
	// s is a JSON number: split it into sign, integer and fraction digits
	// and exponent.
	orig := s
	neg := s[0] == '-'
	if neg {
		s = s[1:]
	}
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart, frac := s[:i], ""
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		frac, i = s[i+1:j], j
	}
	var exp int64
	if i < len(s) { // e or E
		i++
		eneg := s[i] == '-'
		if s[i] == '+' || s[i] == '-' {
			i++
		}
		for ; i < len(s); i++ {
			if exp = exp*10 + int64(s[i]-'0'); exp > maxParsedExponent {
				return nil, fmt.Errorf("guard: %q: exponent out of range", orig)
			}
		}
		if eneg {
			exp = -exp
		}
	}
	if int64(len(frac)) > maxExponent {
		return nil, fmt.Errorf("guard: %q: too many digits", orig)
	}
	// The significant digits: the integer and fraction digits without
	// leading zeros and without trailing zeros (moved into the exponent).
	digits := make([]byte, 0, len(intPart)+len(frac))
	digits = append(digits, intPart...)
	digits = append(digits, frac...)
	e := exp - int64(len(frac)) // value = digits × 10^e
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	digits = digits[lead:]
	for len(digits) > 0 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
		e++
	}
	if len(digits) == 0 {
		return append(b, '0'), nil
	}
	if neg {
		b = append(b, '-')
	}
	k := int64(len(digits))
	n := k + e
	if n-1 > maxExponent || n-1 < -maxExponent {
		return nil, fmt.Errorf("guard: %q: exponent out of range", orig)
	}
	switch {
	case k <= n && n <= 21:
		b = append(b, digits...)
		for range n - k {
			b = append(b, '0')
		}
	case 0 < n && n <= 21:
		b = append(b, digits[:n]...)
		b = append(b, '.')
		b = append(b, digits[n:]...)
	case -6 < n && n <= 0:
		b = append(b, '0', '.')
		for range -n {
			b = append(b, '0')
		}
		b = append(b, digits...)
	default:
		b = append(b, digits[0])
		if k > 1 {
			b = append(b, '.')
			b = append(b, digits[1:]...)
		}
		b = append(b, 'e')
		if n-1 >= 0 {
			b = append(b, '+')
		}
		b = strconv.AppendInt(b, n-1, 10)
	}
	return b, nil
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
