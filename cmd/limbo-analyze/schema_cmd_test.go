package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

const (
	ledgerDoc   = "../../docs/ledger.md"
	schemaBegin = "<!-- begin: limbo-analyze schema --format md (TestSchemaDocs checks it; go test -update rewrites it) -->\n"
	schemaEnd   = "<!-- end: limbo-analyze schema -->\n"
)

// docs/ledger.md shows the schema exactly as schema --format md prints it,
// so the documentation and the descriptions in the code (and in every
// Parquet file) cannot drift apart.
func TestSchemaDocs(t *testing.T) {
	code, md, stderr := runCmd(t, "schema", "--format", "md")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(ledgerDoc)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	before, rest, ok1 := strings.Cut(doc, schemaBegin)
	old, after, ok2 := strings.Cut(rest, schemaEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no %q … %q block", ledgerDoc, schemaBegin, schemaEnd)
	}
	if old == md {
		return
	}
	if *update {
		if err := os.WriteFile(ledgerDoc, []byte(before+schemaBegin+md+schemaEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s differs from schema --format md; run go test ./cmd/limbo-analyze -run TestSchemaDocs -update", ledgerDoc)
}

func TestSchemaJSON(t *testing.T) {
	code, out, stderr := runCmd(t, "schema", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var d ledger.SchemaDoc
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if d.SchemaVersion != ledger.SchemaVersion || len(d.Tables) != 3 {
		t.Fatalf("schema version %q, %d tables", d.SchemaVersion, len(d.Tables))
	}
	for k, want := range [][]ledger.Column{ledger.EpisodeColumns, ledger.CallColumns, ledger.EffectColumns} {
		got := d.Tables[k].Columns
		if len(got) != len(want) {
			t.Fatalf("%s: %d columns, want %d", d.Tables[k].Name, len(got), len(want))
		}
		for i, c := range want {
			if got[i].Name != c.Name || got[i].Meaning != c.Doc || got[i].Type != c.Kind.String() || got[i].Meaning == "" {
				t.Errorf("%s.%s: %+v", d.Tables[k].Name, c.Name, got[i])
			}
		}
	}
	if p := d.Tables[0].Columns[2]; p.Name != "model" || p.Parquet != "UTF8, dictionary" || p.Role != "design" {
		t.Errorf("model: %+v", p)
	}
	if code, _, stderr := runCmd(t, "schema", "--format", "xml"); code != exitUsage || !strings.Contains(stderr, "--format must be md or json") {
		t.Errorf("--format xml: exit %d, %q", code, stderr)
	}
}
