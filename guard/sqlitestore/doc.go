// Package sqlitestore is the durable guard.Store: one SQLite file (WAL
// mode, synchronous=FULL) whose table guard_keys holds a row per key,
// readable with any SQLite tool. Every transition is committed before
// Update returns, and concurrent transitions are group-committed: one
// writer applies every pending Update in one transaction with one fsync, so
// throughput grows with concurrency while each transition is still durable
// before its caller is answered. Opening a file whose process died turns
// its attempts in flight into unknown outcomes (guard.Restarted).
//
// It uses modernc.org/sqlite, a SQLite in pure Go, so binaries that import
// it build with CGO_ENABLED=0. One process writes a file at a time.
// docs/guard.md describes the table.
package sqlitestore
