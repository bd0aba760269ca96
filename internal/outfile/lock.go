package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Lock is an exclusive, advisory lock on a file path, held by one process
// at a time (for example the output ledger a long run appends to). It is a
// flock on a hidden lock file beside the path, which records the holder; the
// kernel releases it when the process exits, however it exits.
type Lock struct {
	f *os.File
}

// LockedError says that another process holds the lock on Path.
type LockedError struct {
	Path   string
	Holder string // what the holder wrote when it took the lock; may be empty
}

func (e *LockedError) Error() string {
	if e.Holder == "" {
		return fmt.Sprintf("%s is in use by another process", e.Path)
	}
	return fmt.Sprintf("%s is in use by another process (%s)", e.Path, e.Holder)
}

// LockPath returns the lock file of path: .NAME.lock beside it.
func LockPath(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, "."+base+".lock")
}

// TryLock takes the exclusive lock on path without waiting. holder
// describes this process to a second one (e.g. "pid 4711, limbo-analyze
// drive"); a holder of "" records the process id. If another process holds
// the lock it returns a *LockedError naming the holder.
func TryLock(path, holder string) (*Lock, error) {
	lp := LockPath(path)
	if dir := filepath.Dir(lp); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
	}
	f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if err := lockFD(f, false); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			b := make([]byte, 512)
			n, _ := f.ReadAt(b, 0)
			return nil, &LockedError{Path: path, Holder: strings.TrimSpace(string(bytes.ToValidUTF8(b[:n], nil)))}
		}
		return nil, fmt.Errorf("lock %s: %w", path, err)
	}
	if holder == "" {
		holder = fmt.Sprintf("pid %d", os.Getpid())
	}
	// The record is informative only: the flock is the lock.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(holder+"\n"), 0)
	}
	return &Lock{f: f}, nil
}

// Unlock releases the lock. The lock file stays: removing it could let two
// processes lock two different files of the same name.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
