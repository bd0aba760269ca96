package guard_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/guard"
)

func TestEffectSelect(t *testing.T) {
	args := map[string]any{
		"customer": "c1", "amount_cents": 1000, "idempotency_key": "k1", "memo": "May",
		"items": []any{map[string]any{"sku": "a"}, map[string]any{"sku": "b"}},
		"a/b":   1, "m~n": 2, "": 3,
	}
	cases := []struct {
		name     string
		pointers []string
		want     string
	}{
		{"every argument but the key", nil, `{"":3,"a/b":1,"amount_cents":1000,"customer":"c1","items":[{"sku":"a"},{"sku":"b"}],"memo":"May","m~n":2}`},
		{"chosen arguments", []string{"/customer", "/amount_cents"}, `{"/amount_cents":1000,"/customer":"c1"}`},
		{"into arrays", []string{"/items/1/sku", "/items/0"}, `{"/items/0":{"sku":"a"},"/items/1/sku":"b"}`},
		{"escapes", []string{"/a~1b", "/m~0n", "/"}, `{"/":3,"/a~1b":1,"/m~0n":2}`},
		{"the whole document", []string{""}, `{"":{"":3,"a/b":1,"amount_cents":1000,"customer":"c1","idempotency_key":"k1","items":[{"sku":"a"},{"sku":"b"}],"memo":"May","m~n":2}}`},
		{"absent pointers are left out", []string{"/nope", "/items/2", "/items/01", "/items/-", "/customer/x", "/memo"}, `{"/memo":"May"}`},
	}
	for _, c := range cases {
		e, err := guard.NewEffect(c.pointers, "idempotency_key")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := e.Canonical(args)
		if err != nil || string(got) != c.want {
			t.Errorf("%s: %s, %v; want %s", c.name, got, err, c.want)
		}
	}
	for _, bad := range []string{"customer", "/a~2", "/a~"} {
		if _, err := guard.NewEffect([]string{bad}, ""); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("pointer %q: error %v, want one naming it", bad, err)
		}
	}
}

// Fingerprints are equal exactly when the tool and the effect arguments
// are equal as JSON.
func TestFingerprint(t *testing.T) {
	all, _ := guard.NewEffect(nil, "idempotency_key")
	target, _ := guard.NewEffect([]string{"/customer", "/amount_cents"}, "")
	fp := func(e guard.Effect, tool string, args any) string {
		t.Helper()
		f, err := e.Fingerprint(tool, args)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	base := map[string]any{"customer": "c1", "amount_cents": 1000, "memo": "May"}
	same := []struct {
		name string
		args any
	}{
		{"another key", map[string]any{"customer": "c1", "amount_cents": 1000, "memo": "May", "idempotency_key": "k9"}},
		{"a float amount", map[string]any{"memo": "May", "amount_cents": 1000.0, "customer": "c1"}},
		{"raw JSON in another order", json.RawMessage(`{"memo":"May","amount_cents":1e3,"customer":"c1"}`)},
	}
	for _, s := range same {
		if fp(all, "charge", s.args) != fp(all, "charge", base) {
			t.Errorf("%s: fingerprint differs", s.name)
		}
	}
	reworded := map[string]any{"customer": "c1", "amount_cents": 1000, "memo": "May invoice"}
	if fp(all, "charge", reworded) == fp(all, "charge", base) {
		t.Error("a reworded memo: same fingerprint over every argument")
	}
	if fp(target, "charge", reworded) != fp(target, "charge", base) {
		t.Error("a reworded memo: fingerprint over customer and amount differs")
	}
	if fp(all, "refund", base) == fp(all, "charge", base) {
		t.Error("another tool: same fingerprint")
	}
	raw, err := all.FingerprintJSON("charge", []byte(`{"customer":"c1","amount_cents":1000,"memo":"May"}`))
	if err != nil || raw != fp(all, "charge", base) {
		t.Errorf("FingerprintJSON = %s, %v", raw, err)
	}
	if _, err := all.FingerprintJSON("charge", []byte(`{"a":1,"a":2}`)); err == nil {
		t.Error("a repeated member: want an error")
	}
	if _, err := all.FingerprintJSON("charge", []byte(`[1]`)); err == nil {
		t.Error("an array of arguments: want an error")
	}
	if e, _ := all.FingerprintJSON("charge", nil); e != fp(all, "charge", map[string]any{}) {
		t.Error("no arguments differ from {}")
	}
}

// FuzzEffect: any pointers and any arguments either fail cleanly or give
// a fingerprint that does not depend on how the arguments were spelled.
func FuzzEffect(f *testing.F) {
	f.Add("/customer", "/amount", []byte(`{"customer":"c1","amount":10,"k":"x"}`))
	f.Add("/a~1b/0", "", []byte(`{"a/b":[1,2]}`))
	f.Add("/x~", "/~0", []byte(`{"~":{}}`))
	f.Add("/a", "", []byte("0E2000000000000000"))
	f.Fuzz(func(t *testing.T, p1, p2 string, args []byte) {
		var ptrs []string
		for _, p := range []string{p1, p2} {
			if p != "" {
				ptrs = append(ptrs, p)
			}
		}
		e, err := guard.NewEffect(ptrs, "k")
		if err != nil {
			return
		}
		a, err := e.FingerprintJSON("tool", args)
		if err != nil || len(args) == 0 {
			return
		}
		canon, err := guard.CanonicalJSON(args)
		if err != nil {
			return // a part the pointers do not select has no canonical form (an absurd exponent)
		}
		b, err := e.FingerprintJSON("tool", canon)
		if err != nil || a != b {
			t.Fatalf("arguments %q and their canonical form %q: %s, %s (%v)", args, canon, a, b, err)
		}
	})
}
