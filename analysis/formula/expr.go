package formula

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Expr is an arithmetic expression over columns, as in cbind(k, n - k) and
// offset(log(exposure)): numbers, columns, + - * /, unary minus,
// parentheses and the functions log, exp and sqrt.
type Expr struct {
	Op     string  // "col", "num", "+", "-", "*", "/", "neg", or a function name
	Column string  // Op "col"
	Num    float64 // Op "num"
	Args   []*Expr // operands
}

// exprFuncs are the functions an expression may call.
var exprFuncs = map[string]func(float64) float64{"log": math.Log, "exp": math.Exp, "sqrt": math.Sqrt}

// Eval evaluates the expression with the columns' values from get.
func (e *Expr) Eval(get func(column string) float64) float64 {
	switch e.Op {
	case "col":
		return get(e.Column)
	case "num":
		return e.Num
	case "neg":
		return -e.Args[0].Eval(get)
	case "+":
		return e.Args[0].Eval(get) + e.Args[1].Eval(get)
	case "-":
		return e.Args[0].Eval(get) - e.Args[1].Eval(get)
	case "*":
		return e.Args[0].Eval(get) * e.Args[1].Eval(get)
	case "/":
		return e.Args[0].Eval(get) / e.Args[1].Eval(get)
	}
	return exprFuncs[e.Op](e.Args[0].Eval(get))
}

// Columns returns the columns the expression reads, each once, in order.
func (e *Expr) Columns() []string {
	var out []string
	var walk func(*Expr)
	walk = func(x *Expr) {
		if x.Op == "col" && !slices.Contains(out, x.Column) {
			out = append(out, x.Column)
		}
		for _, a := range x.Args {
			walk(a)
		}
	}
	walk(e)
	return out
}

// IsColumn reports whether the expression is a bare column.
func (e *Expr) IsColumn() bool { return e.Op == "col" }

// String renders the expression; parsing it back gives the same tree.
func (e *Expr) String() string {
	switch e.Op {
	case "col":
		if exprFuncs[e.Column] != nil || e.Column == "cbind" || e.Column == "offset" || e.Column == "C" {
			return "`" + e.Column + "`"
		}
		return quoteName(e.Column)
	case "num":
		return strconv.FormatFloat(e.Num, 'g', -1, 64)
	case "neg":
		return "-" + e.Args[0].operand(3)
	case "+", "-", "*", "/":
		prec := 1
		if e.Op == "*" || e.Op == "/" {
			prec = 2
		}
		// Left-associative: the right operand of the same precedence needs
		// parentheses.
		return e.Args[0].operand(prec) + " " + e.Op + " " + e.Args[1].operand(prec+1)
	}
	return e.Op + "(" + e.Args[0].String() + ")"
}

// operand renders e as an operand of an operator of precedence prec.
func (e *Expr) operand(prec int) string {
	p := 4
	switch e.Op {
	case "+", "-":
		p = 1
	case "*", "/":
		p = 2
	case "neg":
		p = 3
	}
	if p < prec {
		return "(" + e.String() + ")"
	}
	return e.String()
}

// expr parses a + b - c with the usual precedence.
func (p *fparser) expr() (*Expr, error) { return p.binary(p.exprTerm, "+", "-") }

func (p *fparser) exprTerm() (*Expr, error) { return p.binary(p.exprUnary, "*", "/") }

// binary parses operands of the next tighter level joined by any of ops,
// left-associative.
func (p *fparser) binary(operand func() (*Expr, error), ops ...string) (*Expr, error) {
	left, err := operand()
	if err != nil {
		return nil, err
	}
	// Each operator of a chain nests the tree one level deeper (the
	// expression is evaluated and printed by recursion).
	chain := 0
	defer func() { p.depth -= chain }()
	for p.isAnyOp(ops) {
		t := p.next()
		chain++
		if err := p.enter(t); err != nil {
			return nil, err
		}
		right, err := operand()
		if err != nil {
			return nil, err
		}
		left = &Expr{Op: t.text, Args: []*Expr{left, right}}
	}
	return left, nil
}

func (p *fparser) isAnyOp(ops []string) bool {
	for _, op := range ops {
		if p.isOp(op) {
			return true
		}
	}
	return false
}

func (p *fparser) exprUnary() (*Expr, error) {
	if p.isOp("-") {
		if err := p.enter(p.next()); err != nil {
			return nil, err
		}
		x, err := p.exprUnary()
		p.leave()
		if err != nil {
			return nil, err
		}
		return &Expr{Op: "neg", Args: []*Expr{x}}, nil
	}
	t := p.peek()
	switch {
	case t.kind == tokNumber:
		p.next()
		v, err := strconv.ParseFloat(t.text, 64)
		if err != nil || math.IsInf(v, 0) {
			return nil, p.errf(t, "bad number %s", t.text)
		}
		return &Expr{Op: "num", Num: v}, nil
	case t.kind == tokIdent && p.toks[p.i+1].kind == tokOp && p.toks[p.i+1].text == "(":
		if exprFuncs[t.text] == nil {
			names := []string{"exp", "log", "sqrt"}
			return nil, p.errf(t, "unknown function %s() (expressions may call %s)", t.text, strings.Join(names, ", "))
		}
		p.next()
		if err := p.enter(p.next()); err != nil {
			return nil, err
		}
		x, err := p.expr()
		p.leave()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return &Expr{Op: t.text, Args: []*Expr{x}}, nil
	case t.kind == tokIdent || t.kind == tokQuoted:
		p.next()
		return &Expr{Op: "col", Column: t.text}, nil
	case t.kind == tokOp && t.text == "(":
		if err := p.enter(p.next()); err != nil {
			return nil, err
		}
		x, err := p.expr()
		p.leave()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return x, nil
	}
	return nil, p.errf(t, "expected a column, number or function in the expression, found %v", t)
}
