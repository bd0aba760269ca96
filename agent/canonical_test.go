package agent

import (
	"encoding/json"
	"maps"
	"math"
	"testing"
)

// marshalCanonical is Canonical by encoding/json alone: what the fast
// encoder must reproduce byte for byte.
func marshalCanonical(args map[string]any) string {
	args = maps.Clone(args)
	delete(args, keyArg)
	b, err := json.Marshal(args)
	if err != nil {
		return ""
	}
	return string(b)
}

func TestCanonicalMatchesEncodingJSON(t *testing.T) {
	cases := []map[string]any{
		nil,
		{},
		{"a": "x", "idempotency_key": "k1"},
		{"b": 1.0, "a": math.Copysign(0, -1), "c": 1e21, "d": 1e-7, "e": 123456789.125, "f": 1e20, "g": 5e-324, "h": -1.5e-9},
		{"n": nil, "t": true, "f": false, "i": 7, "j": int64(-9)},
		{"rows": []any{map[string]any{"id": "r1", "v": 2.5}, map[string]any{"id": "r2"}}, "table": "orders"},
		{"nested": map[string]any{"idempotency_key": "kept below the top", "": "empty key"}},
		{"empty": []any{}, "nil": []any(nil), "m": map[string]any(nil)},
		{"html": "a<b & c>d"},
		{"ctl": "line\nbreak\ttab\x01", "quote": `say "hi" \ back`},
		{"utf8": "café ☕", "bad": "\xff\xfe", "ls": "a\u2028b"},
		{"other": []string{"x", "y"}, "u": uint8(3)},
		{"nan": math.NaN()},
		{"inf": math.Inf(-1)},
	}
	for i, c := range cases {
		if got, want := Canonical(c), marshalCanonical(c); got != want {
			t.Errorf("case %d: Canonical = %q, encoding/json = %q", i, got, want)
		}
	}
}

// FuzzCanonical: for JSON arguments the fast encoder writes encoding/json's
// bytes.
func FuzzCanonical(f *testing.F) {
	f.Add(`{"a":"x","idempotency_key":"k","rows":[{"id":1,"v":2.5e-7}],"b":null,"c":true}`)
	f.Add(`{"s":"<&>\u2028\u0001é","n":1e300,"m":{"":{"z":[]}}}`)
	f.Fuzz(func(t *testing.T, data string) {
		var args map[string]any
		if json.Unmarshal([]byte(data), &args) != nil {
			return
		}
		if got, want := Canonical(args), marshalCanonical(args); got != want {
			t.Errorf("Canonical(%s) = %q, encoding/json = %q", data, got, want)
		}
	})
}
