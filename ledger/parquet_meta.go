package ledger

import (
	"fmt"
	"os"

	"github.com/apache/arrow-go/v18/parquet/file"
)

// ParquetKeyValue returns the value of key in the key-value metadata of
// the Parquet file at path; ok is false when the file has no such key. A
// file that is not Parquet is an error naming it.
func ParquetKeyValue(path, key string) (value string, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close() // r.Close closes it too; a second Close is harmless
	defer parquetPanic(path, &err)
	r, err := file.NewParquetReader(f)
	if err != nil {
		return "", false, fmt.Errorf("%s: not a readable Parquet file: %w", path, err)
	}
	v := r.MetaData().KeyValueMetadata().FindValue(key)
	if v == nil {
		return "", false, nil
	}
	return *v, true, nil
}
