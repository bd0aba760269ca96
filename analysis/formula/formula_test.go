package formula

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

func m(col string) Term  { return Main(col, false) }
func cm(col string) Term { return Main(col, true) }
func ix(cols ...string) Term {
	t := Term{}
	for _, c := range cols {
		t.Factors = append(t.Factors, Factor{Column: c})
	}
	return t
}
func ri(g ...string) RandomTerm { return RandomTerm{Intercept: true, Group: g} }

func TestParse(t *testing.T) {
	col := func(c string) *Expr { return &Expr{Op: "col", Column: c} }
	tests := []struct {
		in   string
		want Formula
	}{
		{"eos ~ contract", Formula{Response: "eos", Intercept: true, Terms: []Term{m("contract")}}},
		{"y~a+b+C(x)", Formula{Response: "y", Intercept: true, Terms: []Term{m("a"), m("b"), cm("x")}}},
		{"y ~ a + (1|model) + (1 | template)", Formula{Response: "y", Intercept: true, Terms: []Term{m("a")}, Random: []RandomTerm{ri("model"), ri("template")}}},
		{"y ~ 1", Formula{Response: "y", Intercept: true}},
		{"y ~ 0 + a", Formula{Response: "y", Intercept: false, Terms: []Term{m("a")}}},
		{"y ~ a - 1", Formula{Response: "y", Intercept: false, Terms: []Term{m("a")}}},
		{"y ~ -1 + a", Formula{Response: "y", Intercept: false, Terms: []Term{m("a")}}},
		{"y ~ `my col` + C(`odd-name`)", Formula{Response: "y", Intercept: true, Terms: []Term{m("my col"), cm("odd-name")}}},
		{"task_success ~ fault_mode + delay_s", Formula{Response: "task_success", Intercept: true, Terms: []Term{m("fault_mode"), m("delay_s")}}},
		{"y ~ C", Formula{Response: "y", Intercept: true, Terms: []Term{m("C")}}},
		{"y ~ (1|g)", Formula{Response: "y", Intercept: true, Random: []RandomTerm{ri("g")}}},
		// Interactions: R's terms() order (by order, then appearance).
		{"resp ~ age*smoke", Formula{Response: "resp", Intercept: true, Terms: []Term{m("age"), m("smoke"), ix("age", "smoke")}}},
		{"resp ~ age + smoke + age:smoke", Formula{Response: "resp", Intercept: true, Terms: []Term{m("age"), m("smoke"), ix("age", "smoke")}}},
		{"y ~ a:b + a", Formula{Response: "y", Intercept: true, Terms: []Term{m("a"), ix("a", "b")}}},
		{"y ~ b:a", Formula{Response: "y", Intercept: true, Terms: []Term{ix("b", "a")}}},
		{"y ~ (a + b + c)^2", Formula{Response: "y", Intercept: true, Terms: []Term{m("a"), m("b"), m("c"), ix("a", "b"), ix("a", "c"), ix("b", "c")}}},
		{"y ~ a*b*c - a:b:c", Formula{Response: "y", Intercept: true, Terms: []Term{m("a"), m("b"), m("c"), ix("a", "b"), ix("a", "c"), ix("b", "c")}}},
		{"y ~ a*b - a", Formula{Response: "y", Intercept: true, Terms: []Term{m("b"), ix("a", "b")}}},
		{"y ~ a/b", Formula{Response: "y", Intercept: true, Terms: []Term{m("a"), ix("a", "b")}}},
		{"y ~ a + a", Formula{Response: "y", Intercept: true, Terms: []Term{m("a")}}},
		{"y ~ a:C(b)", Formula{Response: "y", Intercept: true, Terms: []Term{{Factors: []Factor{{Column: "a"}, {Column: "b", Categorical: true}}}}}},
		{"y ~ a + offset(log(t))", Formula{Response: "y", Intercept: true, Terms: []Term{m("a")}, Offsets: []*Expr{{Op: "log", Args: []*Expr{col("t")}}}}},
		{"y ~ offset(t)", Formula{Response: "y", Intercept: true, Offsets: []*Expr{col("t")}}},
		{"cbind(k, n - k) ~ a", Formula{Cbind: &Cbind{Successes: col("k"), Failures: &Expr{Op: "-", Args: []*Expr{col("n"), col("k")}}}, Intercept: true, Terms: []Term{m("a")}}},
		{"cbind(k, f) ~ 1", Formula{Cbind: &Cbind{Successes: col("k"), Failures: col("f")}, Intercept: true}},
		// Random terms.
		{"y ~ x + (x | g)", Formula{Response: "y", Intercept: true, Terms: []Term{m("x")}, Random: []RandomTerm{{Intercept: true, Slopes: []Term{m("x")}, Group: []string{"g"}}}}},
		{"y ~ (1 + x | g)", Formula{Response: "y", Intercept: true, Random: []RandomTerm{{Intercept: true, Slopes: []Term{m("x")}, Group: []string{"g"}}}}},
		{"y ~ (x || g)", Formula{Response: "y", Intercept: true, Random: []RandomTerm{{Intercept: true, Slopes: []Term{m("x")}, Group: []string{"g"}, Uncorrelated: true}}}},
		{"y ~ (0 + x | g)", Formula{Response: "y", Intercept: true, Random: []RandomTerm{{Slopes: []Term{m("x")}, Group: []string{"g"}}}}},
		{"y ~ (x - 1 | g)", Formula{Response: "y", Intercept: true, Random: []RandomTerm{{Slopes: []Term{m("x")}, Group: []string{"g"}}}}},
		{"y ~ (1 | a/b)", Formula{Response: "y", Intercept: true, Random: []RandomTerm{ri("a"), ri("a", "b")}}},
		{"y ~ (1 | a:b)", Formula{Response: "y", Intercept: true, Random: []RandomTerm{ri("a", "b")}}},
		{"y ~ (1|id) + (1|item)", Formula{Response: "y", Intercept: true, Random: []RandomTerm{ri("id"), ri("item")}}},
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
		if err != nil || !sameModel(again, got) {
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
		{"y ~ a:", "expected a term"},
		{"y ~ a^0", "whole number"},
		{"y ~ a^b", "whole number"},
		{"y ~ (1|g) + (1|g)", "listed twice"},
		{"y ~ (1|g):a", "expected '+'"},
		{"y ~ a:(1|g)", "random term must be added on its own"},
		{"y ~ (0|g)", "no effect"},
		{"y ~ (g|g)", "also the grouping factor"},
		{"y ~ (1|a/a)", "repeats a column"},
		{"y ~ (1|)", "grouping factor"},
		{"y ~ y", "also appears"},
		{"y ~ a:y", "also appears"},
		{"cbind(k, n - k) ~ n", "also appears"},
		{"y ~ a + offset(log(y))", "also appears in offset(log(y))"},
		{"y ~ a + (1 | y)", "also appears in the random term (1|y)"},
		{"cbind(k) ~ a", "expected \",\""},
		{"cbind(1, 2) ~ a", "reads no column"},
		{"cbind(k, foo(n)) ~ a", "unknown function foo"},
		{"y ~ log(a)", "unknown function log"},
		{"y ~ a:offset(t)", "offset() must be a term"},
		{"y ~ a - offset(t)", "offset() must be a term"},
		{"y ~ C(a", "expected \")\""},
		{"y ~ `a", "unterminated"},
		{"y ~ a = b", "use =="},
		{"y ~ 2", "expected a term"},
		{"y ~ a)", "unbalanced"},
		{"y ~ a $", "unexpected character"},
		{"y ~ (0 + a)", "0 or -1 inside parentheses"},
		{"y ~ (a+b+c+d+e+f+g+h+i+j+k+l+m+n+o+p)^16", "more than 256 terms"},
		{"y ~ (a+b+c+d+e+f+g+h)*(i+j+k+l+m+n+o+p)*(q+r+s+t+u)", "more than 256 terms"},
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

func TestExprEval(t *testing.T) {
	f, err := Parse("cbind(k, n - k*2/4 + -1) ~ offset(log(exp(t) * 2)) + offset(sqrt(u))")
	if err != nil {
		t.Fatal(err)
	}
	vals := map[string]float64{"k": 2, "n": 10, "t": 1, "u": 9}
	get := func(c string) float64 { return vals[c] }
	if got := f.Cbind.Failures.Eval(get); got != 8 {
		t.Errorf("failures = %v, want 8", got)
	}
	if got := f.Offsets[0].Eval(get); math.Abs(got-(1+math.Log(2))) > 1e-15 {
		t.Errorf("offset = %v", got)
	}
	if got, want := f.Columns(), []string{"k", "n", "t", "u"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Columns() = %v, want %v", got, want)
	}
}

// sameModel reports whether a and b are the same model: equal but for the
// order of the variables within an interaction (see Formula.String).
func sameModel(a, b *Formula) bool {
	norm := func(f *Formula) *Formula {
		g := *f
		g.Terms = nil
		for _, t := range f.Terms {
			u := Term{Factors: slices.Clone(t.Factors)}
			slices.SortFunc(u.Factors, func(x, y Factor) int { return strings.Compare(x.String(), y.String()) })
			g.Terms = append(g.Terms, u)
		}
		return &g
	}
	return reflect.DeepEqual(norm(a), norm(b))
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

// FuzzParse parses any text as a formula: a formula, or a syntax error at
// an offset inside the input, in linear time (checkParse), never a panic;
// a formula prints as text that parses to the same model.
//
//	go test ./analysis/formula/ -run '^$' -fuzz 'FuzzParse$' -fuzztime 5m
func FuzzParse(f *testing.F) {
	for _, s := range []string{"y ~ a + b", "y ~ C(x) + (1|g) - 1", "y ~ `a b`", "y ~ 0", "y~a:b", "\"", "y ~ (1|",
		"resp ~ age*smoke", "y ~ (a + b + c)^2 - a:b", "cbind(k, n - k) ~ x + offset(log(t))", "y ~ x + (x || g) + (1 | a/b)",
		"y ~ (0 + x | g) + a/b", "cbind(-k, (n - k) / 2) ~ 0 + a:b", "y ~ offset(-(-(t + 2) * 3) / exp(u))",
		"y ~ " + strings.Repeat("(", 120) + "a" + strings.Repeat(")", 120), "y ~ a:b:c:d:e:f:g:h:i:j:k:l:m:n:o:p:q",
		"y ~ a " + strings.Repeat("- b ", 50), "y ~ (1 | g1) + (1 | g2) + (a + (b + (c)))"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		start := time.Now()
		got, err := Parse(s)
		checkParse(t, s, err, time.Since(start))
		if err != nil {
			return
		}
		again, err := Parse(got.String())
		if err != nil {
			t.Fatalf("Parse(%q).String() = %q does not parse: %v", s, got.String(), err)
		}
		if !sameModel(again, got) {
			t.Fatalf("round trip of %q: %+v != %+v", s, again, got)
		}
		// The canonical rendering is a fixed point.
		if twice, err := Parse(again.String()); err != nil || twice.String() != again.String() {
			t.Fatalf("rendering of %q is not stable: %q, then %v", s, again.String(), twice)
		}
	})
}
