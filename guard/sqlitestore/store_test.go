package sqlitestore_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/guard/guardtest"
	"github.com/limbo-toolkit/limbo/guard/sqlitestore"
)

func openAt(t testing.TB, path string) *sqlitestore.Store {
	t.Helper()
	s, err := sqlitestore.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// openFile opens a store in a new file; its restart closes the store and
// opens the file again, as a new process would.
func openFile(t *testing.T) (guard.Store, func() guard.Store) {
	path := filepath.Join(t.TempDir(), "guard.db")
	s := openAt(t, path)
	t.Cleanup(func() { s.Close() })
	return s, func() guard.Store {
		s.Close()
		s = openAt(t, path)
		return s
	}
}

func TestDecisionsSQLite(t *testing.T) { guardtest.Decisions(t, openFile) }

func TestSQLiteStore(t *testing.T) { guardtest.Store(t, openFile) }

// Paths with the characters a file: URI reserves open the file they name.
func TestOddPaths(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a?b.db", "c#d.db", "e%20f.db", "g h.db"} {
		path := filepath.Join(dir, name)
		s := openAt(t, path)
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(path); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 4 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("files %q, want the four named", names)
	}
}

func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	other := filepath.Join(dir, "other.db")
	s := openAt(t, other)
	s.Close()
	// Make it another application's file: a table of its own.
	run := func(path, sql string) {
		t.Helper()
		db := openRaw(t, path)
		defer db.Close()
		if _, err := db.Exec(sql); err != nil {
			t.Fatal(err)
		}
	}
	foreign := filepath.Join(dir, "foreign.db")
	run(foreign, "CREATE TABLE notes (x)")
	newer := filepath.Join(dir, "newer.db")
	s = openAt(t, newer)
	s.Close()
	run(newer, "PRAGMA user_version = 7")
	notdb := filepath.Join(dir, "text.db")
	os.WriteFile(notdb, []byte("this is not a database, just some text long enough to look like a header ............"), 0o644)
	for path, want := range map[string]string{
		foreign:                           "not a guard store",
		newer:                             "schema version 7",
		notdb:                             "text.db",
		filepath.Join(dir, "no/such/dir"): "no/such/dir",
	} {
		if _, err := sqlitestore.Open(context.Background(), path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one with %q", path, err, want)
		}
	}
}

// The schema documented in docs/guard.md is the one the store creates.
func TestSchemaDocumented(t *testing.T) {
	doc, err := os.ReadFile("../../docs/guard.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "```sql\n"+sqlitestore.Schema+"\n```") {
		t.Errorf("docs/guard.md does not hold the schema as a sql block:\n%s", sqlitestore.Schema)
	}
}

// The file is readable by another SQLite (Python's, linked to the C
// library), WAL and all: after a process is killed its committed
// transitions may still sit in the WAL.
func TestReadableByOtherSQLite(t *testing.T) {
	python, err := exec.LookPath("python3")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("python3 is not installed; CI needs it")
		}
		t.Skip("python3 is not installed")
	}
	path := filepath.Join(t.TempDir(), "guard.db")
	s := openAt(t, path)
	defer s.Close()
	ctx := context.Background()
	g, err := guard.New(guard.Config{Policy: guard.Keys}, s)
	if err != nil {
		t.Fatal(err)
	}
	c := guard.Call{Tool: "charge", Fingerprint: "fp", Key: "k1"}
	d, err := g.Begin(ctx, c, guardtest.At(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := g.Finish(ctx, d.Ticket, guard.Succeeded, []byte(`{"id":"ch_1"}`), guardtest.At(2)); err != nil {
		t.Fatal(err)
	}
	script := `import sqlite3, sys
db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
for row in db.execute("SELECT key, tool, state, attempt, began_ns, updated_ns, expires_ns, result FROM guard_keys"):
    print("|".join("" if v is None else str(v) for v in row))
`
	out, err := exec.Command(python, "-c", script, path).CombinedOutput()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, out)
	}
	want := `keys:0::k1|charge|succeeded|1|1000000000|2000000000||{"id":"ch_1"}` + "\n"
	if string(out) != want {
		t.Errorf("python3 reads %q, want %q", out, want)
	}
}
