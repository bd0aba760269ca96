package ledger

import (
	"fmt"
	"strings"
)

// schemaTables are the three tables of the ledger, in the order the
// schema lists them.
var schemaTables = []struct {
	name, intro string
	cols        []Column
}{
	{"episodes", "one row per graded episode", EpisodeColumns},
	{"calls", "one row per tool call", CallColumns},
	{"effects", "one row per committed or key-absorbed side effect", EffectColumns},
}

// SchemaMarkdown renders the schema as the Markdown sections of
// docs/ledger.md (a test keeps the two equal): a table per ledger table,
// the episodes' design and outcome columns apart.
func SchemaMarkdown() string {
	var b strings.Builder
	table := func(name string, cols []Column) {
		b.WriteString("| column | type | Parquet | meaning |\n|---|---|---|---|\n")
		for _, c := range cols {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Name, c.Domain, ParquetType(name, c), strings.ReplaceAll(c.Doc, "|", `\|`))
		}
	}
	for k, t := range schemaTables {
		if k > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "## %s\n\n", t.name)
		if t.name != "episodes" {
			fmt.Fprintf(&b, "%s%s.\n\n", strings.ToUpper(t.intro[:1]), t.intro[1:])
			table(t.name, t.cols)
			continue
		}
		var design, outcome []Column
		for _, c := range t.cols {
			if c.Outcome {
				outcome = append(outcome, c)
			} else {
				design = append(design, c)
			}
		}
		b.WriteString("Design columns (what the episode was; a raw line carries these):\n\n")
		table(t.name, design)
		b.WriteString("\nOutcome columns (derived by the grader from calls, effects and the final report):\n\n")
		table(t.name, outcome)
	}
	return b.String()
}

// SchemaColumn describes one column in the JSON schema document.
type SchemaColumn struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Domain   string `json:"domain"`
	Parquet  string `json:"parquet"`
	Role     string `json:"role,omitempty"` // episodes: design or outcome
	Optional bool   `json:"optional"`
	Meaning  string `json:"meaning"`
}

// SchemaTable describes one table in the JSON schema document.
type SchemaTable struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Columns     []SchemaColumn `json:"columns"`
}

// SchemaDoc is the ledger schema as a JSON document (schema --format
// json), for scripts.
type SchemaDoc struct {
	SchemaVersion string        `json:"schema_version"`
	Tables        []SchemaTable `json:"tables"`
}

// Schema describes every column of the three tables: type, domain,
// Parquet type, role and meaning.
func Schema() SchemaDoc {
	d := SchemaDoc{SchemaVersion: SchemaVersion}
	for _, t := range schemaTables {
		st := SchemaTable{Name: t.name, Description: t.intro}
		for _, c := range t.cols {
			sc := SchemaColumn{Name: c.Name, Type: c.Kind.String(), Domain: c.Domain, Parquet: ParquetType(t.name, c), Optional: c.Optional, Meaning: c.Doc}
			if t.name == "episodes" {
				sc.Role = "design"
				if c.Outcome {
					sc.Role = "outcome"
				}
			}
			st.Columns = append(st.Columns, sc)
		}
		d.Tables = append(d.Tables, st)
	}
	return d
}
