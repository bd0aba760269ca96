package formula

import (
	"strings"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/ledger"
)

// mapRow is a Row over a map.
type mapRow map[string]ledger.Value

func (m mapRow) Get(name string) (ledger.Value, bool) {
	v, ok := m[name]
	return v, ok
}

func str(s string) ledger.Value    { return ledger.Value{Kind: ledger.KindString, Str: s} }
func num(f float64) ledger.Value   { return ledger.Value{Kind: ledger.KindFloat, Num: f} }
func integer(i int64) ledger.Value { return ledger.Value{Kind: ledger.KindInt, Int: i} }
func boolean(b bool) ledger.Value  { return ledger.Value{Kind: ledger.KindBool, Bool: b} }

var testRow = mapRow{
	"condition":   str("vanilla"),
	"fault_fired": boolean(true),
	"reversible":  boolean(false),
	"delay_s":     num(90),
	"instance":    integer(3),
	"difficulty":  str("2.5"), // an extra CSV column holding a number
	"flag":        str("true"),
	"note":        {Kind: ledger.KindString, Null: true},
	"my col":      str("x"),
}

func TestWhere(t *testing.T) {
	tests := []struct {
		expr string
		want bool
	}{
		{"", true},
		{"fault_fired", true},
		{"!fault_fired", false},
		{"not reversible", true},
		{`fault_fired && condition == "vanilla"`, true},
		{`fault_fired && condition != "vanilla"`, false},
		{`reversible || condition == 'vanilla'`, true},
		{`reversible or fault_fired and condition == "aware"`, false},
		{`(reversible || fault_fired) && delay_s >= 90`, true},
		{"delay_s > 90", false},
		{"delay_s < 100.5", true},
		{"delay_s <= -1", false},
		{"instance == 3", true},
		{"instance != 3", false},
		{"difficulty > 2", true},
		{"difficulty == 2.5", true},
		{"flag", true},
		{"flag == true", true},
		{"fault_fired == 1", true},
		{"reversible == false", true},
		{`condition in ("aware", "vanilla")`, true},
		{`condition in ("aware")`, false},
		{"instance in (1, 2, 3)", true},
		// The string-literal shortcut of 'in' keeps compare's answers:
		// a null is in no set, and later non-string members still count.
		{`note in ("x", "")`, false},
		{`condition in ("aware", "vanilla", "wait-0")`, true},
		{`flag in ("false", true)`, true},
		{`difficulty in ("7", 2.5)`, true},
		{`note == "x"`, false},
		{`note != "x"`, true},
		{"note", false},
		{`condition < "w"`, true},
		{"`my col` == \"x\"", true},
		{"true", true},
		{"!(true && false)", true},
	}
	for _, tt := range tests {
		w, err := ParseWhere(tt.expr)
		if err != nil {
			t.Errorf("ParseWhere(%q): %v", tt.expr, err)
			continue
		}
		got, err := w.Keep(testRow)
		if err != nil {
			t.Errorf("Keep(%q): %v", tt.expr, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Keep(%q) = %v, want %v", tt.expr, got, tt.want)
		}
	}
}

func TestWhereErrors(t *testing.T) {
	tests := []struct {
		expr  string
		parse bool // fails at parse time (else at evaluation)
		msg   string
	}{
		{"condition = 'x'", true, "use =="},
		{"fault_fired & reversible", true, "use && or ||"},
		{"(fault_fired", true, "expected \")\""},
		{"fault_fired &&", true, "ends too early"},
		{"condition == 'x", true, "unterminated string"},
		{"fault_fired reversible", true, "after a complete expression"},
		{"condition in (model)", true, "literals only"},
		{"a == 'x\\q'", true, "unknown escape"},
		{"and", true, "unexpected keyword"},
		{"condition", false, "not a condition"},
		{"delay_s", false, "is a number, not a condition"},
		{"condition > 3", false, "is not a number"},
		{"fault_fired < true", false, "cannot order booleans"},
		{"missing == 1", false, "no column \"missing\""},
		{"condition == true", false, "not a boolean"},
	}
	for _, tt := range tests {
		w, err := ParseWhere(tt.expr)
		if tt.parse {
			if err == nil || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("ParseWhere(%q) error = %v, want %q", tt.expr, err, tt.msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParseWhere(%q): %v", tt.expr, err)
			continue
		}
		_, err = w.Keep(testRow)
		if err == nil || !strings.Contains(err.Error(), tt.msg) {
			t.Errorf("Keep(%q) error = %v, want %q", tt.expr, err, tt.msg)
		}
	}
}

func TestWhereCheck(t *testing.T) {
	kind := func(name string) (ledger.Kind, bool) {
		c, ok := ledger.LookupColumn(name)
		return c.Kind, ok
	}
	tests := []struct {
		expr string
		msg  string // "" = no error
	}{
		{`fault_fired && condition == "vanilla"`, ""},
		{"condition == 3", "cannot compare column condition (string) with 3"},
		{"delay_s", "is a number, not a condition"},
		{"instance > 2 && extra_col == 'x'", ""},
		{"fault_fired > true", "cannot order booleans"},
		{"condition in ('a', 1)", "cannot compare"},
	}
	for _, tt := range tests {
		w, err := ParseWhere(tt.expr)
		if err != nil {
			t.Fatalf("ParseWhere(%q): %v", tt.expr, err)
		}
		err = w.Check(kind)
		if tt.msg == "" && err != nil || tt.msg != "" && (err == nil || !strings.Contains(err.Error(), tt.msg)) {
			t.Errorf("Check(%q) = %v, want %q", tt.expr, err, tt.msg)
		}
	}
}

func TestWhereColumns(t *testing.T) {
	w, err := ParseWhere(`fault_fired && (condition == "a" || fault_fired) && delay_s > 1`)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(w.Columns(), ",")
	if want := "fault_fired,condition,delay_s"; got != want {
		t.Errorf("Columns() = %s, want %s", got, want)
	}
}

// FuzzWhere parses any text as a --where expression: a syntax error at an
// offset inside the input, in linear time (checkParse), or an expression
// that keeps its source and evaluates without panicking, whatever the row
// holds.
//
//	go test ./analysis/formula/ -run '^$' -fuzz FuzzWhere -fuzztime 5m
func FuzzWhere(f *testing.F) {
	for _, s := range []string{`fault_fired && condition == "vanilla"`, "delay_s > -1.5e3", "x in (1, 'a')", "!(a || b)", "`a b` != 'c'", "'", "((", "a <= ",
		"!!!!flag", "a && b && c || d and not e", `condition in ("vanilla", 'aware', 2)`, "a == b == c", "x in ()", "a & b", "a = 1",
		strings.Repeat("(", 120) + "flag" + strings.Repeat(")", 120), strings.Repeat("flag || ", 200) + "fault_fired"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		w, err := ParseWhere(s)
		checkParse(t, s, err, time.Since(start))
		if err != nil {
			return
		}
		if w.String() != s {
			t.Fatalf("String() = %q, want the source %q", w.String(), s)
		}
		// Evaluation never panics, whatever the row holds.
		_, _ = w.Keep(testRow)
		_ = w.Levels()
		_ = w.Check(func(string) (ledger.Kind, bool) { return ledger.KindString, true })
	})
}
