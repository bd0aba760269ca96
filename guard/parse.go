package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// decodeJSON decodes one JSON text (RFC 8259) into map[string]any, []any,
// string, json.Number, bool and nil, as encoding/json with UseNumber does
// (invalid UTF-8 and unpaired surrogates become U+FFFD), but refuses an
// object that names a member twice, and is several times faster, which
// matters on a proxy's path.
func decodeJSON(data []byte) (any, error) {
	p := parser{data: data}
	p.space()
	v, err := p.value(0)
	if err == nil {
		if p.space(); p.i < len(p.data) {
			err = p.errorf("data after the value")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("guard: JSON: %w", err)
	}
	return v, nil
}

type parser struct {
	data []byte
	i    int
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("offset %d: %s", p.i, fmt.Sprintf(format, args...))
}

func (p *parser) space() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if p.i >= len(p.data) {
		return nil, p.errorf("unexpected end of input")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		if depth >= maxDepth {
			return nil, p.errorf("nested deeper than %d", maxDepth)
		}
		return p.object(depth)
	case c == '[':
		if depth >= maxDepth {
			return nil, p.errorf("nested deeper than %d", maxDepth)
		}
		return p.array(depth)
	case c == '"':
		return p.string()
	case c == '-' || isDigit(c):
		n, err := scanNumber(p.data[p.i:])
		if err != nil {
			return nil, p.errorf("%v", err)
		}
		s := string(p.data[p.i : p.i+n])
		p.i += n
		return json.Number(s), nil
	}
	for _, lit := range [...]struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(p.data)-p.i >= len(lit.text) && string(p.data[p.i:p.i+len(lit.text)]) == lit.text {
			p.i += len(lit.text)
			return lit.v, nil
		}
	}
	return nil, p.errorf("unexpected %q", p.data[p.i])
}

func (p *parser) object(depth int) (any, error) {
	p.i++ // {
	m := map[string]any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, p.errorf("want a member name")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		if _, dup := m[k]; dup {
			return nil, p.errorf("object member %q appears twice", k)
		}
		p.space()
		if p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, p.errorf("want ':' after a member name")
		}
		p.i++
		p.space()
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			p.space()
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == '}' {
			p.i++
			return m, nil
		}
		return nil, p.errorf("want ',' or '}' in an object")
	}
}

func (p *parser) array(depth int) (any, error) {
	p.i++ // [
	a := []any{}
	p.space()
	if p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		return a, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.space()
		if p.i < len(p.data) && p.data[p.i] == ',' {
			p.i++
			p.space()
			continue
		}
		if p.i < len(p.data) && p.data[p.i] == ']' {
			p.i++
			return a, nil
		}
		return nil, p.errorf("want ',' or ']' in an array")
	}
}

// string reads a JSON string at p.i, as encoding/json unquotes it.
func (p *parser) string() (string, error) {
	p.i++ // "
	start := p.i
	// The common case: no escapes, valid UTF-8.
	for p.i < len(p.data) {
		c := p.data[p.i]
		if c == '"' {
			s := p.data[start:p.i]
			p.i++
			if utf8.Valid(s) {
				return string(s), nil
			}
			return string([]rune(string(s))), nil // invalid bytes → U+FFFD
		}
		if c == '\\' || c < 0x20 {
			break
		}
		p.i++
	}
	b := make([]byte, 0, p.i-start+16)
	b = append(b, p.data[start:p.i]...)
	for p.i < len(p.data) {
		c := p.data[p.i]
		switch {
		case c == '"':
			p.i++
			if utf8.Valid(b) {
				return string(b), nil
			}
			return string([]rune(string(b))), nil
		case c < 0x20:
			return "", p.errorf("control character %#x in a string", c)
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.data) {
			break
		}
		e := p.data[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.errorf("bad \\u escape")
			}
			if utf16.IsSurrogate(r) {
				// A pair makes one character; anything else is U+FFFD,
				// and what follows is read on its own.
				save := p.i
				if p.i+1 < len(p.data) && p.data[p.i] == '\\' && p.data[p.i+1] == 'u' {
					p.i += 2
					if r2, ok := p.hex4(); ok {
						if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
							b = utf8.AppendRune(b, d)
							continue
						}
					}
				}
				p.i = save
				r = utf8.RuneError
			}
			b = utf8.AppendRune(b, r)
		default:
			return "", p.errorf("bad escape \\%c", e)
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *parser) hex4() (rune, bool) {
	if len(p.data)-p.i < 4 {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.data[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}

var errNumber = errors.New("not a JSON number")

// scanNumber returns the length of the JSON number at the start of s
// (RFC 8259: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?).
func scanNumber(s []byte) (int, error) {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case i < len(s) && '1' <= s[i] && s[i] <= '9':
		for i < len(s) && isDigit(s[i]) {
			i++
		}
	default:
		return 0, errNumber
	}
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == fs {
			return 0, errNumber
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		es := i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i == es {
			return 0, errNumber
		}
	}
	return i, nil
}
