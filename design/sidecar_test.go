package design

import (
	"os"
	"path/filepath"
	"testing"
)

// SidecarSeed reads the seed of LEDGER.meta.json and gives "" for no
// path, no sidecar, no seed or a sidecar that is not JSON.
func TestSidecarSeed(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, meta, want string
	}{
		{"seed", `{"seed": 18446744073709551615, "episodes": 3}`, "18446744073709551615"},
		{"zero seed", `{"seed": 0}`, "0"},
		{"no seed", `{"episodes": 3}`, ""},
		{"not json", `seed: 7`, ""},
		{"no sidecar", "", ""},
	}
	for _, tt := range tests {
		ledger := filepath.Join(dir, tt.name+".jsonl")
		if tt.meta != "" {
			if err := os.WriteFile(MetaPath(ledger), []byte(tt.meta), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if got := SidecarSeed(ledger); got != tt.want {
			t.Errorf("%s: SidecarSeed = %q, want %q", tt.name, got, tt.want)
		}
	}
	if got := SidecarSeed(""); got != "" {
		t.Errorf(`SidecarSeed("") = %q, want ""`, got)
	}
}
