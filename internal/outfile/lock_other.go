//go:build !unix

package outfile

import "os"

// Without flock a live temporary file cannot be told from a stale one, so
// CleanStale removes nothing, and Lock does not exclude.
const canLock = false

func lockFD(f *os.File, wait bool) error { return nil }
