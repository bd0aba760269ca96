package analysis

import (
	"fmt"
	"strings"
)

// ParseRefs parses reference levels given as "column=level" (the --ref
// flags of model and shapley) into the map ModelSpec.Refs and
// ShapleySpec.Refs take. An item without "=" or a column, or a column
// named twice, is an error naming the flag.
func ParseRefs(refs []string) (map[string]string, error) {
	out := map[string]string{}
	for _, r := range refs {
		col, lvl, ok := strings.Cut(r, "=")
		if !ok || col == "" {
			return nil, fmt.Errorf("--ref %q: want column=level", r)
		}
		if _, dup := out[col]; dup {
			return nil, fmt.Errorf("--ref %s given twice", col)
		}
		out[col] = lvl
	}
	return out, nil
}
