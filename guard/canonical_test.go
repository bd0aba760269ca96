package guard_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/guard"
)

func TestCanonicalNumber(t *testing.T) {
	cases := []struct{ in, want string }{
		{"0", "0"}, {"-0", "0"}, {"0.000", "0"}, {"0e99", "0"}, {"-0.0e-5", "0"},
		{"1", "1"}, {"1.0", "1"}, {"10e-1", "1"}, {"1E0", "1"}, {"0.1e1", "1"}, {"100e-2", "1"},
		{"1250", "1250"}, {"12.50", "12.5"}, {"1.25e3", "1250"}, {"-7", "-7"},
		{"0.0125", "0.0125"}, {"1.25e-7", "1.25e-7"}, {"0.000001", "0.000001"}, {"0.0000001", "1e-7"},
		{"1e21", "1e+21"}, {"1e20", "100000000000000000000"}, {"123456789012345678901", "123456789012345678901"},
		{"1234567890123456789012", "1.234567890123456789012e+21"},
		{"123456789012345678901234567890", "1.2345678901234567890123456789e+29"}, // every digit kept
		{"9007199254740993", "9007199254740993"},                                 // 2^53+1: RFC 8785 would round it to ...992
		{"1.5e300", "1.5e+300"}, {"-2.5E-300", "-2.5e-300"}, {"5e-324", "5e-324"},
	}
	for _, c := range cases {
		got, err := guard.CanonicalNumber(c.in)
		if err != nil || got != c.want {
			t.Errorf("CanonicalNumber(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x10", "1_000", "NaN", "Infinity", " 1", "1 ", "1e99999999999999999999"} {
		if got, err := guard.CanonicalNumber(bad); err == nil {
			t.Errorf("CanonicalNumber(%q) = %q, want an error", bad, got)
		}
	}
}

// Every float64 that encoding/json writes reads back through the
// canonical form as the same float, and the form is RFC 8785's (which is
// ECMAScript's Number.prototype.toString) where RFC 8785 applies.
func TestCanonicalFloatsMatchRFC8785(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		// RFC 8785, appendix B's sample values.
		{0, "0"}, {math.Copysign(0, -1), "0"}, {5e-324, "5e-324"}, {-5e-324, "-5e-324"},
		{1.7976931348623157e308, "1.7976931348623157e+308"}, {-1.7976931348623157e308, "-1.7976931348623157e+308"},
		{9007199254740992, "9007199254740992"}, {-9007199254740992, "-9007199254740992"},
		{295147905179352830000, "295147905179352830000"}, {9.999999999999997e22, "9.999999999999997e+22"},
		{1e23, "1e+23"}, {1.0000000000000001e23, "1.0000000000000001e+23"},
		{999999999999999700000, "999999999999999700000"}, {999999999999999900000, "999999999999999900000"},
		{1e21, "1e+21"}, {9.999999999999997e-7, "9.999999999999997e-7"}, {0.000001, "0.000001"},
		{333333333.3333332, "333333333.3333332"}, {333333333.33333325, "333333333.33333325"},
		{333333333.3333333, "333333333.3333333"}, {333333333.3333334, "333333333.3333334"},
		{333333333.33333343, "333333333.33333343"}, {-0.0000033333333333333333, "-0.0000033333333333333333"},
		{1e-7, "1e-7"}, {0.1, "0.1"}, {100, "100"},
	}
	for _, c := range cases {
		got, err := guard.Canonical(c.f)
		if err != nil || string(got) != c.want {
			t.Errorf("Canonical(%v) = %s, %v; want %s", c.f, got, err, c.want)
			continue
		}
		back, err := strconv.ParseFloat(string(got), 64)
		if err != nil || back != c.f {
			t.Errorf("Canonical(%v) = %s reads back as %v", c.f, got, back)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if _, err := guard.Canonical(f); err == nil {
			t.Errorf("Canonical(%v): want an error", f)
		}
	}
}

func TestCanonical(t *testing.T) {
	type charge struct {
		Customer string `json:"customer"`
		Amount   int    `json:"amount_cents"`
	}
	cases := []struct {
		name string
		v    any
		want string
	}{
		{"sorted members", map[string]any{"b": 1, "a": 2, "A": 3, "é": 4, "aa": 5}, `{"A":3,"a":2,"aa":5,"b":1,"é":4}`},
		{"nested", map[string]any{"z": []any{map[string]any{"y": true, "x": nil}}, "a": "s"}, `{"a":"s","z":[{"x":null,"y":true}]}`},
		{"Go numbers are JSON numbers", []any{1, int64(-2), uint8(3), 1.0, float32(0.1), 2.50}, `[1,-2,3,1,0.1,2.5]`},
		{"json.Number", []any{json.Number("1.0"), json.Number("1e2")}, `[1,100]`},
		{"escapes", "\"\\\b\f\n\r\t\x00\x1f\x7f/<>&\u2028é😀", `"\"\\\b\f\n\r\t\u0000\u001f` + "\x7f/<>&\u2028é😀" + `"`},
		{"invalid UTF-8 as a decoder reads it", "a\xffb", "\"a\ufffdb\""},
		{"a struct through encoding/json", charge{"c1", 1000}, `{"amount_cents":1000,"customer":"c1"}`},
		{"typed slices", []map[string]any{{"b": 1, "a": 1}}, `[{"a":1,"b":1}]`},
		{"raw JSON", json.RawMessage(`{"b": 1.0, "a": [1e0]}`), `{"a":[1],"b":1}`},
		{"empty", map[string]any{}, `{}`},
	}
	for _, c := range cases {
		got, err := guard.Canonical(c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: Canonical = %s, %v; want %s", c.name, got, err, c.want)
		}
	}
	if _, err := guard.Canonical(map[string]any{"\xff": 1, "\xfe": 2}); err == nil {
		t.Error("two names read as one: want an error")
	}
	if _, err := guard.Canonical(make(chan int)); err == nil {
		t.Error("a channel: want an error")
	}
	deep := any(nil)
	for range 10001 {
		deep = []any{deep}
	}
	if _, err := guard.Canonical(deep); err == nil {
		t.Error("nesting beyond 10000: want an error")
	}
}

func TestCanonicalJSON(t *testing.T) {
	cases := []struct{ in, want string }{
		{` { "b" : [ 1.0 , "x" ] , "a" : { } } `, `{"a":{},"b":[1,"x"]}`},
		{`"\u00e9\ud83d\ude00\u002f"`, `"é😀/"`},
		{`[1e400, -1e-400]`, `[1e+400,-1e-400]`},
		{`12345678901234567890123`, `1.2345678901234567890123e+22`},
		{`null`, `null`},
	}
	for _, c := range cases {
		got, err := guard.CanonicalJSON([]byte(c.in))
		if err != nil || string(got) != c.want {
			t.Errorf("CanonicalJSON(%s) = %s, %v; want %s", c.in, got, err, c.want)
		}
	}
	for _, bad := range []string{``, `{`, `{"a":1,}`, `[1,]`, `{"a":1,"a":2}`, `{"a":1} x`, `{"a":1}{}`, `01`, `'a'`, `{a:1}`, `[1e99999999999999999999]`, strings.Repeat("[", 10001) + strings.Repeat("]", 10001)} {
		if got, err := guard.CanonicalJSON([]byte(bad)); err == nil {
			t.Errorf("CanonicalJSON(%.40s) = %s, want an error", bad, got)
		}
	}
}

// FuzzCanonicalJSON checks the canonicaliser on arbitrary input: it
// accepts exactly the JSON texts encoding/json accepts (but for repeated
// member names and absurd exponents), its output is valid JSON and its own
// canonical form, the two ways in (a text, and the value encoding/json
// decodes from it) agree, and every number keeps its exact value.
func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range []string{`{"b":1,"a":[1.0,"x",null,true]}`, `1e21`, `-0.0`, `"\u0000\ud800"`, `[1e400]`, `{"a":{"a":{}}}`, `123456789012345678901234567890`, `0.1e-7`,
		`"\ud83d\ude00"`, `"\ud800x"`, `"\udc00\ud800"`, `"\ud800\ud800\udc00"`, `"\ud800\u0041"`, "\"a\xffb\xc3\"", "{\"\xff\":1}", ` [ 1 , { "a" : "\\\"\/" } ] `} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := guard.CanonicalJSON(data)
		valid := json.Valid(data)
		if err != nil {
			if valid && !strings.Contains(err.Error(), "twice") && !strings.Contains(err.Error(), "out of range") && !strings.Contains(err.Error(), "depth") {
				t.Fatalf("valid JSON %q refused: %v", data, err)
			}
			return
		}
		if !valid {
			t.Fatalf("invalid JSON %q accepted as %s", data, out)
		}
		if !json.Valid(out) {
			t.Fatalf("%q: output %q is not JSON", data, out)
		}
		again, err := guard.CanonicalJSON(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("%q: canonical form %q is not its own (%q, %v)", data, out, again, err)
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%q: encoding/json: %v", data, err)
		}
		viaValue, err := guard.Canonical(v)
		if err != nil || !bytes.Equal(viaValue, out) {
			t.Fatalf("%q: from the text %q, from the value %q (%v)", data, out, viaValue, err)
		}
		sameNumbers(t, v, out)
	})
}

// sameNumbers checks that the numbers of v (decoded with UseNumber) have
// exactly the values of those in the canonical text out, in order, where
// big.Rat can hold them.
func sameNumbers(t *testing.T, v any, out []byte) {
	var in []json.Number
	var walk func(any)
	walk = func(x any) {
		switch x := x.(type) {
		case json.Number:
			in = append(in, x)
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			// the canonical order: bytewise
			for i := range keys {
				for j := i + 1; j < len(keys); j++ {
					if keys[j] < keys[i] {
						keys[i], keys[j] = keys[j], keys[i]
					}
				}
			}
			for _, k := range keys {
				walk(x[k])
			}
		}
	}
	walk(v)
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.UseNumber()
	var w any
	if err := dec.Decode(&w); err != nil {
		t.Fatal(err)
	}
	saved := in
	in = nil
	walk(w)
	got := in
	if len(got) != len(saved) {
		t.Fatalf("%d numbers became %d", len(saved), len(got))
	}
	for i := range got {
		if !ratFriendly(string(saved[i])) {
			continue
		}
		a, ok1 := new(big.Rat).SetString(string(saved[i]))
		b, ok2 := new(big.Rat).SetString(string(got[i]))
		if !ok1 || !ok2 || a.Cmp(b) != 0 {
			t.Fatalf("number %s became %s", saved[i], got[i])
		}
	}
}

// FuzzCanonicalNumber: a number's canonical form is a JSON number of the
// same value and its own canonical form.
func FuzzCanonicalNumber(f *testing.F) {
	for _, s := range []string{"0", "-0.0", "12.50", "1e21", "1.25e-7", "0.0000001", "123456789012345678901234", "-1E+3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := guard.CanonicalNumber(s)
		if err != nil {
			return
		}
		if !json.Valid([]byte(c)) {
			t.Fatalf("%q → %q, not JSON", s, c)
		}
		if c2, err := guard.CanonicalNumber(c); err != nil || c2 != c {
			t.Fatalf("%q → %q → %q (%v)", s, c, c2, err)
		}
		if ratFriendly(s) {
			a, _ := new(big.Rat).SetString(s)
			b, _ := new(big.Rat).SetString(c)
			if a == nil || b == nil || a.Cmp(b) != 0 {
				t.Fatalf("%q → %q changes the value", s, c)
			}
		}
	})
}

// ratFriendly reports whether big.Rat reads s quickly: not too long, and
// an exponent, if any, of at most three digits.
func ratFriendly(s string) bool {
	if len(s) > 80 {
		return false
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e := strings.TrimLeft(s[i+1:], "+-")
		return len(strings.TrimLeft(e, "0")) <= 3
	}
	return true
}
