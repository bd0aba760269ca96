// Package ledger defines the LIMBO episode ledger (episodes, calls and
// effects), validates it and reads and writes it as JSONL, CSV and Parquet.
//
// The schema is the contract of DESIGN §3 and docs/ledger.md: every other
// package reads and writes these types, and users' harnesses produce them.
package ledger
