package sandbox

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"
)

// decodeArgs decodes a call's JSON arguments exactly as json.Unmarshal into
// a map[string]any does. Grade decodes every call, and reflection dominated
// its cost, so the arguments the sandbox itself records (ASCII text, no
// escapes) go through a small decoder; anything it is not sure of goes to
// encoding/json, which also produces the errors.
func decodeArgs(s string) (map[string]any, error) {
	if m, ok := fastObject(s); ok {
		return m, nil
	}
	var m map[string]any
	err := json.Unmarshal([]byte(s), &m)
	return m, err
}

// fastObject parses s if it is a JSON object within the fast decoder's
// subset; ok is false otherwise (including for any invalid input).
func fastObject(s string) (m map[string]any, ok bool) {
	p := argParser{s: s}
	p.space()
	if p.i >= len(s) || s[p.i] != '{' {
		return nil, false
	}
	v, ok := p.value(0)
	if !ok {
		return nil, false
	}
	p.space()
	if p.i != len(s) {
		return nil, false
	}
	return v.(map[string]any), true
}

type argParser struct {
	s string
	i int
}

// maxFastDepth bounds recursion; deeper documents go to encoding/json.
const maxFastDepth = 16

func (p *argParser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// open steps past the opening bracket of an object or array and reports
// whether the container is empty (its closing byte follows at once, and is
// consumed).
func (p *argParser) open(closing byte) (empty bool) {
	p.i++
	p.space()
	if p.i < len(p.s) && p.s[p.i] == closing {
		p.i++
		return true
	}
	return false
}

// next consumes the separator after a container's element: done is true
// at the closing byte, ok is false for anything but ',' or closing.
func (p *argParser) next(closing byte) (done, ok bool) {
	p.space()
	if p.i >= len(p.s) {
		return false, false
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return false, true
	case closing:
		p.i++
		return true, true
	}
	return false, false
}

func (p *argParser) value(depth int) (any, bool) {
	if depth > maxFastDepth || p.i >= len(p.s) {
		return nil, false
	}
	switch c := p.s[p.i]; c {
	case '{':
		m := make(map[string]any)
		if p.open('}') {
			return m, true
		}
		for {
			p.space()
			k, ok := p.str()
			if !ok {
				return nil, false
			}
			p.space()
			if p.i >= len(p.s) || p.s[p.i] != ':' {
				return nil, false
			}
			p.i++
			p.space()
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			m[k] = v
			switch done, ok := p.next('}'); {
			case !ok:
				return nil, false
			case done:
				return m, true
			}
		}
	case '[':
		a := make([]any, 0) // encoding/json decodes [] to an empty, non-nil slice
		if p.open(']') {
			return a, true
		}
		for {
			p.space()
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			a = append(a, v)
			switch done, ok := p.next(']'); {
			case !ok:
				return nil, false
			case done:
				return a, true
			}
		}
	case '"':
		return p.str()
	case 't':
		return true, p.literal("true")
	case 'f':
		return false, p.literal("false")
	case 'n':
		return nil, p.literal("null")
	}
	return p.number()
}

// str parses a string without escapes, control characters or non-ASCII
// bytes (the rest is left to encoding/json).
func (p *argParser) str() (string, bool) {
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", false
	}
	start := p.i + 1
	for i := start; i < len(p.s); i++ {
		c := p.s[i]
		if c == '"' {
			p.i = i + 1
			return p.s[start:i], true
		}
		if c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			return "", false
		}
	}
	return "", false
}

func (p *argParser) literal(lit string) bool {
	if len(p.s)-p.i < len(lit) || p.s[p.i:p.i+len(lit)] != lit {
		return false
	}
	p.i += len(lit)
	return true
}

// number parses a JSON number (RFC 8259 grammar) to float64, as
// encoding/json does for an interface value.
func (p *argParser) number() (any, bool) {
	s, i := p.s, p.i
	digits := func() bool {
		j := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > j
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return nil, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return nil, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(s[p.i:i], 64)
	if err != nil {
		return nil, false
	}
	p.i = i
	return f, true
}
