package prereg

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"
)

// lockedSkeleton writes the skeleton preregistration to study.yaml in a
// fresh temporary directory, locks it as of at and returns its path and
// the locked file as read back; any failure is fatal.
func lockedSkeleton(t *testing.T, at time.Time) (string, *File) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "study.yaml")
	if err := os.WriteFile(path, SkeletonBytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(path, at, "test"); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, f
}

// Run attaches the ledger's identity, the seed and the lock's state; a
// preregistration edited after its lock gets a warning.
func TestRun(t *testing.T) {
	path, f := lockedSkeleton(t, time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC))
	in := cliCSV
	eps := ledgertest.ReadEpisodes(t, in)
	ledgerBytes, err := os.ReadFile(in)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(ledgerBytes)

	r, err := f.Run(path, table.NewData(eps), in, "42", "v-test")
	if err != nil {
		t.Fatal(err)
	}
	p := r.Provenance
	if p.LedgerSHA256 != hex.EncodeToString(sum[:]) || p.LedgerBytes != int64(len(ledgerBytes)) {
		t.Errorf("ledger identity %s %d, want the file's", p.LedgerSHA256, p.LedgerBytes)
	}
	if p.Seed != "42" || p.ToolkitVersion != "v-test" || p.Prereg != path || p.PreregSHA256 != f.SHA256 {
		t.Errorf("provenance %+v", p)
	}
	if !p.Lock.Present || !p.Lock.Matches {
		t.Errorf("lock %+v: want present and matching", p.Lock)
	}
	if slices.ContainsFunc(r.Warnings(), func(w string) bool { return strings.Contains(w, "locked") }) {
		t.Errorf("warnings %q for an unchanged file", r.Warnings())
	}

	// Edited after the lock: the same verdicts, and a warning.
	if err := os.WriteFile(path, append(SkeletonBytes(), "# edited\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err = ReadFile(path); err != nil {
		t.Fatal(err)
	}
	if r, err = f.Run(path, table.NewData(eps), in, "42", "v-test"); err != nil {
		t.Fatal(err)
	}
	if w := r.Warnings(); len(w) == 0 || w[0] != "warning: "+path+" changed after it was locked" {
		t.Errorf("warnings %q: want the lock mismatch first", w)
	}
}

// ReadFile returns a file's problems as an ErrorList, and a missing file's
// error as it is.
func TestReadFile(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(bad, []byte("prereg: 1\nhypotheses: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var list ErrorList
	if _, err := ReadFile(bad); !errors.As(err, &list) || len(list) == 0 {
		t.Errorf("ReadFile(%s) = %v, want an ErrorList", bad, err)
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none.yaml")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v, want not exist", err)
	}
}
