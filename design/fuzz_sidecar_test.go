package design

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzSidecar: any bytes in a shard's sidecar (LEDGER.meta.json, read by
// merge, report and the provenance of every analysis) give a shard or an
// error naming the ledger or its sidecar, and a seed or none — never a
// panic.
func FuzzSidecar(f *testing.F) {
	f.Add([]byte(`{"design":"paper","seed":1,"shard":"1/2","episodes":[0,100],"toolkit":"v"}`))
	f.Add([]byte(`{"seed":18446744073709551615}`))
	f.Add([]byte(`{"seed":-1}`))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[`))
	dir := f.TempDir()
	ledger := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(ledger, nil, 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(MetaPath(ledger), data, 0o644); err != nil {
			t.Fatal(err)
		}
		SidecarSeed(ledger)
		s, err := ReadShard(ledger)
		if err == nil && s.Path != ledger {
			t.Errorf("shard path %q, want %q", s.Path, ledger)
		}
	})
}
