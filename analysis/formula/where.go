package formula

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Row is one row of an episode table; *ledger.Episode implements it.
type Row interface {
	Get(name string) (ledger.Value, bool)
}

// Where is a compiled `--where` filter.
type Where struct {
	src  string
	root node
	cols []string
}

// node is an expression node; eval returns a value of the where language.
type node interface {
	eval(r Row) (val, error)
}

// val is a runtime value: a bool, a number, a string or null.
type val struct {
	kind ledger.Kind // KindBool, KindFloat (all numbers) or KindString
	b    bool
	f    float64
	s    string
	null bool
	// col names the column the value came from, for messages ("" for a literal).
	col string
}

func (v val) describe() string {
	if v.col != "" {
		return "column " + v.col
	}
	switch v.kind {
	case ledger.KindString:
		return strconv.Quote(v.s)
	case ledger.KindBool:
		return strconv.FormatBool(v.b)
	}
	return strconv.FormatFloat(v.f, 'g', -1, 64)
}

// ParseWhere compiles a where expression. An empty string is a filter that
// keeps every row.
func ParseWhere(s string) (*Where, error) {
	w := &Where{src: s}
	if strings.TrimSpace(s) == "" {
		return w, nil
	}
	toks, err := lex("where", s)
	if err != nil {
		return nil, err
	}
	p := &parser{what: "where", input: s, toks: toks}
	seen := map[string]bool{}
	root, err := parseOr(p, w, seen)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		return nil, p.errf(t, "unexpected %v after a complete expression", t)
	}
	w.root = root
	return w, nil
}

// String returns the source text.
func (w *Where) String() string { return w.src }

// Empty reports whether the filter keeps every row.
func (w *Where) Empty() bool { return w.root == nil }

// Columns lists the columns the expression reads, in order of appearance.
func (w *Where) Columns() []string { return append([]string(nil), w.cols...) }

// Keep evaluates the filter on r. The expression must yield a boolean; a
// null comparison is false.
func (w *Where) Keep(r Row) (bool, error) {
	if w.root == nil {
		return true, nil
	}
	v, err := w.root.eval(r)
	if err != nil {
		return false, fmt.Errorf("where %q: %w", w.src, err)
	}
	b, err := truth(v)
	if err != nil {
		return false, fmt.Errorf("where %q: %w", w.src, err)
	}
	return b, nil
}

// Check verifies the expression against a schema before any row is read:
// kind reports the kind of a known column (ok false for unknown names). It
// catches comparisons that can never be true, such as a string column
// against a number.
func (w *Where) Check(kind func(name string) (ledger.Kind, bool)) error {
	if w.root == nil {
		return nil
	}
	if err := check(w.root, kind); err != nil {
		return fmt.Errorf("where %q: %w", w.src, err)
	}
	return nil
}

// parseOr and parseAnd read a chain of conditions into one n-ary node,
// so that a long chain is a flat list, not a deep tree evaluated by
// recursion on every row.
func parseOr(p *parser, w *Where, seen map[string]bool) (node, error) {
	return parseChain(p, w, seen, false, "||", "or", parseAnd)
}

func parseAnd(p *parser, w *Where, seen map[string]bool) (node, error) {
	return parseChain(p, w, seen, true, "&&", "and", parseNot)
}

func parseChain(p *parser, w *Where, seen map[string]bool, and bool, op, word string, operand func(*parser, *Where, map[string]bool) (node, error)) (node, error) {
	x, err := operand(p, w, seen)
	if err != nil {
		return nil, err
	}
	var xs []node
	for p.isOp(op) || p.peek().kind == tokIdent && p.peek().text == word {
		p.next()
		if xs == nil {
			xs = []node{x}
		}
		x, err = operand(p, w, seen)
		if err != nil {
			return nil, err
		}
		xs = append(xs, x)
	}
	if xs == nil {
		return x, nil
	}
	return &logic{and: and, xs: xs}, nil
}

func parseNot(p *parser, w *Where, seen map[string]bool) (node, error) {
	if p.isOp("!") || p.peek().kind == tokIdent && p.peek().text == "not" {
		if err := p.enter(p.next()); err != nil {
			return nil, err
		}
		x, err := parseNot(p, w, seen)
		p.leave()
		if err != nil {
			return nil, err
		}
		return &not{x}, nil
	}
	return parseCmp(p, w, seen)
}

var cmpOps = map[string]bool{"==": true, "!=": true, "<": true, "<=": true, ">": true, ">=": true}

func parseCmp(p *parser, w *Where, seen map[string]bool) (node, error) {
	l, err := parsePrimary(p, w, seen)
	if err != nil {
		return nil, err
	}
	t := p.peek()
	switch {
	case t.kind == tokOp && cmpOps[t.text]:
		p.next()
		r, err := parsePrimary(p, w, seen)
		if err != nil {
			return nil, err
		}
		return &cmp{op: t.text, l: l, r: r}, nil
	case t.kind == tokIdent && t.text == "in":
		p.next()
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		var set []node
		for {
			x, err := parsePrimary(p, w, seen)
			if err != nil {
				return nil, err
			}
			if _, ok := x.(*lit); !ok {
				return nil, p.errf(p.toks[p.i-1], "the list after 'in' takes literals only")
			}
			set = append(set, x)
			if p.isOp(",") {
				p.next()
				continue
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			break
		}
		return &in{x: l, set: set}, nil
	}
	return l, nil
}

func parsePrimary(p *parser, w *Where, seen map[string]bool) (node, error) {
	t := p.next()
	switch t.kind {
	case tokString:
		return &lit{val{kind: ledger.KindString, s: t.text}}, nil
	case tokNumber:
		f, err := strconv.ParseFloat(t.text, 64)
		if err != nil {
			return nil, p.errf(t, "bad number %q", t.text)
		}
		return &lit{val{kind: ledger.KindFloat, f: f}}, nil
	case tokOp:
		switch t.text {
		case "(":
			if err := p.enter(t); err != nil {
				return nil, err
			}
			x, err := parseOr(p, w, seen)
			p.leave()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			return x, nil
		case "-":
			n := p.next()
			if n.kind != tokNumber {
				return nil, p.errf(n, "expected a number after '-', found %v", n)
			}
			f, err := strconv.ParseFloat(n.text, 64)
			if err != nil {
				return nil, p.errf(n, "bad number %q", n.text)
			}
			return &lit{val{kind: ledger.KindFloat, f: -f}}, nil
		}
	case tokIdent, tokQuoted:
		if t.kind == tokIdent {
			switch t.text {
			case "true", "false":
				return &lit{val{kind: ledger.KindBool, b: t.text == "true"}}, nil
			case "and", "or", "not", "in":
				return nil, p.errf(t, "unexpected keyword %q (backquote a column with this name)", t.text)
			}
		}
		if !seen[t.text] {
			seen[t.text] = true
			w.cols = append(w.cols, t.text)
		}
		return &colRef{name: t.text}, nil
	}
	if t.kind == tokEOF {
		return nil, p.errf(t, "expression ends too early")
	}
	return nil, p.errf(t, "expected a column, literal or '(', found %v", t)
}

type lit struct{ v val }

func (n *lit) eval(Row) (val, error) { return n.v, nil }

type colRef struct{ name string }

func (n *colRef) eval(r Row) (val, error) {
	v, ok := r.Get(n.name)
	if !ok {
		return val{}, fmt.Errorf("no column %q in this row", n.name)
	}
	out := val{col: n.name, null: v.Null}
	switch v.Kind {
	case ledger.KindBool:
		out.kind, out.b = ledger.KindBool, v.Bool
	case ledger.KindInt:
		out.kind, out.f = ledger.KindFloat, float64(v.Int)
	case ledger.KindFloat:
		out.kind, out.f = ledger.KindFloat, v.Num
	default:
		out.kind, out.s = ledger.KindString, v.Str
	}
	return out, nil
}

// logic is a chain of two or more conditions joined by && (and) or ||.
type logic struct {
	and bool
	xs  []node
}

func (n *logic) eval(r Row) (val, error) {
	var b bool
	for _, x := range n.xs {
		v, err := x.eval(r)
		if err != nil {
			return val{}, err
		}
		if b, err = truth(v); err != nil {
			return val{}, err
		}
		// Short-circuit, but still type-check each condition on the rows
		// that reach it.
		if n.and && !b || !n.and && b {
			break
		}
	}
	return val{kind: ledger.KindBool, b: b}, nil
}

type not struct{ x node }

func (n *not) eval(r Row) (val, error) {
	v, err := n.x.eval(r)
	if err != nil {
		return val{}, err
	}
	b, err := truth(v)
	if err != nil {
		return val{}, err
	}
	return val{kind: ledger.KindBool, b: !b}, nil
}

type cmp struct {
	op   string
	l, r node
}

func (n *cmp) eval(r Row) (val, error) {
	lv, err := n.l.eval(r)
	if err != nil {
		return val{}, err
	}
	rv, err := n.r.eval(r)
	if err != nil {
		return val{}, err
	}
	b, err := compare(n.op, lv, rv)
	return val{kind: ledger.KindBool, b: b}, err
}

type in struct {
	x   node
	set []node
}

func (n *in) eval(r Row) (val, error) {
	xv, err := n.x.eval(r)
	if err != nil {
		return val{}, err
	}
	str := xv.kind == ledger.KindString && !xv.null
	for _, s := range n.set {
		// A string against a string literal is plain equality (what
		// compare decides for it), without compare's general case: the
		// hypotheses test fault_mode in (...) on every episode.
		if l, ok := s.(*lit); ok && str && l.v.kind == ledger.KindString && !l.v.null {
			if xv.s == l.v.s {
				return val{kind: ledger.KindBool, b: true}, nil
			}
			continue
		}
		sv, _ := s.eval(r)
		eq, err := compare("==", xv, sv)
		if err != nil {
			return val{}, err
		}
		if eq {
			return val{kind: ledger.KindBool, b: true}, nil
		}
	}
	return val{kind: ledger.KindBool, b: false}, nil
}

// truth interprets v as a condition. Extra CSV columns are strings, so
// "true"/"false" (and 1/0) are accepted there.
func truth(v val) (bool, error) {
	if v.null {
		return false, nil
	}
	switch v.kind {
	case ledger.KindBool:
		return v.b, nil
	case ledger.KindString:
		switch strings.ToLower(v.s) {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return false, fmt.Errorf("%s is the string %q, not a condition; compare it, e.g. %s == \"...\"", v.describe(), v.s, nameOr(v, "x"))
	}
	return false, fmt.Errorf("%s is a number, not a condition; compare it, e.g. %s > 0", v.describe(), nameOr(v, "x"))
}

func nameOr(v val, def string) string {
	if v.col != "" {
		return quoteName(v.col)
	}
	return def
}

// compare applies op to two values. Mixed string/number comparisons parse
// the string (extra CSV columns hold numbers as text); a null operand makes
// every comparison false except !=.
func compare(op string, a, b val) (bool, error) {
	if a.null || b.null {
		return op == "!=", nil
	}
	var c int
	switch {
	case a.kind == ledger.KindString && b.kind == ledger.KindString:
		c = strings.Compare(a.s, b.s)
	case a.kind == ledger.KindBool && b.kind == ledger.KindBool:
		if op != "==" && op != "!=" {
			return false, fmt.Errorf("cannot order booleans (%s %s %s)", a.describe(), op, b.describe())
		}
		c = boolInt(a.b) - boolInt(b.b)
	case a.kind == ledger.KindString && b.kind == ledger.KindBool || a.kind == ledger.KindBool && b.kind == ledger.KindString:
		s, bv := a, b
		if a.kind == ledger.KindBool {
			s, bv = b, a
		}
		x, err := strconv.ParseBool(strings.ToLower(s.s))
		if err != nil {
			return false, fmt.Errorf("%s value %q is not a boolean (compared with %s)", s.describe(), s.s, bv.describe())
		}
		if op != "==" && op != "!=" {
			return false, fmt.Errorf("cannot order booleans (%s %s %s)", a.describe(), op, b.describe())
		}
		if x == bv.b {
			c = 0
		} else {
			c = 1
		}
	default:
		x, err := number(a, b)
		if err != nil {
			return false, err
		}
		y, err := number(b, a)
		if err != nil {
			return false, err
		}
		switch {
		case math.IsNaN(x) || math.IsNaN(y):
			return op == "!=", nil
		case x < y:
			c = -1
		case x > y:
			c = 1
		}
	}
	switch op {
	case "==":
		return c == 0, nil
	case "!=":
		return c != 0, nil
	case "<":
		return c < 0, nil
	case "<=":
		return c <= 0, nil
	case ">":
		return c > 0, nil
	}
	return c >= 0, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// number converts v to a float for a comparison with other.
func number(v, other val) (float64, error) {
	switch v.kind {
	case ledger.KindFloat:
		return v.f, nil
	case ledger.KindBool:
		return float64(boolInt(v.b)), nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v.s), 64)
	if err != nil {
		return 0, fmt.Errorf("%s value %q is not a number (compared with %s)", v.describe(), v.s, other.describe())
	}
	return f, nil
}

// staticKind is the kind a node yields, when known before reading rows.
func staticKind(n node, kind func(string) (ledger.Kind, bool)) (ledger.Kind, bool) {
	switch x := n.(type) {
	case *lit:
		return x.v.kind, true
	case *colRef:
		k, ok := kind(x.name)
		if !ok {
			return 0, false
		}
		if k == ledger.KindInt {
			k = ledger.KindFloat
		}
		return k, true
	}
	return ledger.KindBool, true
}

func check(n node, kind func(string) (ledger.Kind, bool)) error {
	switch x := n.(type) {
	case *logic:
		for _, c := range x.xs {
			if err := checkCond(c, kind); err != nil {
				return err
			}
		}
		return nil
	case *not:
		return checkCond(x.x, kind)
	case *cmp:
		if err := checkOperand(x.l, kind); err != nil {
			return err
		}
		if err := checkOperand(x.r, kind); err != nil {
			return err
		}
		return checkPair(x.l, x.r, x.op, kind)
	case *in:
		if err := checkOperand(x.x, kind); err != nil {
			return err
		}
		for _, s := range x.set {
			if err := checkPair(x.x, s, "==", kind); err != nil {
				return err
			}
		}
		return nil
	}
	return checkCond(n, kind)
}

func checkOperand(n node, kind func(string) (ledger.Kind, bool)) error {
	switch n.(type) {
	case *lit, *colRef:
		return nil
	}
	return check(n, kind)
}

// checkCond checks a node used as a condition.
func checkCond(n node, kind func(string) (ledger.Kind, bool)) error {
	switch x := n.(type) {
	case *lit:
		if x.v.kind != ledger.KindBool {
			return fmt.Errorf("%s is not a condition", x.v.describe())
		}
		return nil
	case *colRef:
		k, ok := kind(x.name)
		if ok && k != ledger.KindBool && k != ledger.KindString {
			return fmt.Errorf("column %s is a number, not a condition; compare it, e.g. %s > 0", x.name, quoteName(x.name))
		}
		return nil
	}
	return check(n, kind)
}

func checkPair(l, r node, op string, kind func(string) (ledger.Kind, bool)) error {
	lk, lok := staticKind(l, kind)
	rk, rok := staticKind(r, kind)
	if !lok || !rok {
		return nil
	}
	_, lcol := l.(*colRef)
	_, rcol := r.(*colRef)
	if !lcol && !rcol {
		return nil
	}
	if lk == rk {
		if lk == ledger.KindBool && op != "==" && op != "!=" {
			return fmt.Errorf("cannot order booleans with %s", op)
		}
		return nil
	}
	// A schema string column against a number or boolean literal never
	// matches; say so now rather than after reading the file.
	desc := func(n node) string {
		if c, ok := n.(*colRef); ok {
			k, _ := kind(c.name)
			return "column " + c.name + " (" + k.String() + ")"
		}
		return n.(*lit).v.describe()
	}
	if lk == ledger.KindString || rk == ledger.KindString {
		return fmt.Errorf("cannot compare %s with %s; quote strings (\"...\")", desc(l), desc(r))
	}
	return nil
}

// Level is a string literal that a where expression compares a column
// with (==, != or in): a level the column is expected to have.
type Level struct {
	Column, Value string
}

// Levels lists the column levels the expression names, in order of
// appearance, so that a caller can check them against the data (a
// mistyped level silently selects nothing).
func (w *Where) Levels() []Level {
	var out []Level
	var walk func(n node)
	add := func(c, l node) {
		col, ok1 := c.(*colRef)
		v, ok2 := l.(*lit)
		if ok1 && ok2 && v.v.kind == ledger.KindString {
			out = append(out, Level{col.name, v.v.s})
		}
	}
	walk = func(n node) {
		switch n := n.(type) {
		case *logic:
			for _, x := range n.xs {
				walk(x)
			}
		case *not:
			walk(n.x)
		case *cmp:
			if n.op == "==" || n.op == "!=" {
				add(n.l, n.r)
				add(n.r, n.l)
			}
		case *in:
			for _, s := range n.set {
				add(n.x, s)
			}
		}
	}
	walk(w.root)
	return out
}

// And is the conjunction of two where expressions ("" is true).
func And(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return "(" + a + ") && (" + b + ")"
}

// ColumnLevels lists, sorted, the non-null values of col among the rows
// that the where expression keeps; a column no row has is an error.
func ColumnLevels(rows []frame.Row, where, col string) ([]string, error) {
	w, err := ParseWhere(where)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, r := range rows {
		ok, err := w.Keep(r)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		v, has := r.Get(col)
		if !has {
			return nil, fmt.Errorf("unknown column %q", col)
		}
		if !v.Null {
			seen[v.String()] = true
		}
	}
	s := make([]string, 0, len(seen))
	for k := range seen {
		s = append(s, k)
	}
	slices.Sort(s)
	return s, nil
}
