package formula

import (
	"fmt"
	"slices"
	"strings"
)

// Formula is a parsed model formula such as
// `y ~ a*b + C(x) + offset(log(t)) + (1 + x | g)`.
type Formula struct {
	// Response is the outcome column; "" when the response is Cbind.
	Response string
	// Cbind is an aggregated binomial response cbind(successes, failures)
	// (nil otherwise); either side may be an expression such as n - k.
	Cbind *Cbind
	// Intercept is false after `0` or `- 1`.
	Intercept bool
	// Terms are the fixed-effect terms, ordered as R's terms() orders them:
	// by order (the number of variables), then by appearance.
	Terms []Term
	// Offsets are the offset(expr) terms, in the order written.
	Offsets []*Expr
	// Random are the random-effect terms, in the order written; a nested
	// (1 | a/b) is stored as (1 | a) and (1 | a:b).
	Random []RandomTerm
}

// Cbind is the response cbind(Successes, Failures).
type Cbind struct {
	Successes, Failures *Expr
}

// Factor is one variable of a term: a column, categorical when forced by
// C().
type Factor struct {
	Column      string
	Categorical bool // written C(column)
}

// String renders the variable as written: `x` or `C(x)`.
func (v Factor) String() string {
	n := quoteName(v.Column)
	if v.Categorical {
		return "C(" + n + ")"
	}
	return n
}

// Term is one fixed-effect term: a single variable (a main effect) or the
// interaction of several, `a:b`. Its variables are in order of first
// appearance in the formula, as R orders them.
type Term struct {
	Factors []Factor
}

// Main returns the term of the single variable v.
func Main(column string, categorical bool) Term {
	return Term{Factors: []Factor{{Column: column, Categorical: categorical}}}
}

// String renders the term: `x`, `C(x)` or `a:C(b)`.
func (t Term) String() string {
	s := make([]string, len(t.Factors))
	for i, v := range t.Factors {
		s[i] = v.String()
	}
	return strings.Join(s, ":")
}

// Order is the number of variables of the term (1 for a main effect).
func (t Term) Order() int { return len(t.Factors) }

// Columns returns the columns of the term's variables.
func (t Term) Columns() []string {
	out := make([]string, len(t.Factors))
	for i, v := range t.Factors {
		out[i] = v.Column
	}
	return out
}

// Has reports whether column c is one of the term's variables.
func (t Term) Has(c string) bool { return slices.Contains(t.Columns(), c) }

// RandomTerm is a random-effect term (lhs | group) or (lhs || group).
type RandomTerm struct {
	// Intercept is a random intercept: true unless the left side has 0 or
	// -1 (`(0 + x | g)`).
	Intercept bool
	// Slopes are the left side's terms other than the intercept.
	Slopes []Term
	// Group are the grouping columns; more than one is their interaction
	// (the levels are the combinations that occur), as (1 | a:b).
	Group []string
	// Uncorrelated is true for `||`: each of the term's effects has its
	// own variance and no correlation (lme4's double bar).
	Uncorrelated bool
}

// GroupName renders the grouping factor: `g` or `a:b`.
func (r RandomTerm) GroupName() string {
	s := make([]string, len(r.Group))
	for i, g := range r.Group {
		s[i] = quoteName(g)
	}
	return strings.Join(s, ":")
}

// IsIntercept reports whether the term is a plain random intercept (1 | g).
func (r RandomTerm) IsIntercept() bool { return r.Intercept && len(r.Slopes) == 0 }

// Effects names the term's effects, the intercept first: "(Intercept)",
// then each slope term.
func (r RandomTerm) Effects() []string {
	var out []string
	if r.Intercept {
		out = append(out, "(Intercept)")
	}
	for _, t := range r.Slopes {
		out = append(out, t.String())
	}
	return out
}

// String renders the term canonically: `(1|g)`, `(1 + x | g)`,
// `(0 + x || g)`.
func (r RandomTerm) String() string {
	if r.IsIntercept() && !r.Uncorrelated {
		return "(1|" + r.GroupName() + ")"
	}
	var lhs []string
	if r.Intercept {
		lhs = append(lhs, "1")
	} else {
		lhs = append(lhs, "0")
	}
	for _, t := range r.Slopes {
		lhs = append(lhs, t.String())
	}
	bar := " | "
	if r.Uncorrelated {
		bar = " || "
	}
	return "(" + strings.Join(lhs, " + ") + bar + r.GroupName() + ")"
}

// String renders the formula canonically: Parse(f.String()) is the same
// model as f, with the same terms in the same order. (The variables of an
// interaction are named in order of first appearance, as R names them, so
// after the removal of a main effect, `a*b - a` renders as `b + a:b`, which
// names the interaction b:a.)
func (f *Formula) String() string {
	var parts []string
	for _, t := range f.Terms {
		parts = append(parts, t.String())
	}
	for _, o := range f.Offsets {
		parts = append(parts, "offset("+o.String()+")")
	}
	for _, r := range f.Random {
		parts = append(parts, r.String())
	}
	if !f.Intercept {
		parts = append(parts, "0")
	}
	if len(parts) == 0 {
		parts = append(parts, "1")
	}
	return f.ResponseString() + " ~ " + strings.Join(parts, " + ")
}

// ResponseString renders the left side: the column or cbind(…, …).
func (f *Formula) ResponseString() string {
	if f.Cbind != nil {
		return "cbind(" + f.Cbind.Successes.String() + ", " + f.Cbind.Failures.String() + ")"
	}
	return quoteName(f.Response)
}

// ResponseColumns returns the columns the response reads, each once.
func (f *Formula) ResponseColumns() []string {
	if f.Cbind == nil {
		return []string{f.Response}
	}
	return uniq(slices.Concat(f.Cbind.Successes.Columns(), f.Cbind.Failures.Columns()))
}

// CovariateColumns returns the columns the right side reads (terms,
// offsets, random slopes and groups), each once, in order of appearance.
func (f *Formula) CovariateColumns() []string {
	var out []string
	for _, t := range f.Terms {
		out = append(out, t.Columns()...)
	}
	for _, o := range f.Offsets {
		out = append(out, o.Columns()...)
	}
	for _, r := range f.Random {
		for _, t := range r.Slopes {
			out = append(out, t.Columns()...)
		}
		out = append(out, r.Group...)
	}
	return uniq(out)
}

// Columns returns every column the formula reads (response, terms,
// offsets, groups), each once, in order of appearance.
func (f *Formula) Columns() []string {
	return uniq(slices.Concat(f.ResponseColumns(), f.CovariateColumns()))
}

// HasRandom reports whether the formula has random-effect terms.
func (f *Formula) HasRandom() bool { return len(f.Random) > 0 }

func uniq(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range s {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// quoteName backquotes a column name that is not a plain identifier.
func quoteName(s string) string {
	if isPlainIdent(s) {
		return s
	}
	return "`" + s + "`"
}

func isPlainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if i == 0 && !isIdentStart(r) || !isIdentPart(r) {
			return false
		}
	}
	return true
}

// Parse parses a formula: R's model formula language for fixed effects
// (`+`, `-`, `:`, `*`, `/`, `^`, `0`, `1`, C(x), offset(expr)), lme4's
// random terms `(1 | g)`, `(x | g)`, `(x || g)`, `(0 + x | g)`,
// `(1 | a/b)` and `(1 | a:b)`, and a response that is a column or
// cbind(successes, failures). Duplicated terms are merged, as R does.
func Parse(s string) (*Formula, error) {
	toks, err := lex("formula", s)
	if err != nil {
		return nil, err
	}
	p := &fparser{parser: parser{what: "formula", input: s, toks: toks}, randomOpen: randomOpens(toks)}
	if p.peek().kind == tokEOF {
		return nil, p.errf(p.peek(), "empty formula (want outcome ~ terms)")
	}
	f := &Formula{Intercept: true}
	if p.isOp("~") {
		return nil, p.errf(p.peek(), "missing outcome column before '~'")
	}
	if p.isCall("cbind") {
		at := p.peek()
		p.next()
		if err := p.enter(p.next()); err != nil {
			return nil, err
		}
		k, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
		m, err := p.expr()
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		p.leave()
		f.Cbind = &Cbind{Successes: k, Failures: m}
		if len(f.ResponseColumns()) == 0 {
			return nil, p.errf(at, "cbind() reads no column")
		}
	} else if f.Response, err = p.name("as the outcome"); err != nil {
		return nil, err
	}
	if err := p.expectOp("~"); err != nil {
		return nil, err
	}
	p.f = f
	list, err := p.sum(&f.Intercept, true)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tokEOF {
		if t.kind == tokOp && t.text == ")" {
			return nil, p.errf(t, "unbalanced ')'")
		}
		return nil, p.errf(t, "expected '+' between terms, found %v", t)
	}
	f.Terms = p.terms(list)
	resp := f.ResponseColumns()
	for _, o := range f.Offsets {
		for _, c := range o.Columns() {
			if slices.Contains(resp, c) {
				return nil, &SyntaxError{What: "formula", Input: s, Pos: 0, Msg: "the outcome " + c + " also appears in offset(" + o.String() + ")"}
			}
		}
	}
	for _, r := range f.Random {
		for _, c := range slices.Concat(r.Group, (&Formula{Terms: r.Slopes}).CovariateColumns()) {
			if slices.Contains(resp, c) {
				return nil, &SyntaxError{What: "formula", Input: s, Pos: 0, Msg: "the outcome " + c + " also appears in the random term " + r.String()}
			}
		}
	}
	for _, t := range f.Terms {
		for _, c := range t.Columns() {
			if slices.Contains(resp, c) {
				return nil, &SyntaxError{What: "formula", Input: s, Pos: 0, Msg: "the outcome " + c + " also appears as a term"}
			}
		}
	}
	return f, nil
}

// fparser parses the right side of a formula into sets of variables.
type fparser struct {
	parser
	f    *Formula
	vars []Factor // variables in order of first appearance
	ids  map[Factor]int
	// randomOpen marks the '(' tokens that open a random term: a '|' or
	// '||' directly inside before their ')' (one pass, randomOpens).
	randomOpen []bool
	randomSeen map[string]bool // group and effects of the random terms so far
}

// randomOpens marks, in one pass over toks, the '(' whose parentheses
// hold a '|' or '||' at their own depth and are closed: random terms.
func randomOpens(toks []token) []bool {
	marks := make([]bool, len(toks))
	var open []int
	for j, t := range toks {
		if t.kind != tokOp {
			continue
		}
		switch t.text {
		case "(":
			open = append(open, j)
		case ")":
			if n := len(open); n > 0 {
				open = open[:n-1]
			}
		case "|", "||":
			if n := len(open); n > 0 {
				marks[open[n-1]] = true
			}
		}
	}
	for _, j := range open {
		marks[j] = false // never closed
	}
	return marks
}

// MaxOrder bounds the columns of one interaction term, as '^' does.
const MaxOrder = 16

// order checks that no term of list interacts more than MaxOrder columns.
func (p *fparser) order(list termSet, at token) error {
	for _, t := range list {
		if len(t) > MaxOrder {
			return p.errf(at, "an interaction of more than %d columns", MaxOrder)
		}
	}
	return nil
}

// termSet is a list of terms, each a sorted set of variable indices.
type termSet [][]int

// MaxTerms bounds the terms a formula expands to ((a+…+p)^16 would have
// 65,535).
const MaxTerms = 256

func (p *fparser) bound(list termSet, at token) error {
	if len(list) > MaxTerms {
		return p.errf(at, "the formula expands to more than %d terms", MaxTerms)
	}
	return nil
}

func (p *fparser) varID(v Factor) int {
	if i, ok := p.ids[v]; ok {
		return i
	}
	if p.ids == nil {
		p.ids = map[Factor]int{}
	}
	p.ids[v] = len(p.vars)
	p.vars = append(p.vars, v)
	return len(p.vars) - 1
}

func (p *fparser) isCall(name string) bool {
	t := p.peek()
	n := p.toks[min(p.i+1, len(p.toks)-1)]
	return t.kind == tokIdent && t.text == name && n.kind == tokOp && n.text == "("
}

// terms orders a term set as R does: by order, then appearance.
func (p *fparser) terms(list termSet) []Term {
	slices.SortStableFunc(list, func(a, b []int) int { return len(a) - len(b) })
	var out []Term
	for _, t := range list {
		tt := Term{}
		for _, id := range t {
			tt.Factors = append(tt.Factors, p.vars[id])
		}
		out = append(out, tt)
	}
	return out
}

func addTerms(dst termSet, src termSet) termSet {
	for _, t := range src {
		if !slices.ContainsFunc(dst, func(u []int) bool { return slices.Equal(u, t) }) {
			dst = append(dst, t)
		}
	}
	return dst
}

func interact(a, b termSet) termSet {
	var out termSet
	for _, x := range a {
		for _, y := range b {
			u := slices.Concat(x, y)
			slices.Sort(u)
			out = addTerms(out, termSet{slices.Compact(u)})
		}
	}
	return out
}

// sum parses terms separated by + and -. The intercept flag it updates is
// the formula's or a random term's; top says random terms may appear.
func (p *fparser) sum(intercept *bool, top bool) (termSet, error) {
	var list termSet
	first := true
	for {
		t := p.peek()
		sign := "+"
		if t.kind == tokOp && (t.text == "+" || t.text == "-") {
			if t.text == "+" && first {
				return nil, p.errf(t, "expected a term, found %v", t)
			}
			sign = p.next().text
		} else if !first {
			return list, nil
		}
		first = false
		t = p.peek()
		if t.kind == tokNumber && (t.text == "1" || t.text == "0") {
			p.next()
			if t.text == "0" && sign == "-" {
				return nil, p.errf(t, "'-0' is not meaningful; write '0' or '-1' to drop the intercept")
			}
			*intercept = t.text == "1" && sign == "+"
			continue
		}
		if top && sign == "+" && p.isRandomAhead() {
			if err := p.random(); err != nil {
				return nil, err
			}
			continue
		}
		if p.isCall("offset") {
			if sign == "-" || !top {
				return nil, p.errf(t, "offset() must be a term of its own, added with '+'")
			}
			p.next()
			if err := p.enter(p.next()); err != nil {
				return nil, err
			}
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			p.leave()
			p.f.Offsets = append(p.f.Offsets, e)
			continue
		}
		part, err := p.product()
		if err != nil {
			return nil, err
		}
		if sign == "-" {
			list = slices.DeleteFunc(list, func(u []int) bool {
				return slices.ContainsFunc(part, func(v []int) bool { return slices.Equal(u, v) })
			})
		} else {
			list = addTerms(list, part)
			if err := p.bound(list, t); err != nil {
				return nil, err
			}
		}
	}
}

// isRandomAhead reports whether a parenthesis at the cursor opens a
// random term: a '|' or '||' at its depth before its ')'.
func (p *fparser) isRandomAhead() bool { return p.isOp("(") && p.randomOpen[p.i] }

// random parses (lhs | g), (lhs || g) with g a column, a:b or a/b.
func (p *fparser) random() error {
	open := p.next()
	if err := p.enter(open); err != nil {
		return err
	}
	defer p.leave()
	r := RandomTerm{Intercept: true}
	list, err := p.sum(&r.Intercept, false)
	if err != nil {
		return err
	}
	bar := p.next()
	if bar.kind != tokOp || bar.text != "|" && bar.text != "||" {
		return p.errf(bar, "expected '|' in the random term, found %v", bar)
	}
	r.Uncorrelated = bar.text == "||"
	r.Slopes = p.terms(list)
	if !r.Intercept && len(r.Slopes) == 0 {
		return p.errf(open, "the random term has no effect (no intercept and no slope)")
	}
	g, err := p.name("as the grouping factor after '|'")
	if err != nil {
		return err
	}
	groups := [][]string{{g}}
	switch {
	case p.isOp("/"):
		// a/b/c = a + a:b + a:b:c.
		for p.isOp("/") {
			p.next()
			h, err := p.name("after '/'")
			if err != nil {
				return err
			}
			last := groups[len(groups)-1]
			groups = append(groups, append(slices.Clone(last), h))
		}
	case p.isOp(":"):
		for p.isOp(":") {
			p.next()
			h, err := p.name("after ':'")
			if err != nil {
				return err
			}
			groups[0] = append(groups[0], h)
		}
	}
	if err := p.expectOp(")"); err != nil {
		return err
	}
	for _, g := range groups {
		if len(uniq(g)) != len(g) {
			return p.errf(open, "grouping factor %s repeats a column", strings.Join(g, ":"))
		}
		rt := r
		rt.Group = g
		for _, s := range r.Slopes {
			for _, c := range s.Columns() {
				if slices.Contains(g, c) {
					return p.errf(open, "random term %s: the slope %s is also the grouping factor", rt, c)
				}
			}
		}
		key := rt.GroupName() + "\x00" + strings.Join(rt.Effects(), "\x00")
		if p.randomSeen[key] {
			return p.errf(open, "random term %s listed twice", rt)
		}
		if p.randomSeen == nil {
			p.randomSeen = map[string]bool{}
		}
		p.randomSeen[key] = true
		p.f.Random = append(p.f.Random, rt)
	}
	return nil
}

// product parses a * b, a / b (R's a + a:b) and lower levels.
func (p *fparser) product() (termSet, error) {
	left, err := p.colon()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") {
		op := p.next().text
		right, err := p.colon()
		if err != nil {
			return nil, err
		}
		if len(left)*len(right) > MaxTerms {
			return nil, p.errf(p.toks[p.i-1], "the formula expands to more than %d terms", MaxTerms)
		}
		if op == "*" {
			left = addTerms(addTerms(left, right), interact(left, right))
		} else {
			var all []int
			for _, t := range left {
				all = append(all, t...)
			}
			slices.Sort(all)
			left = addTerms(left, interact(termSet{slices.Compact(all)}, right))
		}
		if err := p.order(left, p.toks[p.i-1]); err != nil {
			return nil, err
		}
	}
	return left, nil
}

func (p *fparser) colon() (termSet, error) {
	left, err := p.power()
	if err != nil {
		return nil, err
	}
	for p.isOp(":") {
		p.next()
		right, err := p.power()
		if err != nil {
			return nil, err
		}
		if len(left)*len(right) > MaxTerms {
			return nil, p.errf(p.toks[p.i-1], "the formula expands to more than %d terms", MaxTerms)
		}
		left = interact(left, right)
		if err := p.order(left, p.toks[p.i-1]); err != nil {
			return nil, err
		}
	}
	return left, nil
}

func (p *fparser) power() (termSet, error) {
	base, err := p.atom()
	if err != nil {
		return nil, err
	}
	if !p.isOp("^") {
		return base, nil
	}
	p.next()
	t := p.next()
	k := 0
	if t.kind == tokNumber {
		if _, err := fmt.Sscanf(t.text, "%d", &k); err != nil || fmt.Sprint(k) != t.text {
			k = 0
		}
	}
	if k < 1 || k > 16 {
		return nil, p.errf(t, "expected a whole number from 1 to 16 after '^', found %v", t)
	}
	out := base
	for i := 1; i < k; i++ {
		if len(out)*len(base) > MaxTerms {
			return nil, p.errf(t, "the formula expands to more than %d terms", MaxTerms)
		}
		out = addTerms(out, interact(out, base))
		if err := p.order(out, t); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (p *fparser) atom() (termSet, error) {
	t := p.peek()
	switch {
	case p.isCall("C"):
		p.next()
		p.next()
		col, err := p.name("inside C()")
		if err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		return termSet{{p.varID(Factor{Column: col, Categorical: true})}}, nil
	case p.isCall("offset"):
		return nil, p.errf(t, "offset() must be a term of its own, added with '+'")
	case t.kind == tokIdent && p.toks[p.i+1].kind == tokOp && p.toks[p.i+1].text == "(":
		return nil, p.errf(t, "unknown function %s() in a term (terms take columns, C(column), offset(expr); write `%s` for a column of that name)", t.text, t.text)
	case t.kind == tokIdent || t.kind == tokQuoted:
		p.next()
		return termSet{{p.varID(Factor{Column: t.text})}}, nil
	case t.kind == tokOp && t.text == "(":
		if p.isRandomAhead() {
			return nil, p.errf(t, "a random term must be added on its own with '+', not combined with other terms")
		}
		if err := p.enter(p.next()); err != nil {
			return nil, err
		}
		one := true
		list, err := p.sum(&one, false)
		p.leave()
		if err != nil {
			return nil, err
		}
		if !one {
			return nil, p.errf(t, "0 or -1 inside parentheses is not supported; remove the intercept at the top level")
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		if len(list) == 0 {
			return nil, p.errf(t, "empty parentheses")
		}
		return list, nil
	case t.kind == tokNumber:
		return nil, p.errf(t, "expected a term, found number %s (only 0 and 1, the intercept, may be added or removed)", t.text)
	case t.kind == tokEOF:
		return nil, p.errf(t, "expected a term, found end of input")
	}
	return nil, p.errf(t, "expected a term (column, C(column), a:b, a*b, offset(x), (1|group), 0 or 1), found %v", t)
}
