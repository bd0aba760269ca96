package analysis

import (
	"strings"
)

// ParseRefs parses reference levels given as "column=level" (as the
// repeated --ref flags of model and shapley give them) into the map ModelSpec.Refs and
// ShapleySpec.Refs take. An item without "=" or a column, or a column
// named twice, is a *SpecError about the field Refs.
func ParseRefs(refs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, r := range refs {
		col, lvl, ok := strings.Cut(r, "=")
		if !ok || col == "" {
			return nil, fieldErr("Refs", "{Refs} %q: want column=level", r)
		}
		if _, dup := out[col]; dup {
			return nil, fieldErr("Refs", "{Refs} %s given twice", col)
		}
		out[col] = lvl
	}
	return out, nil
}
