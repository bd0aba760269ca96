package formula

import "strings"

// Formula is a parsed model formula `y ~ a + C(b) + (1|g)`.
type Formula struct {
	Response  string   // the outcome column
	Intercept bool     // false after `0` or `-1`
	Terms     []Term   // fixed-effect terms in the order written
	Random    []string // grouping columns of the random intercepts (1|g), in order
}

// Term is one fixed-effect term: a column, categorical when forced by C().
type Term struct {
	Column      string
	Categorical bool // written C(column)
}

// String renders the term as written: `x` or `C(x)`.
func (t Term) String() string {
	n := quoteName(t.Column)
	if t.Categorical {
		return "C(" + n + ")"
	}
	return n
}

// String renders the formula canonically; Parse(f.String()) equals f.
func (f *Formula) String() string {
	var parts []string
	for _, t := range f.Terms {
		parts = append(parts, t.String())
	}
	for _, g := range f.Random {
		parts = append(parts, "(1|"+quoteName(g)+")")
	}
	if !f.Intercept {
		parts = append(parts, "0")
	}
	if len(parts) == 0 {
		parts = append(parts, "1")
	}
	return quoteName(f.Response) + " ~ " + strings.Join(parts, " + ")
}

// Columns returns every column the formula reads (response, terms, groups),
// each once, in order of appearance.
func (f *Formula) Columns() []string {
	seen := map[string]bool{}
	var out []string
	add := func(c string) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	add(f.Response)
	for _, t := range f.Terms {
		add(t.Column)
	}
	for _, g := range f.Random {
		add(g)
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
	// Keywords of the where language would not lex back as identifiers
	// in a where expression; in a formula they are fine.
	return true
}

// Parse parses a formula. Interactions (`a:b`, `a*b`) and random slopes are
// not supported and are reported as such.
func Parse(s string) (*Formula, error) {
	toks, err := lex("formula", s)
	if err != nil {
		return nil, err
	}
	p := &parser{what: "formula", input: s, toks: toks}
	if p.peek().kind == tokEOF {
		return nil, p.errf(p.peek(), "empty formula (want outcome ~ terms)")
	}
	f := &Formula{Intercept: true}
	if p.isOp("~") {
		return nil, p.errf(p.peek(), "missing outcome column before '~'")
	}
	if f.Response, err = p.name("as the outcome"); err != nil {
		return nil, err
	}
	if err := p.expectOp("~"); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	sign := "+"
	first := true
	for {
		t := p.peek()
		if !first || t.kind == tokOp && t.text == "-" {
			if t.kind == tokOp && (t.text == "+" || t.text == "-") {
				sign = p.next().text
			} else if !first {
				if t.kind == tokOp && (t.text == ":" || t.text == "*") {
					return nil, p.errf(t, "interactions (%s) are not supported; add the columns as separate terms or build a combined column", t.text)
				}
				return nil, p.errf(t, "expected '+' between terms, found %v", t)
			}
		}
		first = false
		t = p.peek()
		switch {
		case t.kind == tokNumber && (t.text == "1" || t.text == "0"):
			p.next()
			if t.text == "0" && sign == "-" {
				return nil, p.errf(t, "'-0' is not meaningful; write '0' or '-1' to drop the intercept")
			}
			f.Intercept = t.text == "1" && sign == "+"
		case sign == "-":
			return nil, p.errf(t, "only the intercept can be removed ('-1'); to leave out a column, do not list it")
		case t.kind == tokIdent && t.text == "C" && p.toks[p.i+1].kind == tokOp && p.toks[p.i+1].text == "(":
			p.next()
			p.next()
			col, err := p.name("inside C()")
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			if err := addTerm(p, f, seen, Term{Column: col, Categorical: true}, t); err != nil {
				return nil, err
			}
		case t.kind == tokIdent || t.kind == tokQuoted:
			p.next()
			if err := addTerm(p, f, seen, Term{Column: t.text}, t); err != nil {
				return nil, err
			}
		case t.kind == tokOp && t.text == "(":
			p.next()
			one := p.next()
			if one.kind != tokNumber || one.text != "1" {
				return nil, p.errf(one, "only random intercepts (1|group) are supported, found %v", one)
			}
			if err := p.expectOp("|"); err != nil {
				return nil, err
			}
			g, err := p.name("after '|'")
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			key := "(1|" + g + ")"
			if seen[key] {
				return nil, p.errf(t, "random intercept (1|%s) listed twice", g)
			}
			seen[key] = true
			f.Random = append(f.Random, g)
		case t.kind == tokEOF:
			return nil, p.errf(t, "expected a term, found end of input")
		default:
			return nil, p.errf(t, "expected a term (column, C(column), (1|group), 0 or 1), found %v", t)
		}
		if p.peek().kind == tokEOF {
			break
		}
	}
	for _, t := range f.Terms {
		if t.Column == f.Response {
			return nil, &SyntaxError{What: "formula", Input: s, Pos: 0, Msg: "the outcome " + f.Response + " also appears as a term"}
		}
	}
	return f, nil
}

func addTerm(p *parser, f *Formula, seen map[string]bool, t Term, at token) error {
	if seen[t.Column] {
		return p.errf(at, "column %s listed twice", t.Column)
	}
	seen[t.Column] = true
	f.Terms = append(f.Terms, t)
	return nil
}
