package formula

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// SyntaxError is a parse error in a formula or where expression. Pos is the
// byte offset of the offending token in Input.
type SyntaxError struct {
	What  string // "formula" or "where"
	Input string
	Pos   int
	Msg   string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s %q: at offset %d: %s", e.What, excerpt(e.Input, e.Pos), e.Pos, e.Msg)
}

// excerpt is s when short, else the part of it around offset pos marked
// with … where cut: a message does not repeat a 200 kB input.
func excerpt(s string, pos int) string {
	const keep = 40
	if len(s) <= 3*keep {
		return s
	}
	lo, hi := max(0, pos-keep), min(len(s), pos+keep)
	// Whole runes, at most three bytes further (invalid UTF-8 has runs of
	// continuation bytes of any length).
	for i := 0; i < 3 && lo > 0 && !utf8.RuneStart(s[lo]); i++ {
		lo--
	}
	for i := 0; i < 3 && hi < len(s) && !utf8.RuneStart(s[hi]); i++ {
		hi++
	}
	out := s[lo:hi]
	if lo > 0 {
		out = "…" + out
	}
	if hi < len(s) {
		out += "…"
	}
	return out
}

// MaxDepth bounds the nesting of the formula and where languages:
// parentheses, unary operators and function calls inside one another, and
// the chain of operators of an arithmetic expression. A deeper input is a
// syntax error rather than a stack that grows with it.
const MaxDepth = 100

type tokKind int

const (
	tokEOF tokKind = iota
	tokIdent
	tokQuoted // a backquoted identifier
	tokNumber
	tokString
	tokOp
)

type token struct {
	kind tokKind
	text string // identifier name, unquoted string, number text, or operator
	pos  int
}

func (t token) String() string {
	switch t.kind {
	case tokEOF:
		return "end of input"
	case tokString:
		return fmt.Sprintf("string %q", t.text)
	case tokQuoted:
		return "`" + t.text + "`"
	}
	return fmt.Sprintf("%q", t.text)
}

// twoCharOps are tried before single characters.
var twoCharOps = []string{"&&", "||", "==", "!=", "<=", ">="}

const oneCharOps = "~+-()|:*,!<>"

// formulaOps are further operators of the formula language: a single bar
// of a random term, powers and nesting.
const formulaOps = "|^/"

// lex splits s into tokens.
func lex(what, s string) ([]token, error) {
	var toks []token
	i := 0
	errAt := func(pos int, format string, args ...any) error {
		return &SyntaxError{What: what, Input: s, Pos: pos, Msg: fmt.Sprintf(format, args...)}
	}
	// Parentheses nested beyond MaxDepth are refused here, before a
	// megabyte of them is tokenised (the parser refuses them too).
	parens := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			return nil, errAt(i, "invalid UTF-8")
		}
		switch {
		case unicode.IsSpace(r):
			i += size
		case isIdentStart(r):
			j := i
			for j < len(s) {
				r2, n := utf8.DecodeRuneInString(s[j:])
				if !isIdentPart(r2) {
					break
				}
				j += n
			}
			toks = append(toks, token{tokIdent, s[i:j], i})
			i = j
		case r >= '0' && r <= '9' || r == '.' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			j := i
			for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == '.' || s[j] == 'e' || s[j] == 'E' ||
				(s[j] == '+' || s[j] == '-') && j > i && (s[j-1] == 'e' || s[j-1] == 'E')) {
				j++
			}
			toks = append(toks, token{tokNumber, s[i:j], i})
			i = j
		case r == '"' || r == '\'':
			var b strings.Builder
			j := i + 1
			closed := false
			for j < len(s) {
				c := s[j]
				if c == byte(r) {
					closed = true
					j++
					break
				}
				if c == '\\' {
					if j+1 >= len(s) {
						break
					}
					switch e := s[j+1]; e {
					case '\\', '"', '\'':
						b.WriteByte(e)
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						return nil, errAt(j, "unknown escape \\%c in string", e)
					}
					j += 2
					continue
				}
				b.WriteByte(c)
				j++
			}
			if !closed {
				return nil, errAt(i, "unterminated string")
			}
			toks = append(toks, token{tokString, b.String(), i})
			i = j
		case r == '`':
			j := strings.IndexByte(s[i+1:], '`')
			if j < 0 {
				return nil, errAt(i, "unterminated backquoted name")
			}
			if j == 0 {
				return nil, errAt(i, "empty backquoted name")
			}
			toks = append(toks, token{tokQuoted, s[i+1 : i+1+j], i})
			i += j + 2
		default:
			matched := false
			for _, op := range twoCharOps {
				if strings.HasPrefix(s[i:], op) {
					toks = append(toks, token{tokOp, op, i})
					i += 2
					matched = true
					break
				}
			}
			if matched {
				continue
			}
			if r < utf8.RuneSelf && (strings.IndexByte(oneCharOps, byte(r)) >= 0 || what == "formula" && strings.IndexByte(formulaOps, byte(r)) >= 0) {
				switch r {
				case '(':
					if parens++; parens > MaxDepth {
						return nil, errAt(i, "nested more than %d deep", MaxDepth)
					}
				case ')':
					parens--
				}
				toks = append(toks, token{tokOp, string(r), i})
				i++
				continue
			}
			if r == '=' {
				return nil, errAt(i, "unexpected '=' (use == to compare)")
			}
			if r == '&' || r == '|' {
				return nil, errAt(i, "unexpected %q (use && or ||)", r)
			}
			return nil, errAt(i, "unexpected character %q", r)
		}
	}
	toks = append(toks, token{tokEOF, "", len(s)})
	return toks, nil
}

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }

func isIdentPart(r rune) bool {
	return r == '_' || r == '.' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

// parser is the shared token cursor of the formula and where parsers.
type parser struct {
	what  string
	input string
	toks  []token
	i     int
	depth int // nesting (MaxDepth)
}

// enter counts one more level of nesting, opened at t, which leave ends;
// beyond MaxDepth it is an error, which ends the parse.
func (p *parser) enter(t token) error {
	p.depth++
	if p.depth > MaxDepth {
		return p.errf(t, "nested more than %d deep", MaxDepth)
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.kind == tokOp && t.text == op
}

func (p *parser) errf(t token, format string, args ...any) error {
	return &SyntaxError{What: p.what, Input: p.input, Pos: t.pos, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) expectOp(op string) error {
	t := p.next()
	if t.kind != tokOp || t.text != op {
		return p.errf(t, "expected %q, found %v", op, t)
	}
	return nil
}

// name reads a column name: an identifier or a backquoted name.
func (p *parser) name(context string) (string, error) {
	t := p.next()
	if t.kind == tokIdent || t.kind == tokQuoted {
		return t.text, nil
	}
	return "", p.errf(t, "expected a column name %s, found %v", context, t)
}
