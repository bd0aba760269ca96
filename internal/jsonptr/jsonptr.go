// Package jsonptr reads and replaces values in decoded JSON documents
// (encoding/json's map[string]any, []any and scalars) by JSON pointer,
// RFC 6901: "/a/0/b~1c" names key "b/c" of the first element of a's
// array. The empty pointer names the whole document.
package jsonptr

import (
	"errors"
	"strconv"
	"strings"
)

// Pointer is a parsed JSON pointer: its reference tokens, unescaped.
type Pointer []string

// Parse parses a JSON pointer: empty, or "/" followed by tokens separated
// by "/", in which "~0" stands for "~" and "~1" for "/".
func Parse(s string) (Pointer, error) {
	if s == "" {
		return Pointer{}, nil
	}
	if s[0] != '/' {
		return nil, errors.New(`a JSON pointer starts with "/"`)
	}
	parts := strings.Split(s[1:], "/")
	p := make(Pointer, len(parts))
	for i, t := range parts {
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1')) {
				return nil, errors.New(`"~" in a JSON pointer must be followed by 0 or 1`)
			}
		}
		p[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return p, nil
}

// String renders the pointer, escaped.
func (p Pointer) String() string {
	var b strings.Builder
	for _, t := range p {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// Index is the array index a token names: decimal digits without a
// leading zero ("-", past the end, names no element).
func Index(tok string) (int, bool) {
	if tok == "" || len(tok) > 1 && tok[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(tok); i++ {
		if tok[i] < '0' || tok[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(tok)
	return n, err == nil
}

// Get returns the value the pointer names in doc, and whether there is one.
func (p Pointer) Get(doc any) (any, bool) {
	v := doc
	for _, t := range p {
		switch c := v.(type) {
		case map[string]any:
			x, ok := c[t]
			if !ok {
				return nil, false
			}
			v = x
		case []any:
			i, ok := Index(t)
			if !ok || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// With returns doc with the value the pointer names replaced by v, and
// whether the pointer names a value. The containers along the path are
// copied, so doc itself is left as it was.
func (p Pointer) With(doc, v any) (any, bool) {
	if len(p) == 0 {
		return v, true
	}
	t := p[0]
	switch c := doc.(type) {
	case map[string]any:
		x, ok := c[t]
		if !ok {
			return doc, false
		}
		nx, ok := p[1:].With(x, v)
		if !ok {
			return doc, false
		}
		m := make(map[string]any, len(c))
		for k, e := range c {
			m[k] = e
		}
		m[t] = nx
		return m, true
	case []any:
		i, ok := Index(t)
		if !ok || i >= len(c) {
			return doc, false
		}
		nx, ok := p[1:].With(c[i], v)
		if !ok {
			return doc, false
		}
		a := append([]any(nil), c...)
		a[i] = nx
		return a, true
	}
	return doc, false
}
