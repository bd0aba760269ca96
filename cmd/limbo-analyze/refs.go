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
