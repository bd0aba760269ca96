package sqlitestore_test

import (
	"database/sql"
	"testing"
)

// openRaw opens a SQLite file with the driver directly.
func openRaw(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	return db
}
