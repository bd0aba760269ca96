package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// decodeJSON decodes one JSON text (RFC 8259) as encoding/json with
// UseNumber does, into map[string]any, []any, string, json.Number, bool
// and nil (invalid UTF-8 and unpaired surrogates becoming U+FFFD), but
// refuses trailing data and an object that names a member twice, which
// decoders resolve differently.
//
// A repeated member is found by counting: every member of every object
// in the text is one ':' outside a string, and the decoded value holds as
// many members only if no object lost one to a repeated name (a member
// overwritten takes its own members with it).
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("guard: JSON: %w", err)
	}
	if rest := bytes.TrimLeft(data[dec.InputOffset():], " \t\r\n"); len(rest) > 0 {
		return nil, fmt.Errorf("guard: JSON: offset %d: data after the value", len(data)-len(rest))
	}
	if members(v) != rawMembers(data) {
		return nil, errors.New("guard: JSON: an object names a member twice")
	}
	return v, nil
}

// members counts the object members in a decoded value.
func members(v any) int {
	n := 0
	switch x := v.(type) {
	case map[string]any:
		n += len(x)
		for _, e := range x {
			n += members(e)
		}
	case []any:
		for _, e := range x {
			n += members(e)
		}
	}
	return n
}

// rawMembers counts the ':' outside strings of a valid JSON text: its
// object members.
func rawMembers(data []byte) int {
	n, inString := 0, false
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && c == ':':
			n++
		}
	}
	return n
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
