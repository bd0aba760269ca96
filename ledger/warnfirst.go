package ledger

import (
	"fmt"
	"io"
)

// FirstWarnings prints the first Max plausibility warnings of a read, each
// as Prefix followed by the problem, and on Flush one line counting the
// rest, so that a command reading a user's ledger warns without flooding
// the terminal. Unlike WarnLimiter it counts all kinds together: the
// commands that use it show a few examples and the total.
type FirstWarnings struct {
	w      io.Writer
	max    int
	prefix string
	more   string // format of the closing line, with one %d for the rest
	n      int
	told   int // warnings already counted by a Flush
}

// NewFirstWarnings returns a limiter writing to w: the first max warnings,
// each after prefix, then on Flush the line more (a format with one %d,
// the count of warnings not shown, and its own newline).
func NewFirstWarnings(w io.Writer, max int, prefix, more string) *FirstWarnings {
	return &FirstWarnings{w: w, max: max, prefix: prefix, more: more}
}

// Warn prints p if fewer than the limit were printed, and counts it.
func (f *FirstWarnings) Warn(p Problem) {
	if f.n++; f.n <= f.max {
		fmt.Fprintf(f.w, "%s%v\n", f.prefix, p)
	}
}

// Count is the number of warnings seen, shown or not.
func (f *FirstWarnings) Count() int { return f.n }

// Flush prints how many warnings were not shown, if any. A later Flush
// counts only the warnings that came after it.
func (f *FirstWarnings) Flush() {
	if rest := f.n - max(f.max, f.told); rest > 0 {
		fmt.Fprintf(f.w, f.more, rest)
		f.told = f.n
	}
}
