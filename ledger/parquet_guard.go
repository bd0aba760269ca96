package ledger

import "fmt"

// parquetPanic turns a panic of the Parquet library into a Problem naming
// the file. arrow-go panics on some malformed footers and pages (an
// unknown logical type, a truncated page header) instead of returning an
// error; a ledger is user input, and user input must never crash the
// process. Use it as `defer parquetPanic(path, &err)` at the boundary of
// a read.
func parquetPanic(path string, err *error) {
	if r := recover(); r != nil {
		*err = Problem{File: path, Msg: fmt.Sprintf("not a readable Parquet file: the Parquet reader failed on it (%v)", r)}
	}
}
