package prereg

import (
	"strings"
	"testing"
)

// hostileBase is a valid file that the cases below extend or edit.
const hostileBase = `prereg: 1
title: "t"
alpha: 0.05
DERIVE
hypotheses:
  - id: ID
    statement: STATEMENT
    population: 'condition == "guard"'
    outcome: duplicated
    estimand: {kind: rate, cluster: template}
    rule: {direction: below, bound: 5, use: interval}
`

func hostile(derive, id, statement string) []byte {
	r := strings.NewReplacer("DERIVE", derive, "ID", id, "STATEMENT", statement)
	return []byte(r.Replace(hostileBase))
}

// Issue 28, item 7: what prereg check must refuse, each with its line.
func TestCheckRefusesHostile(t *testing.T) {
	for _, c := range []struct {
		name string
		data []byte
		want string
	}{
		{"two-step derive cycle", hostile("derive:\n  - {name: a, where: 'b'}\n  - {name: b, where: 'a'}", "H1", `"s"`), "derive a: refers to b, derived later (line 6)"},
		{"three-step derive cycle", hostile("derive:\n  - {name: a, where: 'c'}\n  - {name: b, where: 'a'}\n  - {name: c, where: 'b'}", "H1", `"s"`), "derive a: refers to c, derived later"},
		{"reserved name true", hostile("derive:\n  - {name: true, where: 'fault_fired'}", "H1", `"s"`), `derive: name "true" is a word of where expressions`},
		{"reserved name in", hostile("derive:\n  - {name: in, where: 'fault_fired'}", "H1", `"s"`), `derive: name "in" is a word of where expressions`},
		{"ESC in an id", hostile("", `"H\x1b[31m1"`, `"s"`), `id: control character "\x1b" at byte 1`},
		{"newline in an id", hostile("", `"H1\nH2"`, `"s"`), `an id is one line`},
		{"ESC in a statement", hostile("", "H1", `"red \x1b[31m"`), `statement: control character "\x1b"`},
		{"NUL in a statement", hostile("", "H1", `"a\0b"`), `statement: control character "\x00"`},
	} {
		_, err := Parse("h.yaml", c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	// An earlier derived column may be used; a multi-line statement is
	// allowed.
	if _, err := Parse("h.yaml", hostile("derive:\n  - {name: a, where: 'fault_fired'}\n  - {name: b, where: 'a'}", "H1", "|\n      two\n      lines")); err != nil {
		t.Errorf("valid file: %v", err)
	}
}

// Issue 37, case 6: a derive expression of a million nested parentheses
// (a 2 MB file) killed prereg check with a stack overflow; it is a syntax
// error naming the derived column.
func TestCheckDeepDerive(t *testing.T) {
	deep := strings.Repeat("(", 1_000_000) + "fault_fired" + strings.Repeat(")", 1_000_000)
	_, err := Parse("h.yaml", hostile("derive:\n  - {name: a, where: '"+deep+"'}", "H1", `"s"`))
	if err == nil || !strings.Contains(err.Error(), "nested more than 100 deep") || !strings.Contains(err.Error(), "derive") {
		t.Fatalf("%.300v; want the nesting refused", err)
	}
	if len(err.Error()) > 2000 {
		t.Errorf("the message repeats the expression (%d bytes)", len(err.Error()))
	}
}
