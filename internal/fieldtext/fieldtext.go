// Package fieldtext holds error messages that name the fields of a spec
// or a configuration by placeholder, so that each caller reads them in its
// own words: the Go field name by default, a command's flag or a YAML key
// after Rename.
//
// A message is a fmt format in which {Name} stands for the field Name:
//
//	fieldtext.New("PairBy", "{PairBy} must not contain the {Arm} column %s", arm)
//
// reads "PairBy must not contain the Arm column x" by default and
// "--pair-by must not contain the --arm column x" renamed by a command.
package fieldtext

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Error is a message naming fields by {Name} placeholders.
type Error struct {
	// Field is the field at fault.
	Field  string
	format string
	args   []any
	err    error // the message with the placeholders filled by names (nil: the field names)
}

// New returns the error of format and args, whose {Name} placeholders name
// fields; field is the field at fault. A %w verb wraps its argument.
func New(field, format string, args ...any) *Error {
	return &Error{Field: field, format: format, args: args, err: fmt.Errorf(fill(format, nil), args...)}
}

func (e *Error) Error() string { return e.err.Error() }

// Unwrap returns the error a %w verb wrapped, if any.
func (e *Error) Unwrap() error { return errors.Unwrap(e.err) }

// renamed is e with its placeholders filled by names.
func (e *Error) renamed(names map[string]string) *Error {
	return &Error{Field: e.Field, format: e.format, args: e.args, err: fmt.Errorf(fill(e.format, names), e.args...)}
}

var placeholder = regexp.MustCompile(`\{[A-Za-z][A-Za-z0-9]*\}`)

// fill replaces each {Name} of format by names[Name], or by Name when
// names lacks it. A name holding % is escaped for fmt.
func fill(format string, names map[string]string) string {
	return placeholder.ReplaceAllStringFunc(format, func(p string) string {
		n := p[1 : len(p)-1]
		if r, ok := names[n]; ok {
			n = r
		}
		return strings.ReplaceAll(n, "%", "%%")
	})
}

// Rename returns err with the fields of the first *Error in its chain
// named by names (a field not in names keeps its own name). The returned
// error's text is err's with that message replaced; it unwraps to err, so
// errors.As still finds what err held. An err without an *Error is
// returned unchanged.
func Rename(err error, names map[string]string) error {
	var fe *Error
	if !errors.As(err, &fe) {
		return err
	}
	r := fe.renamed(names)
	if error(fe) == err {
		return &renamedError{msg: r.Error(), err: err}
	}
	return &renamedError{msg: strings.Replace(err.Error(), fe.Error(), r.Error(), 1), err: err}
}

// renamedError is an error whose text names fields in a caller's words.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }
