package report

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
)

// SummaryFormats are the formats of a ledger file's summary.
var SummaryFormats = []string{"text", "json"}

// Summary writes a ledger file's summary (validate --summary) as text,
// the columns sorted by name, or with format "json" as one line of JSON,
// for scripts.
func Summary(w io.Writer, s *ledger.Summary, format string) error {
	if format == "json" {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(w, "%s\n", b)
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d rows\n", s.File, s.Rows)
	keys := func(m map[string]int) []string {
		ks := make([]string, 0, len(m))
		for k := range m {
			ks = append(ks, k)
		}
		slices.Sort(ks)
		return ks
	}
	// Fixed name widths, not a Grid (validate --summary's pinned layout):
	// the summaries of several files line up with each other.
	for _, k := range keys(s.BoolSums) {
		fmt.Fprintf(&b, "  true  %-20s %d\n", k, s.BoolSums[k])
	}
	for _, k := range keys(s.Distinct) {
		fmt.Fprintf(&b, "  distinct %-17s %d\n", k, s.Distinct[k])
	}
	_, err := io.WriteString(w, b.String())
	return err
}
