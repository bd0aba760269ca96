package fieldtext

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestRename(t *testing.T) {
	names := map[string]string{"PairBy": "--pair-by", "Arm": "--arm", "Pct": "100%"}
	for _, tc := range []struct {
		name       string
		err        error
		plain, got string
	}{
		{"one field", New("PairBy", "{PairBy} is required"), "PairBy is required", "--pair-by is required"},
		{"two fields and args", New("PairBy", "{PairBy} must not contain the {Arm} column %s", "{Arm}"),
			"PairBy must not contain the Arm column {Arm}", "--pair-by must not contain the --arm column {Arm}"},
		{"unmapped field keeps its name", New("Level", "{Level} %v: want (0, 1)", 2.0), "Level 2: want (0, 1)", "Level 2: want (0, 1)"},
		{"a name with %", New("Pct", "{Pct} %d", 3), "Pct 3", "100% 3"},
		{"wrapped", fmt.Errorf("paired: %w", New("Arm", "{Arm} x")), "paired: Arm x", "paired: --arm x"},
		{"no field", errors.New("--arm x"), "--arm x", "--arm x"},
	} {
		if tc.err.Error() != tc.plain {
			t.Errorf("%s: Error() = %q, want %q", tc.name, tc.err.Error(), tc.plain)
		}
		r := Rename(tc.err, names)
		if r.Error() != tc.got {
			t.Errorf("%s: renamed %q, want %q", tc.name, r.Error(), tc.got)
		}
		if !errors.Is(r, tc.err) {
			t.Errorf("%s: the renamed error does not unwrap to the original", tc.name)
		}
	}
	// %w keeps the wrapped error.
	e := New("Where", "{Where}: %w", io.EOF)
	if !errors.Is(e, io.EOF) || !errors.Is(Rename(e, names), io.EOF) {
		t.Error("a %w argument is not unwrapped")
	}
}
