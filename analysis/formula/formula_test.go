package formula

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want Formula
	}{
		{"eos ~ contract", Formula{Response: "eos", Intercept: true, Terms: []Term{{Column: "contract"}}}},
		{"y~a+b+C(x)", Formula{Response: "y", Intercept: true, Terms: []Term{{Column: "a"}, {Column: "b"}, {Column: "x", Categorical: true}}}},
		{"y ~ a + (1|model) + (1 | template)", Formula{Response: "y", Intercept: true, Terms: []Term{{Column: "a"}}, Random: []string{"model", "template"}}},
		{"y ~ 1", Formula{Response: "y", Intercept: true}},
		{"y ~ 0 + a", Formula{Response: "y", Intercept: false, Terms: []Term{{Column: "a"}}}},
		{"y ~ a - 1", Formula{Response: "y", Intercept: false, Terms: []Term{{Column: "a"}}}},
		{"y ~ -1 + a", Formula{Response: "y", Intercept: false, Terms: []Term{{Column: "a"}}}},
		{"y ~ `my col` + C(`odd-name`)", Formula{Response: "y", Intercept: true, Terms: []Term{{Column: "my col"}, {Column: "odd-name", Categorical: true}}}},
		{"task_success ~ fault_mode + delay_s", Formula{Response: "task_success", Intercept: true, Terms: []Term{{Column: "fault_mode"}, {Column: "delay_s"}}}},
		{"y ~ C", Formula{Response: "y", Intercept: true, Terms: []Term{{Column: "C"}}}},
		{"y ~ (1|g)", Formula{Response: "y", Intercept: true, Random: []string{"g"}}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, *got, tt.want)
		}
		// The canonical rendering parses back to the same formula.
		again, err := Parse(got.String())
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("Parse(%q).String() = %q does not round-trip: %+v, %v", tt.in, got.String(), again, err)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in, msg string
	}{
		{"", "empty formula"},
		{"~ a", "missing outcome"},
		{"y", "expected \"~\""},
		{"y ~", "expected a term"},
		{"y ~ a +", "expected a term"},
		{"y ~ a b", "expected '+'"},
		{"y ~ a:b", "interactions"},
		{"y ~ a*b", "interactions"},
		{"y ~ a + a", "listed twice"},
		{"y ~ C(a) + a", "listed twice"},
		{"y ~ a - b", "only the intercept"},
		{"y ~ (x|g)", "only random intercepts"},
		{"y ~ (1|g) + (1|g)", "listed twice"},
		{"y ~ y", "also appears"},
		{"y ~ C(a", "expected \")\""},
		{"y ~ `a", "unterminated"},
		{"y ~ a = b", "use =="},
		{"y ~ 2", "expected a term"},
		{"y ~ a $", "unexpected character"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		if err == nil {
			t.Errorf("Parse(%q): no error, want %q", tt.in, tt.msg)
			continue
		}
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("Parse(%q): error %T is not a *SyntaxError", tt.in, err)
		}
		if !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Parse(%q) error = %q, want it to contain %q", tt.in, err, tt.msg)
		}
	}
}

func TestColumns(t *testing.T) {
	f, err := Parse("y ~ a + C(b) + (1|a) + (1|g)")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := f.Columns(), []string{"y", "a", "b", "g"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Columns() = %v, want %v", got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"y ~ a + b", "y ~ C(x) + (1|g) - 1", "y ~ `a b`", "y ~ 0", "y~a:b", "\"", "y ~ (1|"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := Parse(s)
		if err != nil {
			return
		}
		again, err := Parse(got.String())
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q does not parse: %v", s, got.String(), err)
		}
		if !reflect.DeepEqual(again, got) {
			t.Fatalf("round trip of %q: %+v != %+v", s, again, got)
		}
	})
}
