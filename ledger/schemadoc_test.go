package ledger

import "testing"

// Schema lists every column of the three tables with its meaning and,
// for episodes, its role (report.Schema renders it; docs/ledger.md shows
// it).
func TestSchemaDoc(t *testing.T) {
	d := Schema()
	if d.SchemaVersion != SchemaVersion || len(d.Tables) != 3 {
		t.Fatalf("version %q, %d tables", d.SchemaVersion, len(d.Tables))
	}
	for k, want := range [][]Column{EpisodeColumns, CallColumns, EffectColumns} {
		tb := d.Tables[k]
		if len(tb.Columns) != len(want) {
			t.Fatalf("%s: %d columns, want %d", tb.Name, len(tb.Columns), len(want))
		}
		for i, c := range want {
			got := tb.Columns[i]
			role := ""
			if k == 0 {
				role = map[bool]string{false: "design", true: "outcome"}[c.Outcome]
			}
			if got.Name != c.Name || got.Meaning != c.Doc || got.Role != role || got.Parquet != ParquetType(tb.Name, c) {
				t.Errorf("%s.%s: %+v", tb.Name, c.Name, got)
			}
		}
	}
}
