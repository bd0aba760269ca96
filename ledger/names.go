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
