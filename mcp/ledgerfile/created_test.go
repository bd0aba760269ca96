package ledgerfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLedgerCreatedSidecar: a ledger that drive or serve creates gets
// LEDGER.created.json with the run's start; reopening keeps it; a run that
// records nothing leaves neither file.
func TestLedgerCreatedSidecar(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.jsonl")
	before := time.Now().Add(-time.Second)
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	created, side, ok, err := ReadCreated(path)
	if err != nil || !ok || side != filepath.Join(dir, "run.created.json") {
		t.Fatalf("ReadCreated: %v %q %v %v", created, side, ok, err)
	}
	if created.Before(before.Truncate(time.Second)) || created.After(time.Now()) {
		t.Errorf("created %v, want about now", created)
	}
	// Nothing recorded: Close removes the ledger and its sidecar.
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Fatalf("an empty run left %d files", len(entries))
	}

	// An existing ledger (written by another tool) gets no sidecar: its
	// creation is not this run's start.
	if err := os.WriteFile(path, []byte(`{"episode_id":"a"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, _, ok, err := ReadCreated(path); ok || err != nil {
		t.Errorf("reopened ledger: sidecar %v, %v", ok, err)
	}

	// A sidecar that is not one is an error naming the file and field.
	for _, bad := range []string{`{"created_utc": "noon"}`, `{"created": "2026-01-01T00:00:00Z"}`, `[`} {
		if err := os.WriteFile(CreatedPath(path), []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		_, _, _, err := ReadCreated(path)
		if err == nil || !strings.Contains(err.Error(), CreatedPath(path)) {
			t.Errorf("%s: %v, want an error naming the sidecar", bad, err)
		}
	}
	if err := WriteCreated(path, time.Date(2026, 3, 1, 13, 0, 0, 0, time.FixedZone("CET", 3600))); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(CreatedPath(path))
	if !strings.Contains(string(b), `"created_utc": "2026-03-01T12:00:00Z"`) {
		t.Errorf("sidecar %s: want the UTC time", b)
	}
}
