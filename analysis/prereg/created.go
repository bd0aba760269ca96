package prereg

import (
	"fmt"
	"time"

	"github.com/limbo-toolkit/limbo/ledger"
)

// CreatedKey is the Parquet key-value metadata that records when a
// ledger was created (RFC 3339); a foreign ledger may carry it.
const CreatedKey = "created_utc"

// ParseCreated parses a ledger creation time: RFC 3339 (a zone is
// required, so the instant is unambiguous).
func ParseCreated(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not an RFC 3339 time such as 2026-03-01T12:00:00Z", s)
	}
	return t, nil
}

// ParquetCreated returns the created_utc key-value metadata of the
// Parquet file at path; ok is false when the file has none. A value that
// is not a time is an error naming the file and the key.
func ParquetCreated(path string) (t time.Time, ok bool, err error) {
	v, ok, err := ledger.ParquetKeyValue(path, CreatedKey)
	if err != nil || !ok {
		return time.Time{}, false, err
	}
	if t, err = ParseCreated(v); err != nil {
		return time.Time{}, false, fmt.Errorf("%s: Parquet metadata %s: %w", path, CreatedKey, err)
	}
	return t, true, nil
}
