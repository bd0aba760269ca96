package design

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/readlimit"
)

// TestReadShardSizeLimit: a sidecar larger than the manifest limit (a
// ledger or a device given where a sidecar belongs) is refused by its
// size, naming the sidecar, before it is read whole.
func TestReadShardSizeLimit(t *testing.T) {
	dir := t.TempDir()
	ledger := filepath.Join(dir, "s.jsonl")
	if err := os.WriteFile(ledger, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(MetaPath(ledger))
	if err != nil {
		t.Fatal(err)
	}
	// Sparse: no disk used.
	if err := f.Truncate(readlimit.Manifest + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	_, err = ReadShard(ledger)
	var big *readlimit.TooLargeError
	if !errors.As(err, &big) || big.Path != MetaPath(ledger) {
		t.Fatalf("ReadShard of a %d-byte sidecar: %v, want a size-limit error naming %s", readlimit.Manifest+1, err, MetaPath(ledger))
	}
}
