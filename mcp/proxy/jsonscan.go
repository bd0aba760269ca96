package proxy

import (
	"encoding/json"
)

// The fast path (rawlink.go, rawserve.go) reads a few members of JSON-RPC
// messages without decoding the rest: the id and method of a request, the
// name of a tool call, the isError of a result. These functions walk JSON
// text that is known to be valid (checked by json.Valid, or by the
// upstream's decoder before it reached the proxy): they find where a value
// ends and which member holds which value, and allocate nothing.

// isSpace reports JSON's insignificant white space.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// skipSpace returns the index of the first byte at or after i that is not
// white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	return i
}

// stringEnd returns the index just past the string that starts at b[i]
// (a quote).
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(b)
}

// valueEnd returns the index just past the value that starts at b[i].
func valueEnd(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return stringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				j = stringEnd(b, j) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1
				}
			}
		}
		return len(b)
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && !isSpace(b[j]) {
		j++
	}
	return j
}

// members calls fn with each member of the object obj, its key as written
// (between the quotes, escapes and all) and its value's text, until fn
// returns false. obj must be valid JSON; anything but an object has no
// members.
func members(obj []byte, fn func(key, val []byte) bool) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return // '}' or the end
		}
		kEnd := stringEnd(obj, i)
		key := obj[i+1 : kEnd-1]
		i = skipSpace(obj, kEnd)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = skipSpace(obj, i+1)
		vEnd := valueEnd(obj, i)
		if !fn(key, obj[i:vEnd]) {
			return
		}
		i = skipSpace(obj, vEnd)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i++
	}
}

// keyIs reports whether a member's key as written spells name: a plain key
// is compared as it is, one with escapes once decoded (encoding/json and
// the SDK match keys exactly, and a later duplicate wins).
func keyIs(key []byte, name string) bool {
	for _, c := range key {
		if c == '\\' {
			var s string
			q := make([]byte, 0, len(key)+2)
			q = append(append(append(q, '"'), key...), '"')
			return json.Unmarshal(q, &s) == nil && s == name
		}
	}
	return string(key) == name
}

// member returns the value of the object's member name (the last, if it
// is repeated), or nil.
func member(obj []byte, name string) []byte {
	var v []byte
	members(obj, func(k, val []byte) bool {
		if keyIs(k, name) {
			v = val
		}
		return true
	})
	return v
}

// isNull reports whether a value is absent or null.
func isNull(v []byte) bool { return len(v) == 0 || string(v) == "null" }
