package formula

import (
	"slices"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
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

func TestAnd(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{
		{"", "", ""},
		{"x", "", "x"},
		{"", "y", "y"},
		{"a || b", "c", "(a || b) && (c)"},
	} {
		if got := And(c.a, c.b); got != c.want {
			t.Errorf("And(%q, %q) = %q, want %q", c.a, c.b, got, c.want)
		}
	}
}

func TestColumnLevels(t *testing.T) {
	rows := []frame.Row{
		&ledger.Episode{Condition: "guard", Harness: "codex", FaultFired: true},
		&ledger.Episode{Condition: "vanilla", Harness: "hermes", FaultFired: true},
		&ledger.Episode{Condition: "guard", Harness: "copilot", FaultFired: false},
		&ledger.Episode{Condition: "guard", Harness: "codex", FaultFired: true},
	}
	got, err := ColumnLevels(rows, `condition == "guard" && fault_fired`, "harness")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"codex"}; !slices.Equal(got, want) {
		t.Errorf("levels %q, want %q", got, want)
	}
	if got, _ := ColumnLevels(rows, "", "condition"); !slices.Equal(got, []string{"guard", "vanilla"}) {
		t.Errorf("all rows: levels %q", got)
	}
	if _, err := ColumnLevels(rows, "", "no_such_column"); err == nil {
		t.Error("an unknown column gave no error")
	}
}
