//go:build !unix

package outfile

import (
	"errors"
	"os"
)

// Without flock a live temporary file cannot be told from a stale one, so
// CleanStale removes nothing, and Lock does not exclude.
const canLock = false

func lockFD(f *os.File, wait bool) error { return nil }

func openForLock(path string, create bool) (f *os.File, created bool, err error) {
	if create {
		if f, err = os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			return f, true, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, false, err
		}
	}
	f, err = os.OpenFile(path, os.O_RDONLY, 0)
	return f, false, err
}
