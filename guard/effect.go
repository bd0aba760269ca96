package guard

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Effect selects the arguments of a call that identify its effect: the
// logical write, as opposed to the idempotency key or a note that does not
// change what is written. Its zero value selects every argument.
type Effect struct {
	pointers []pointer // nil: every argument but keyArg
	keyArg   string
}

type pointer struct {
	text   string   // as written (RFC 6901)
	tokens []string // unescaped reference tokens
}

// NewEffect returns the effect selected by JSON pointers (RFC 6901) into a
// call's arguments. With no pointers it selects every argument but keyArg
// (the idempotency key's argument name; "" when there is none). A pointer
// that is not a JSON pointer is an error naming it.
func NewEffect(pointers []string, keyArg string) (Effect, error) {
	e := Effect{keyArg: keyArg}
	for _, p := range pointers {
		ptr, err := parsePointer(p)
		if err != nil {
			return Effect{}, err
		}
		e.pointers = append(e.pointers, ptr)
	}
	return e, nil
}

// Pointers returns the effect's pointers (nil when it selects every
// argument but the key).
func (e Effect) Pointers() []string {
	var out []string
	for _, p := range e.pointers {
		out = append(out, p.text)
	}
	return out
}

// KeyArg returns the name of the key argument the effect leaves out.
func (e Effect) KeyArg() string { return e.keyArg }

func parsePointer(s string) (pointer, error) {
	if s == "" {
		return pointer{text: s}, nil
	}
	if s[0] != '/' {
		return pointer{}, fmt.Errorf("guard: JSON pointer %q does not start with \"/\"", s)
	}
	parts := strings.Split(s[1:], "/")
	for i, t := range parts {
		var b strings.Builder
		for j := 0; j < len(t); j++ {
			if t[j] != '~' {
				b.WriteByte(t[j])
				continue
			}
			if j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1') {
				return pointer{}, fmt.Errorf("guard: JSON pointer %q: \"~\" must be followed by 0 or 1", s)
			}
			if t[j+1] == '0' {
				b.WriteByte('~')
			} else {
				b.WriteByte('/')
			}
			j++
		}
		parts[i] = b.String()
	}
	return pointer{text: s, tokens: parts}, nil
}

// resolve returns the value the pointer refers to in v, and whether there
// is one.
func (p pointer) resolve(v any) (any, bool, error) {
	for i := 0; i < len(p.tokens); {
		tok := p.tokens[i]
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false, nil
			}
			i++
		case []any:
			j, ok := arrayIndex(tok, len(x))
			if !ok {
				return nil, false, nil
			}
			v = x[j]
			i++
		case nil, bool, string, json.Number, float64, float32, int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
			return nil, false, nil
		default:
			// A typed value (a struct, []map[string]any): read it as
			// JSON, then apply the same token to that.
			t, err := plain(v)
			if err != nil {
				return nil, false, err
			}
			v = t
		}
	}
	return v, true, nil
}

// arrayIndex reads an RFC 6901 array index: decimal digits without a
// leading zero, within the array.
func arrayIndex(tok string, n int) (int, bool) {
	if tok == "" || (len(tok) > 1 && tok[0] == '0') {
		return 0, false
	}
	for i := 0; i < len(tok); i++ {
		if !isDigit(tok[i]) {
			return 0, false
		}
	}
	i, err := strconv.Atoi(tok)
	if err != nil || i >= n {
		return 0, false
	}
	return i, true
}

// plain turns a typed Go value into map[string]any, []any and scalars
// by way of encoding/json.
func plain(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("guard: arguments: %w", err)
	}
	return decodeJSON(raw)
}

// Select returns the effect's part of args, a call's decoded arguments:
// args without the key argument, or an object from each pointer that
// resolves to its value (pointers that resolve to nothing are left out,
// so an absent optional argument differs from a null one).
func (e Effect) Select(args any) (any, error) {
	if e.pointers == nil {
		var m map[string]any
		switch x := args.(type) {
		case nil:
			return map[string]any{}, nil
		case map[string]any:
			m = x
		default:
			t, err := plain(args)
			if err != nil {
				return nil, err
			}
			var ok bool
			if m, ok = t.(map[string]any); !ok {
				return nil, fmt.Errorf("guard: arguments are a JSON %s, not an object", jsonKind(t))
			}
		}
		if _, has := m[e.keyArg]; !has || e.keyArg == "" {
			return m, nil
		}
		out := make(map[string]any, len(m)-1)
		for k, v := range m {
			if k != e.keyArg {
				out[k] = v
			}
		}
		return out, nil
	}
	out := make(map[string]any, len(e.pointers))
	for _, p := range e.pointers {
		v, ok, err := p.resolve(args)
		if err != nil {
			return nil, err
		}
		if ok {
			out[p.text] = v
		}
	}
	return out, nil
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "array"
	case string:
		return "string"
	case bool:
		return "boolean"
	case nil:
		return "null"
	}
	return "number"
}

// Canonical returns the canonical JSON of the effect's part of args.
func (e Effect) Canonical(args any) ([]byte, error) {
	v, err := e.Select(args)
	if err != nil {
		return nil, err
	}
	return Canonical(v)
}

// Fingerprint returns the fingerprint of a call of tool with args: the
// SHA-256, in lower-case hex, of the tool's name, a zero byte and the
// canonical JSON of the effect's part of args. Two calls have one
// fingerprint when they name one tool and their effect arguments are equal
// as JSON.
func (e Effect) Fingerprint(tool string, args any) (string, error) {
	c, err := e.Canonical(args)
	if err != nil {
		return "", err
	}
	return fingerprint(tool, c), nil
}

// FingerprintJSON is Fingerprint of arguments given as a JSON text
// (what an MCP request carries); it refuses a text that is not one JSON
// value or repeats a member name.
func (e Effect) FingerprintJSON(tool string, args []byte) (string, error) {
	var v any
	if len(args) > 0 {
		var err error
		if v, err = decodeJSON(args); err != nil {
			return "", err
		}
	}
	return e.Fingerprint(tool, v)
}

func fingerprint(tool string, canonical []byte) string {
	h := sha256.New()
	h.Write([]byte(tool))
	h.Write([]byte{0})
	h.Write(canonical)
	return hex.EncodeToString(h.Sum(nil))
}
