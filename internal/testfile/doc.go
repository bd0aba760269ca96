// Package testfile holds the helpers that several packages' tests share:
// reading the committed test data (gzipped sample ledgers, CSV reference
// tables) and comparing outputs with golden files (CheckGolden: a line
// diff on a mismatch, a rewrite under the package's -update flag), so
// that each test package does not carry its own copy. It is imported by tests only, and imports
// the standard library only, so that it can never form an import cycle
// with the package under test.
package testfile
