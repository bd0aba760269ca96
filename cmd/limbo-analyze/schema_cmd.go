package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/ledger"
)

type schemaOptions struct{ format string }

func newSchemaCmd(e *env) *cobra.Command {
	var o schemaOptions
	cmd := &cobra.Command{
		Use:   "schema [--format md|json]",
		Short: "Print the ledger schema: every column of the three tables with its type and meaning",
		Long: `schema prints the ledger schema (DESIGN §3): the columns of the episodes, calls
and effects tables, each with its type, its Parquet type and what it means.
The meanings are the ones written into every Parquet file this toolkit writes
(key-value metadata limbo.columns) and shown in docs/ledger.md.

Examples:
  limbo-analyze schema
  limbo-analyze schema --format json`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("schema: unexpected argument %q", args[0])
			}
			switch o.format {
			case "md":
				_, err := fmt.Fprint(e.stdout, schemaMarkdown())
				return err
			case "json":
				b, err := json.MarshalIndent(schemaJSON(), "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintf(e.stdout, "%s\n", b)
				return err
			}
			return usagef("schema: --format must be md or json, not %q", o.format)
		},
	}
	cmd.Flags().StringVar(&o.format, "format", "md", "output format: md or json")
	cmd.RegisterFlagCompletionFunc("format", cobra.FixedCompletions([]string{"md", "json"}, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

// schemaTables are the ledger's tables in the order they are documented.
var schemaTables = []struct {
	name, intro string
	cols        []ledger.Column
}{
	{"episodes", "one row per graded episode", ledger.EpisodeColumns},
	{"calls", "one row per tool call", ledger.CallColumns},
	{"effects", "one row per committed or key-absorbed side effect", ledger.EffectColumns},
}

// schemaMarkdown renders the schema as the Markdown sections of
// docs/ledger.md (the test keeps the two equal).
func schemaMarkdown() string {
	var b strings.Builder
	table := func(name string, cols []ledger.Column) {
		b.WriteString("| column | type | Parquet | meaning |\n|---|---|---|---|\n")
		for _, c := range cols {
			fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", c.Name, c.Domain, ledger.ParquetType(name, c), strings.ReplaceAll(c.Doc, "|", `\|`))
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
		var design, outcome []ledger.Column
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

type schemaColumn struct {
	Name     string `json:"name"`
	Type     string `json:"type"`
	Domain   string `json:"domain"`
	Parquet  string `json:"parquet"`
	Role     string `json:"role,omitempty"` // episodes: design or outcome
	Optional bool   `json:"optional"`
	Meaning  string `json:"meaning"`
}

type schemaTable struct {
	Name        string         `json:"name"`
	Description string         `json:"description"`
	Columns     []schemaColumn `json:"columns"`
}

type schemaDoc struct {
	SchemaVersion string        `json:"schema_version"`
	Tables        []schemaTable `json:"tables"`
}

func schemaJSON() schemaDoc {
	d := schemaDoc{SchemaVersion: ledger.SchemaVersion}
	for _, t := range schemaTables {
		st := schemaTable{Name: t.name, Description: t.intro}
		for _, c := range t.cols {
			sc := schemaColumn{Name: c.Name, Type: c.Kind.String(), Domain: c.Domain, Parquet: ledger.ParquetType(t.name, c), Optional: c.Optional, Meaning: c.Doc}
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
