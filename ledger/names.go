package ledger

import (
	"path/filepath"
	"strings"
)

// IsJSONLName reports whether path names a JSONL file (.jsonl or .ndjson,
// in any case): the raw ledgers that simulate, serve and drive append to
// are JSONL.
func IsJSONLName(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	return ext == ".jsonl" || ext == ".ndjson"
}

// IsLedgerName reports whether path's extension names a ledger format
// (.jsonl, .ndjson, .csv or .parquet, in any case), so that a writer can
// tell the format from it.
func IsLedgerName(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".jsonl", ".ndjson", ".csv", ".parquet":
		return true
	}
	return false
}

// IsFormat reports whether format names a ledger format a reader or
// writer takes (jsonl, ndjson, json, csv or parquet, in any case); ""
// (from the extension) counts as one.
func IsFormat(format string) bool {
	if format == "" {
		return true
	}
	_, err := formatOf("", format)
	return err == nil
}
