package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Lock is an exclusive, advisory lock on a file path, held by one process
// at a time (for example the output ledger a long run appends to). It is a
// flock on a lock file beside the path (PATH.lock), which records the
// holder; the kernel releases it when the process exits, however it exits,
// so a killed run never leaves a stale lock.
type Lock struct {
	f    *os.File
	path string
}

// ErrLocked is wrapped by every *LockedError, for errors.Is.
var ErrLocked = errors.New("in use by another process")

// LockedError says that another process holds the lock on Path.
type LockedError struct {
	Path   string
	Holder string // what the holder wrote when it took the lock; may be empty
}

func (e *LockedError) Error() string {
	who := e.Holder
	if who == "" {
		who = "an unknown process"
	}
	return fmt.Sprintf("%s is in use by another process: held by %s (lock file %s)", e.Path, who, LockPath(e.Path))
}

// Unwrap makes errors.Is(err, ErrLocked) hold.
func (e *LockedError) Unwrap() error { return ErrLocked }

// LockPath returns the lock file of path: PATH.lock beside it.
func LockPath(path string) string { return path + ".lock" }

// TryLock takes the exclusive lock on path without waiting. holder
// describes this process to a second one; "" records the process id, host,
// start time and command line. If another process holds the lock it returns
// a *LockedError naming the holder.
func TryLock(path, holder string) (*Lock, error) {
	lp := LockPath(path)
	if dir := filepath.Dir(lp); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
	}
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(lp, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		if err := lockFD(f, false); err != nil {
			b := make([]byte, 512)
			n, _ := f.ReadAt(b, 0)
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &LockedError{Path: path, Holder: strings.TrimSpace(string(bytes.ToValidUTF8(b[:n], nil)))}
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// The previous holder removes the lock file on Unlock: if it did so
		// between our open and our flock, we hold an unlinked inode nobody
		// else sees, and must start over on the file now at lp.
		if !sameInode(f, lp) {
			f.Close()
			if attempt < 10 {
				continue
			}
			return nil, fmt.Errorf("lock %s: the lock file keeps changing", path)
		}
		if holder == "" {
			host, _ := os.Hostname()
			holder = fmt.Sprintf("pid %d on %s since %s: %s", os.Getpid(), host,
				time.Now().UTC().Format(time.RFC3339), strings.Join(os.Args, " "))
		}
		// The record is informative only: the flock is the lock.
		if f.Truncate(0) == nil {
			f.WriteAt([]byte(holder+"\n"), 0)
		}
		return &Lock{f: f, path: lp}, nil
	}
}

func sameInode(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// Unlock removes the lock file, then releases the lock (in that order, so
// that whoever locks next finds no stale holder's record).
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := os.Remove(l.path)
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
