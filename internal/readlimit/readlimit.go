// Package readlimit reads the small files a user names (a
// preregistration, its lock, a design manifest, agent profiles, a run's
// sidecar) with a bound on their size, so that a wrong path (/dev/zero, a
// ledger given where a manifest belongs) fails at once with an error
// naming the file and the limit instead of taking the machine's memory.
package readlimit

import (
	"fmt"
	"io"
	"os"
)

// Limits of the files the toolkit reads whole.
const (
	// Prereg bounds a preregistration file (20,000 hypotheses take 4 MB).
	Prereg = 64 << 20
	// Lock bounds a preregistration's lock file (a few hundred bytes).
	Lock = 1 << 20
	// Manifest bounds a design manifest, a run's sidecar and agent
	// profiles.
	Manifest = 64 << 20
)

// TooLargeError says that a file exceeds its limit.
type TooLargeError struct {
	Path  string
	What  string // what the file is, as a noun: "a preregistration"
	Limit int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s: larger than %s, the limit for %s; is it the right file?", e.Path, Bytes(e.Limit), e.What)
}

// Bytes renders n as a whole number of MiB or KiB where exact, else bytes.
func Bytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// ReadFile reads the file at path whole, or fails with a *TooLargeError
// once it is longer than limit bytes (what names the kind of file in the
// message). It never reads more than limit+1 bytes, so a device or pipe
// that never ends fails as fast as a large file.
func ReadFile(path, what string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
		return nil, &TooLargeError{Path: path, What: what, Limit: limit}
	}
	return Read(f, path, what, limit)
}

// Read reads r whole, or fails with a *TooLargeError naming name once it
// yields more than limit bytes.
func Read(r io.Reader, name, what string, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, &TooLargeError{Path: name, What: what, Limit: limit}
	}
	return data, nil
}
