package ledger

// schemaTables are the three tables of the ledger, in the order the
// schema lists them. report.Schema renders them (docs/ledger.md).
var schemaTables = []struct {
	name, intro string
	cols        []Column
}{
	{"episodes", "one row per graded episode", EpisodeColumns},
	{"calls", "one row per tool call", CallColumns},
	{"effects", "one row per committed or key-absorbed side effect", EffectColumns},
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
