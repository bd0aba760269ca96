package sandbox

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"
)

// checkDecode compares decodeArgs with json.Unmarshal (the reference, exact):
// same value, and an error exactly when json.Unmarshal fails.
func checkDecode(t *testing.T, s string) {
	t.Helper()
	var want map[string]any
	wantErr := json.Unmarshal([]byte(s), &want)
	got, err := decodeArgs(s)
	if (err != nil) != (wantErr != nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Errorf("decodeArgs(%q): error %v, json.Unmarshal %v", s, err, wantErr)
		return
	}
	if wantErr == nil && !reflect.DeepEqual(got, want) {
		t.Errorf("decodeArgs(%q) = %#v, json.Unmarshal %#v", s, got, want)
	}
	if m, ok := fastObject(s); ok && (wantErr != nil || !reflect.DeepEqual(m, want)) {
		t.Errorf("fastObject(%q) accepted %#v; json.Unmarshal gives %#v, %v", s, m, want, wantErr)
	}
}

var decodeSeeds = []string{
	`{}`, ` { } `, `{"a":1}`, `{"a":-0,"b":0.5,"c":1e3,"d":-1.25E-2,"e":1e400}`, `{"a":01}`, `{"a":1.}`, `{"a":.5}`,
	`{"a":+1}`, `{"a":0x10}`, `{"a":"x\"y"}`, `{"a":"é"}`, `{"a":"\u00e9"}`, `{"a":"tab\there"}`, `{"a":[]}`,
	`{"a":[1,"x",true,false,null,{"b":[[]]}]}`, `{"a":1,"a":2}`, `{"a":1,}`, `{"a" 1}`, `{"a":1} x`, `{"a":tru}`,
	`{"a":nul}`, `[1]`, `"x"`, `null`, `1`, `{`, `{"a":[1,]}`, `{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":{"k":{"l":{"m":{"n":{"o":{"p":{"q":{"r":1}}}}}}}}}}}}}}}}}}`,
	`{"service":"api","env":"prod","ref":"v1.4.2"}`, "{\"a\":1}\n", `{"a":-}`, `{"a":1e}`, `{"a":1e+}`, `{1:2}`,
}

func TestDecodeArgsMatchesJSON(t *testing.T) {
	for _, s := range decodeSeeds {
		checkDecode(t, s)
	}
	// Canonical arguments of random values, as record writes them.
	rng := rand.New(rand.NewPCG(3, 4))
	var gen func(depth int) any
	gen = func(depth int) any {
		switch k := rng.IntN(8); {
		case k == 0 && depth < 3:
			m := map[string]any{}
			for range rng.IntN(4) {
				m[string(rune('a'+rng.IntN(5)))] = gen(depth + 1)
			}
			return m
		case k == 1 && depth < 3:
			a := []any{}
			for range rng.IntN(3) {
				a = append(a, gen(depth+1))
			}
			return a
		case k == 2:
			return []string{"plain", "Quote\"d", "new\nline", "ünï", "", "a b"}[rng.IntN(6)]
		case k == 3:
			return rng.NormFloat64() * 1e6
		case k == 4:
			return float64(rng.IntN(2000) - 1000)
		case k == 5:
			return rng.IntN(2) == 0
		case k == 6:
			return nil
		}
		return "x"
	}
	for range 3000 {
		m := map[string]any{"k": gen(0), "l": gen(0)}
		checkDecode(t, string(appendCanon(nil, m, "")))
	}
}

func FuzzDecodeArgs(f *testing.F) {
	for _, s := range decodeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkDecode(t, s) })
}
