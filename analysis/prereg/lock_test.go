package prereg

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLock locks the paper file, then changes one byte: the lock must
// match before and not after. It also checks the lock's order against a
// ledger's creation time and that a second lock is refused.
func TestLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "study.yaml")
	data := PaperBytes()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	l, err := Lock(path, at, "test")
	if err != nil {
		t.Fatal(err)
	}
	if l.LockedAt != "2026-03-01T11:00:00Z" || l.ToolkitVersion != "test" {
		t.Errorf("lock %+v: want UTC time and the version", l)
	}
	sum := sha256.Sum256(data)
	sha := hex.EncodeToString(sum[:])
	tests := []struct {
		name     string
		sha      string
		created  time.Time
		matches  bool
		predates string
	}{
		{"unchanged, no ledger time", sha, time.Time{}, true, "unknown"},
		{"unchanged, ledger made later", sha, at.Add(time.Hour), true, "yes"},
		{"unchanged, ledger made earlier", sha, at.Add(-time.Hour), true, "no"},
	}
	// One byte changed anywhere is a mismatch.
	for _, i := range []int{0, len(data) / 2, len(data) - 1} {
		b := append([]byte(nil), data...)
		b[i] ^= 1
		s := sha256.Sum256(b)
		tests = append(tests, struct {
			name     string
			sha      string
			created  time.Time
			matches  bool
			predates string
		}{"one byte changed", hex.EncodeToString(s[:]), time.Time{}, false, "unknown"})
	}
	for _, tt := range tests {
		st, err := CheckLock(path, tt.sha, tt.created)
		if err != nil {
			t.Fatal(err)
		}
		if !st.Present || st.Matches != tt.matches || st.PredatesLedger != tt.predates {
			t.Errorf("%s: %+v, want matches %v, predates %s", tt.name, st, tt.matches, tt.predates)
		}
	}
	// The file itself, changed by one byte and re-parsed, no longer matches.
	b := append([]byte(nil), data...)
	b[4] ^= 0x20 // a letter of the first comment changes case
	f, err := Parse(path, b)
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := CheckLock(path, f.SHA256, time.Time{}); st.Matches {
		t.Error("a one-byte edit still matches the lock")
	}
	if _, err := Lock(path, at, "test"); err == nil {
		t.Error("a second lock was written over the first")
	}
	if st, err := CheckLock(filepath.Join(dir, "other.yaml"), sha, time.Time{}); err != nil || st.Present {
		t.Errorf("no lock: %+v, %v", st, err)
	}
	if err := os.WriteFile(LockPath(path), []byte("{\"sha256\": 3}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := CheckLock(path, sha, time.Time{}); err == nil {
		t.Error("a corrupt lock file was accepted")
	}
}

// TestLockRefusesInvalid: a file with errors cannot be locked.
func TestLockRefusesInvalid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(path, []byte("prereg: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(path, time.Now(), "test"); err == nil {
		t.Fatal("locked an invalid file")
	}
	if _, err := os.Stat(LockPath(path)); err == nil {
		t.Error("a lock was written for an invalid file")
	}
}

// Issue 28, size limits: a lock that never ends (here /dev/zero) fails at
// once, naming the lock and its limit.
func TestLockReadBounded(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "study.yaml")
	if err := os.WriteFile(path, PaperBytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", LockPath(path)); err != nil {
		t.Fatal(err)
	}
	_, err := CheckLockOrigin(path, "", Origin{})
	if err == nil || !strings.Contains(err.Error(), LockPath(path)+": larger than 1 MiB, the limit for a preregistration's lock") {
		t.Errorf("CheckLockOrigin with a lock of /dev/zero: %v", err)
	}
}
