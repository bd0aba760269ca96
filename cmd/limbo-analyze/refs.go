package main

import (
	"strings"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
)

// parseRefs parses the repeated --ref flags, "column=level", into the map
// ModelSpec.Refs and ShapleySpec.Refs take. An item without "=" or a
// column, or a column named twice, is an error about the field Refs
// (which run renames to --ref).
func parseRefs(refs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, r := range refs {
		col, lvl, ok := strings.Cut(r, "=")
		if !ok || col == "" {
			return nil, fieldtext.New("Refs", "{Refs} %q: want column=level", r)
		}
		if _, dup := out[col]; dup {
			return nil, fieldtext.New("Refs", "{Refs} %s given twice", col)
		}
		out[col] = lvl
	}
	return out, nil
}

// setName sets a spec field of one of the engine's named-value types (a
// link, a test, an adjustment) to the flag's text, without the command
// naming the numerics' types: the engine checks the value and its error
// lists the accepted ones.
func setName[T ~string](field *T, name string) { *field = T(name) }
