package ledger

import (
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
)

// Problem is one finding about a ledger: an error (the row is unusable) or a
// warning (the row is valid but implausible for the paper's sandbox). It
// implements error, so readers return it directly and callers can recover
// the location with errors.As.
//
// A Problem a ReadEpisodes callback returns without a location (File and
// Line unset) is about the row it was given: the reader returns it with
// that row's file and line filled in, so that code working on episodes
// after the read (an analysis rejecting an outcome) names the place a user
// opens, as the reader's own checks do.
type Problem struct {
	File string // path of the ledger file ("" when checking a single row)
	// Line is the 1-based line of a JSONL or CSV file (a CSV's header is
	// line 1, its first row line 2); for a Parquet table (Row set) it is
	// the 0-based row index plus one. 0 = the file as a whole.
	Line int
	// Row says that File is a table of rows (Parquet), not of lines: the
	// problem is rendered "row N" with N the 0-based row index, as DuckDB
	// (file_row_number), pandas (iloc) and polars number them.
	Row     bool
	Field   string // column or JSON field, dotted for nested values (calls[2].outcome)
	Msg     string
	Warning bool
	// Err, if set, is the error Msg renders, kept so that callers find
	// it with errors.As (a field error a command rewrites in its own
	// terms, see package internal/fieldtext).
	Err error
}

// Unwrap returns p.Err.
func (p Problem) Unwrap() error { return p.Err }

// strict returns p with the message format makes of args, a field error
// that names ReadOptions.Strict as {Strict}: a command renames it to its
// own option.
func (p Problem) strict(format string, args ...any) Problem {
	fe := fieldtext.New("Strict", format, args...)
	p.Msg, p.Err = fe.Error(), fe
	return p
}

// extraRejected is the message for an extra column under Strict.
const extraRejected = "extra %s (not in the ledger schema; rejected under {Strict})"

// Error renders the problem as "file:line: field: msg" (for a Parquet
// row, "file: row N: field: msg"), leaving out the parts that are empty or
// zero.
func (p Problem) Error() string {
	var b strings.Builder
	if p.File != "" {
		if p.Line > 0 {
			b.WriteString(filePosition(p.File, p.Line, p.Row))
		} else {
			b.WriteString(p.File)
		}
		b.WriteString(": ")
	} else if p.Line > 0 {
		b.WriteString(p.Where())
		b.WriteString(": ")
	}
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	if p.Warning {
		b.WriteString("warning: ")
	}
	b.WriteString(p.Msg)
	return b.String()
}

// Where renders the problem's place in its file without the file: "line
// N", or "row N" (0-based) for a Parquet row; "" for the file as a whole.
func (p Problem) Where() string {
	return position(p.Line, p.Row)
}

// position renders a 1-based line, or the row index of 1-based row n of a
// table.
func position(n int, rows bool) string {
	switch {
	case n <= 0:
		return ""
	case rows:
		return "row " + strconv.Itoa(n-1)
	}
	return "line " + strconv.Itoa(n)
}

// filePosition renders line n of file as messages name a place in another
// file: "FILE:N", or "FILE: row N" for a table of rows.
func filePosition(file string, n int, rows bool) string {
	if rows {
		return file + ": " + position(n, true)
	}
	return file + ":" + strconv.Itoa(n)
}

// located returns err with the place of row line of file when err is a
// Problem without one (see Problem); other errors are returned as they are.
func located(err error, file string, line int, rows bool) error {
	if p, ok := err.(Problem); ok && p.File == "" && p.Line == 0 {
		p.File, p.Line, p.Row = file, line, rows
		return p
	}
	return err
}
