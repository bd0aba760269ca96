package jsonptr

import (
	"encoding/json"
	"reflect"
	"testing"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestGet: the examples of RFC 6901, section 5.
func TestGet(t *testing.T) {
	doc := decode(t, `{"foo": ["bar", "baz"], "": 0, "a/b": 1, "c%d": 2, "e^f": 3, "g|h": 4, "i\\j": 5, "k\"l": 6, " ": 7, "m~n": 8}`)
	for _, c := range []struct {
		ptr  string
		want string
	}{
		{"", ""}, // the whole document, checked below
		{"/foo", `["bar","baz"]`},
		{"/foo/0", `"bar"`},
		{"/", `0`},
		{"/a~1b", `1`},
		{"/c%d", `2`},
		{"/e^f", `3`},
		{"/g|h", `4`},
		{"/i\\j", `5`},
		{"/k\"l", `6`},
		{"/ ", `7`},
		{"/m~0n", `8`},
	} {
		p, err := Parse(c.ptr)
		if err != nil {
			t.Fatalf("%q: %v", c.ptr, err)
		}
		if p.String() != c.ptr {
			t.Errorf("%q: renders as %q", c.ptr, p.String())
		}
		v, ok := p.Get(doc)
		if !ok {
			t.Errorf("%q: names nothing", c.ptr)
			continue
		}
		if c.want == "" {
			if !reflect.DeepEqual(v, doc) {
				t.Errorf("empty pointer: not the document")
			}
			continue
		}
		if b, _ := json.Marshal(v); string(b) != c.want {
			t.Errorf("%q: %s, want %s", c.ptr, b, c.want)
		}
	}
	for _, missing := range []string{"/bar", "/foo/2", "/foo/01", "/foo/-", "/foo/0/x", "/a~1b/c"} {
		p, err := Parse(missing)
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := p.Get(doc); ok {
			t.Errorf("%q: got %v, want nothing", missing, v)
		}
	}
	for _, bad := range []string{"foo", "/a~", "/a~2"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q: parsed", bad)
		}
	}
}

// TestWith: the value is replaced in a copy; the original is untouched.
func TestWith(t *testing.T) {
	doc := decode(t, `{"rows": [{"id": 1}, {"id": 2}], "table": "t"}`)
	p, _ := Parse("/rows")
	got, ok := p.With(doc, map[string]any{"id": 2.0})
	if !ok {
		t.Fatal("/rows names nothing")
	}
	if b, _ := json.Marshal(got); string(b) != `{"rows":{"id":2},"table":"t"}` {
		t.Errorf("replaced: %s", b)
	}
	if b, _ := json.Marshal(doc); string(b) != `{"rows":[{"id":1},{"id":2}],"table":"t"}` {
		t.Errorf("original changed: %s", b)
	}
	q, _ := Parse("/rows/1/id")
	got, ok = q.With(doc, "x")
	if b, _ := json.Marshal(got); !ok || string(b) != `{"rows":[{"id":1},{"id":"x"}],"table":"t"}` {
		t.Errorf("deep replace: %s %v", b, ok)
	}
	r, _ := Parse("/rows/2")
	if _, ok := r.With(doc, 1); ok {
		t.Error("replaced past the end")
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "/", "/a~0b~1c", "/~", "a", "//", "/0/-"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := Parse(s)
		if err != nil {
			return
		}
		q, err := Parse(p.String())
		if err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("%q: round trip %q gives %q, %v", s, p.String(), q, err)
		}
	})
}
