package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedUpToDate fails when a committed generated file differs from
// what schemagen writes from the tables: a column was changed without
// running go generate ./ledger.
func TestGeneratedUpToDate(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := generate(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		got, err := os.ReadFile(filepath.Join(root, f.path))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, f.src) {
			t.Errorf("%s is stale: run go generate ./ledger", f.path)
		}
	}
}

// TestGenerateChecks gives schemagen tables that do not match their
// structs and checks that it says where.
func TestGenerateChecks(t *testing.T) {
	const structs = `
type Call struct {
	EpisodeID string ` + "`json:\"episode_id\"`" + `
}
type Effect struct {
	EpisodeID string ` + "`json:\"episode_id\"`" + `
}
var CallColumns = []Column{{Name: "episode_id", Kind: KindString}}
var EffectColumns = []Column{{Name: "episode_id", Kind: KindString}}
`
	for _, tc := range []struct {
		name, src, want string
	}{
		{"ok", `
type Episode struct {
	EpisodeID string ` + "`json:\"episode_id\"`" + `
	CostUSD *float64 ` + "`json:\"cost_usd,omitempty\"`" + `
	Extra map[string]string ` + "`json:\"-\"`" + `
}
var EpisodeColumns = []Column{{Name: "episode_id", Kind: KindString}, {Name: "cost_usd", Kind: KindFloat, Optional: true}}
`, ""},
		{"no field", `
type Episode struct {
	EpisodeID string ` + "`json:\"episode_id\"`" + `
}
var EpisodeColumns = []Column{{Name: "episode_id", Kind: KindString}, {Name: "seed", Kind: KindInt}}
`, `column "seed" has no field in Episode`},
		{"wrong type", `
type Episode struct {
	Seed int ` + "`json:\"seed\"`" + `
}
var EpisodeColumns = []Column{{Name: "seed", Kind: KindInt}}
`, `Episode.Seed must be int64, not int`},
		{"optional not a pointer", `
type Episode struct {
	CostUSD float64 ` + "`json:\"cost_usd\"`" + `
}
var EpisodeColumns = []Column{{Name: "cost_usd", Kind: KindFloat, Optional: true}}
`, `Episode.CostUSD must be *float64, not float64`},
		{"field without a column", `
type Episode struct {
	EpisodeID string ` + "`json:\"episode_id\"`" + `
	Seed int64 ` + "`json:\"seed\"`" + `
}
var EpisodeColumns = []Column{{Name: "episode_id", Kind: KindString}}
`, `Episode.Seed (json "seed") is not a column of EpisodeColumns`},
		{"positional entry", `
type Episode struct {
	EpisodeID string ` + "`json:\"episode_id\"`" + `
}
var EpisodeColumns = []Column{{"episode_id", KindString}}
`, "write the Column with field names"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			dir := filepath.Join(root, "ledger")
			if err := os.Mkdir(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "types.go"), []byte("package ledger\n"+structs+tc.src), 0o644); err != nil {
				t.Fatal(err)
			}
			files, err := generate(root)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("error %v, want none", err)
			case tc.want == "":
				if len(files) != 2 || !bytes.Contains(files[0].src, []byte("return fieldRef{opt: &e.CostUSD}")) {
					t.Errorf("generated %d files, ledger's:\n%s", len(files), files[0].src)
				}
			case err == nil:
				t.Fatalf("no error, want %q", tc.want)
			case !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %q, want it to say %q", err, tc.want)
			}
		})
	}
}
