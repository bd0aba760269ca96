package formula

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// Issue 37, cases 6 and 7: the parsers refuse nesting beyond MaxDepth with
// a syntax error at its offset (a million nested parentheses overflowed
// the stack of prereg check, which parses its derive expressions here) and
// take time linear in their input (60,000 nested parentheses took 10–17 s
// in --formula). Every input below is hundreds of kilobytes; each parse
// answers in well under a second (5 s allowed on a loaded machine).
func TestParsersHostileInputs(t *testing.T) {
	deep := func(n int, inner string) string {
		return strings.Repeat("(", n) + inner + strings.Repeat(")", n)
	}
	nums := func(n int, sep string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = "x" + strings.Repeat("a", i%7) + string(rune('a'+i%26))
		}
		return strings.Join(parts, sep)
	}
	randoms := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "(1 | g%d) + ", i)
		}
		return b.String()
	}
	const big = 200_000
	cases := []struct {
		name, what, in string
		want           string // in the error; "" = parses
	}{
		{"formula: a million nested parentheses", "formula", "y ~ " + deep(1_000_000, "x"), "nested more than 100 deep"},
		{"formula: 60,000 nested parentheses", "formula", "y ~ " + deep(60_000, "x"), "nested more than 100 deep"},
		{"formula: nesting at the limit", "formula", "y ~ " + deep(MaxDepth-1, "x"), ""},
		{"formula: unbalanced deep", "formula", "y ~ " + strings.Repeat("(", 500_000) + "x", "nested more than 100 deep"},
		{"formula: random term lookahead", "formula", "y ~ " + randoms(2000) + strings.Repeat("(a + ", 90) + "b" + strings.Repeat(")", 90), ""},
		{"formula: a long colon chain", "formula", "y ~ " + nums(big/4, ":"), "interaction of more than 16 columns"},
		{"formula: a long minus chain", "formula", "y ~ a " + strings.Repeat("- b ", big), ""},
		{"formula: many distinct removed terms", "formula", "y ~ a - " + nums(big/4, " - "), ""},
		{"formula: offset chain", "formula", "y ~ a + offset(" + nums(big/4, " + ") + ")", "nested more than 100 deep"},
		{"formula: offset unary minus", "formula", "y ~ a + offset(" + strings.Repeat("-", big) + "t)", "nested more than 100 deep"},
		{"formula: cbind deep", "formula", "cbind(" + deep(big, "k") + ", n) ~ a", "nested more than 100 deep"},
		{"where: a million nested parentheses", "where", deep(1_000_000, "fault_fired"), "nested more than 100 deep"},
		{"where: a million nots", "where", strings.Repeat("!", 1_000_000) + "fault_fired", "nested more than 100 deep"},
		{"where: a long and chain", "where", strings.Repeat("fault_fired && ", big/8) + "eos", ""},
		{"where: a long or chain", "where", strings.Repeat(`model == "m" || `, big/8) + "eos", ""},
		{"where: a long in list", "where", "model in (" + strings.Repeat(`"m", `, big/4) + `"n")`, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			start := time.Now()
			var err error
			if c.what == "formula" {
				_, err = Parse(c.in)
			} else {
				_, err = ParseWhere(c.in)
			}
			if d := time.Since(start); d > 5*time.Second { // quadratic parsing took minutes
				t.Errorf("%d bytes parsed in %v", len(c.in), d)
			}
			if c.want == "" {
				if err != nil {
					t.Fatalf("%.200v", err)
				}
				return
			}
			var se *SyntaxError
			if !errors.As(err, &se) || !strings.Contains(se.Msg, c.want) {
				t.Fatalf("%.300v; want a syntax error %q", err, c.want)
			}
			if len(err.Error()) > 1000 {
				t.Errorf("the message repeats the whole input (%d bytes)", len(err.Error()))
			}
		})
	}
}

// A where chain of thousands of conditions evaluates as written (n-ary,
// no deep recursion per row).
func TestWhereLongChainEval(t *testing.T) {
	w, err := ParseWhere(strings.Repeat(`x == "a" || `, 5000) + `x == "b"`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		x    string
		want bool
	}{{"b", true}, {"a", true}, {"c", false}} {
		got, err := w.Keep(mapRow{"x": str(c.x)})
		if err != nil || got != c.want {
			t.Errorf("x = %q: %v, %v; want %v", c.x, got, err, c.want)
		}
	}
}
