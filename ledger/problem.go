package ledger

import (
	"strconv"
	"strings"
)

// Problem is one finding about a ledger: an error (the row is unusable) or a
// warning (the row is valid but implausible for the paper's sandbox). It
// implements error, so readers return it directly and callers can recover
// the location with errors.As.
type Problem struct {
	File    string // path of the ledger file ("" when checking a single row)
	Line    int    // 1-based line (JSONL, CSV) or row (Parquet); 0 = the file as a whole
	Field   string // column or JSON field, dotted for nested values (calls[2].outcome)
	Msg     string
	Warning bool
}

// Error renders the problem as "file:line: field: msg", leaving out the
// parts that are empty or zero.
func (p Problem) Error() string {
	var b strings.Builder
	if p.File != "" {
		b.WriteString(p.File)
		if p.Line > 0 {
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(p.Line))
		}
		b.WriteString(": ")
	} else if p.Line > 0 {
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(p.Line))
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
