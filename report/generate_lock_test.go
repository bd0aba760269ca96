package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/outfile"
)

// While another process writes a report into a directory (it holds the
// directory's lock), a report into it, under any name, refuses and writes
// nothing: two reports would mix their files. Released, it runs.
func TestGenerateLocked(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "rep")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(dir, "alias")
	if err := os.Symlink("rep", alias); err != nil {
		t.Fatal(err)
	}
	held, err := outfile.TryLockFile(real)
	if err != nil {
		t.Fatal(err)
	}
	var warns []string
	for _, out := range []string{real, alias} {
		_, err := Generate(job(out, &warns))
		if err == nil || !strings.Contains(err.Error(), "another report is being written into it") {
			t.Errorf("report into %s while it is held: %v, want a refusal", out, err)
		}
	}
	if ents, _ := os.ReadDir(real); len(ents) != 0 {
		t.Errorf("a refused report wrote %v", ents)
	}
	held.Unlock()
	if _, err := Generate(job(alias, &warns)); err != nil {
		t.Fatalf("report after the lock was released: %v", err)
	}
	if _, err := os.Stat(filepath.Join(real, "report.md")); err != nil {
		t.Error(err)
	}
	// The lock of a finished report is released: it can be locked again.
	l, err := outfile.TryLockFile(real)
	if err != nil {
		t.Fatalf("a finished report still holds its directory: %v", err)
	}
	l.Unlock()
}
