package formula

import (
	"slices"
	"testing"
)

// TestWhereLevels lists the string levels an expression compares columns
// with, through and/or/not and on either side; numbers, booleans,
// orderings and column-to-column comparisons name no level.
func TestWhereLevels(t *testing.T) {
	tests := []struct {
		src  string
		want []Level
	}{
		{"", nil},
		{`condition == "guard"`, []Level{{"condition", "guard"}}},
		{`"guard" != condition`, []Level{{"condition", "guard"}}},
		{`fault_fired && !(fault_mode in ("timeout_post", "redelivery")) || model == "m1"`,
			[]Level{{"fault_mode", "timeout_post"}, {"fault_mode", "redelivery"}, {"model", "m1"}}},
		{`weight > 1 && seed == 3 && reversible == true && model >= "a" && harness == condition`, nil},
		{"`my col` == \"x\"", []Level{{"my col", "x"}}},
	}
	for _, tt := range tests {
		w, err := ParseWhere(tt.src)
		if err != nil {
			t.Fatalf("%s: %v", tt.src, err)
		}
		if got := w.Levels(); !slices.Equal(got, tt.want) {
			t.Errorf("%s: levels %v, want %v", tt.src, got, tt.want)
		}
	}
}
