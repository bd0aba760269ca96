package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/limbo-toolkit/limbo/ledger"
)

// SchemaFormats are the formats of the ledger schema document.
var SchemaFormats = []string{"md", "json", "csv"}

// Schema renders the ledger schema d (ledger.Schema) as md, the
// Markdown sections of docs/ledger.md (a test keeps the two equal): a
// table per ledger table, the episodes' design and outcome columns
// apart; json, the document itself; or csv, one row per column.
func Schema(w io.Writer, d ledger.SchemaDoc, format string) error {
	switch format {
	case "md":
		_, err := io.WriteString(w, schemaMarkdown(d))
		return err
	case "json":
		return writeJSONEscaped(w, d)
	case "csv":
		g := &Grid{Header: []string{"table", "column", "type", "domain", "parquet", "role", "optional", "meaning"}}
		for _, t := range d.Tables {
			for _, c := range t.Columns {
				g.Add(t.Name, c.Name, c.Type, c.Domain, c.Parquet, c.Role, c.Optional, c.Meaning)
			}
		}
		return g.WriteCSV(w)
	}
	return fmt.Errorf("format %q: want md, json or csv", format)
}

func schemaMarkdown(d ledger.SchemaDoc) string {
	var b strings.Builder
	table := func(cols []ledger.SchemaColumn) {
		g := plainGrid("column", "type", "Parquet", "meaning")
		for _, c := range cols {
			g.Add("`"+c.Name+"`", c.Domain, c.Parquet, c.Meaning)
		}
		g.writeMarkdown(&b)
	}
	for k, t := range d.Tables {
		if k > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "## %s\n\n", t.Name)
		if t.Name != "episodes" {
			fmt.Fprintf(&b, "%s%s.\n\n", strings.ToUpper(t.Description[:1]), t.Description[1:])
			table(t.Columns)
			continue
		}
		var design, outcome []ledger.SchemaColumn
		for _, c := range t.Columns {
			if c.Role == "outcome" {
				outcome = append(outcome, c)
			} else {
				design = append(design, c)
			}
		}
		b.WriteString("Design columns (what the episode was; a raw line carries these):\n\n")
		table(design)
		b.WriteString("\nOutcome columns (derived by the grader from calls, effects and the final report):\n\n")
		table(outcome)
	}
	return b.String()
}
