// Package enum reads the toolkit's typed enumerations: string types with
// a fixed list of values, whose UnmarshalText accepts one of the values
// and otherwise fails with an error that names the field and the accepted
// values ("scale \"x\": want episodes, instances or seeds"). Each type's
// UnmarshalText is then one call to Unmarshal.
//
// The numerics (stats, mixed, shapley) import nothing of the project
// (docs/design.md, "Packages and layers") and keep their own copy of these
// few lines.
package enum

import (
	"fmt"
	"strings"
)

// Unmarshal sets *dst to the value of values that b spells. Otherwise it
// leaves *dst as it is and returns the error
// `<field> "<b>": want <values as OrList>`.
func Unmarshal[T ~string](field string, b []byte, values []T, dst *T) error {
	for _, v := range values {
		if string(b) == string(v) {
			*dst = v
			return nil
		}
	}
	return fmt.Errorf("%s %q: want %s", field, b, OrList(values))
}

// OrList joins values as "a, b or c" ("a" alone, "" for none).
func OrList[T ~string](values []T) string {
	s := make([]string, len(values))
	for i, v := range values {
		s[i] = string(v)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
