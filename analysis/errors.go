package analysis

import (
	"errors"
	"fmt"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
)

// SpecError is a mistake in a query or a spec (an unknown option, a
// malformed Where, a column listed twice), as opposed to a failure that
// depends on the data. A command reports it as a usage error.
type SpecError struct {
	Err error
	// Field names the spec field at fault ("Order"), when the error is
	// about one; a command maps it to its own option (internal/fieldtext's Rename).
	Field string
}

func (e *SpecError) Error() string {
	var ft *fieldtext.Error
	if e.Field != "" && !errors.As(e.Err, &ft) {
		return e.Field + ": " + e.Err.Error()
	}
	return e.Err.Error()
}
func (e *SpecError) Unwrap() error { return e.Err }

func specf(format string, args ...any) error {
	return &SpecError{Err: fmt.Errorf(format, args...)}
}

// fieldErr is a SpecError about field whose message names spec fields
// by {Name} placeholders (see internal/fieldtext).
func fieldErr(field, format string, args ...any) error {
	return &SpecError{Err: fieldtext.New(field, format, args...), Field: field}
}

// fieldf is a SpecError about the spec field named field.
func fieldf(field, format string, args ...any) error {
	return fieldErr(field, "{"+field+"}: "+format, args...)
}
