package prereg

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis"
)

// TestDocsExamplesParse parses every YAML block of docs/prereg.md, so the
// manual cannot drift from the format.
func TestDocsExamplesParse(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "prereg.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := strings.Split(string(doc), "```yaml\n")[1:]
	if len(blocks) < 2 {
		t.Fatalf("%d YAML blocks in docs/prereg.md", len(blocks))
	}
	shown := map[string]bool{"study.yaml": false, "calls.yaml": false}
	files := map[string]string{}
	for name := range shown {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	for i, b := range blocks {
		b, _, _ = strings.Cut(b, "```")
		if _, err := Parse("docs/prereg.md block "+string(rune('1'+i)), []byte(b)); err != nil {
			t.Errorf("%v", err)
		}
		for name, f := range files {
			shown[name] = shown[name] || b == f
		}
	}
	for name, ok := range shown {
		if !ok {
			t.Errorf("docs/prereg.md does not show testdata/%s as it is", name)
		}
	}
}

// TestSchemaKeys checks that docs/prereg.schema.json lists exactly the
// keys the parser accepts for estimands and rules.
func TestSchemaKeys(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "prereg.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs map[string]struct {
			Properties map[string]json.RawMessage `json:"properties"`
		} `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	want := []string{"kind"}
	for _, keys := range kindKeys {
		for _, k := range keys {
			if !slices.Contains(want, k) {
				want = append(want, k)
			}
		}
	}
	slices.Sort(want)
	var got []string
	for k := range s.Defs["estimand"].Properties {
		got = append(got, k)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("schema estimand keys %v, parser %v", got, want)
	}
	// The schema's enumerations are the types' values.
	for _, c := range []struct {
		def, key string
		want     []string
	}{
		{"estimand", "kind", strs(Kinds)}, {"estimand", "test", strs(McNemarTests)}, {"estimand", "model", strs(Models)},
		{"estimand", "scale", strs(Scales)}, {"estimand", "r2", strs(R2s)}, {"estimand", "method", strs(TOSTMethods)},
		{"rule", "direction", strs(Directions)}, {"rule", "use", strs(Uses)},
		{"hypothesis", "analysis", strs(Analyses)}, {"hypothesis", "combine", strs(Combines)},
		{"part", "if_not_computable", strs(IfNotComputables)},
		{"estimand", "random_effects", strs(analysis.RandomEffectsChoices)},
	} {
		var e struct{ Enum []string }
		if err := json.Unmarshal(s.Defs[c.def].Properties[c.key], &e); err != nil {
			t.Fatalf("%s.%s: %v", c.def, c.key, err)
		}
		if !slices.Equal(e.Enum, c.want) {
			t.Errorf("schema %s.%s: %v, the type's values %v", c.def, c.key, e.Enum, c.want)
		}
	}
	var rule []string
	for k := range s.Defs["rule"].Properties {
		rule = append(rule, k)
	}
	slices.Sort(rule)
	if w := []string{"alpha", "bound", "compare_to", "direction", "margin", "sides", "use"}; !slices.Equal(rule, w) {
		t.Errorf("schema rule keys %v, want %v", rule, w)
	}
}

func strs[T ~string](values []T) []string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = string(v)
	}
	return s
}
