package outfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Lock is an exclusive, advisory lock on a file, held by one process at a
// time (for example the output ledger a long run appends to). It is a flock
// on the file itself, so it belongs to the file's identity (its device and
// inode), not to the name it was reached by: a symlink or a hard link to a
// locked file finds it locked. The kernel releases it when the process
// exits, however it exits, so a killed run never leaves a stale lock. A
// holder record (who holds it) is written to LockPath of the file's real
// path, for a second process to name the holder; the record is
// informative only.
type Lock struct {
	f       *os.File
	path    string // the file as given
	record  string // the holder record; "" for none
	created bool   // TryLock created the file, so Unlock removes it if still empty
}

// ErrLocked is wrapped by every *LockedError, for errors.Is.
var ErrLocked = errors.New("in use by another process")

// LockedError says that another process holds the lock on Path.
type LockedError struct {
	Path   string
	Holder string // what the holder wrote when it took the lock; may be empty
	Record string // where the holder record was looked for; may be empty
}

func (e *LockedError) Error() string {
	if e.Holder == "" && e.Record == "" {
		return fmt.Sprintf("%s is in use by another process", e.Path)
	}
	if e.Holder == "" {
		return fmt.Sprintf("%s is in use by another process (it wrote no holder record at %s: it may use another name of this file, such as a hard link)", e.Path, e.recordPath())
	}
	return fmt.Sprintf("%s is in use by another process: held by %s (lock file %s)", e.Path, e.Holder, e.recordPath())
}

func (e *LockedError) recordPath() string {
	if e.Record != "" {
		return e.Record
	}
	return LockPath(e.Path)
}

// Unwrap makes errors.Is(err, ErrLocked) hold.
func (e *LockedError) Unwrap() error { return ErrLocked }

// LockPath returns the holder record of path: PATH.lock beside it. TryLock
// writes it beside the file's real path (symlinks resolved).
func LockPath(path string) string { return path + ".lock" }

// maxRecord bounds what is read of a holder record.
const maxRecord = 512

// TryLock takes the exclusive lock on the file at path without waiting,
// creating the file (and its directory) if it is missing; Unlock removes a
// file it created that is still empty, so locking alone leaves nothing.
// holder describes this process to a second one; "" records the process
// id, host, start time and command line. If another process holds the lock
// (through any name of the file) it returns a *LockedError naming the
// holder when its record is found.
func TryLock(path, holder string) (*Lock, error) {
	if holder == "" {
		host, _ := os.Hostname()
		holder = fmt.Sprintf("pid %d on %s since %s: %s", os.Getpid(), host,
			time.Now().UTC().Format(time.RFC3339), strings.Join(os.Args, " "))
	}
	return tryLock(path, holder, true)
}

// TryLockFile takes the same lock on the existing file (or directory) at
// path without writing a holder record, for a file whose PATH.lock means
// something else (a preregistration's) or a directory that must hold
// nothing but its outputs (a report's). A missing file is an error.
func TryLockFile(path string) (*Lock, error) { return tryLock(path, "", false) }

func tryLock(path, holder string, create bool) (*Lock, error) {
	if create {
		if dir := filepath.Dir(path); dir != "" {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, fmt.Errorf("lock %s: %w", path, err)
			}
		}
	}
	for attempt := 0; ; attempt++ {
		f, created, err := openForLock(path, create)
		if err != nil && !create {
			return nil, err // a *PathError naming the file, as a read's would
		}
		if err != nil {
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		record := ""
		if create {
			record = LockPath(realPath(path))
		}
		if err := lockFD(f, false); err != nil {
			f.Close()
			if errors.Is(err, syscall.EWOULDBLOCK) {
				return nil, &LockedError{Path: path, Holder: readRecord(record), Record: record}
			}
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		// A holder that created the file removes it on Unlock (and a
		// writer may rename another file over it): if that happened
		// between our open and our flock, we hold an inode no longer at
		// path, and must start over on the file now there.
		if !sameInode(f, path) {
			f.Close()
			if attempt < 10 {
				continue
			}
			return nil, fmt.Errorf("lock %s: the file keeps changing", path)
		}
		l := &Lock{f: f, path: path, created: created}
		if record != "" {
			// The record is informative only: the flock is the lock.
			if os.WriteFile(record, []byte(holder+"\n"), 0o644) == nil {
				l.record = record
			}
		}
		return l, nil
	}
}

// realPath is path with its symlinks resolved (path itself if that fails),
// so that every name of a file through symlinks finds one holder record.
func realPath(path string) string {
	if r, err := filepath.EvalSymlinks(path); err == nil {
		return r
	}
	return path
}

// readRecord returns the first maxRecord bytes of a holder record, as
// valid UTF-8 without surrounding space; "" if there is none.
func readRecord(path string) string {
	if path == "" {
		return ""
	}
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxRecord))
	return strings.TrimSpace(string(bytes.ToValidUTF8(b, nil)))
}

func sameInode(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// Unlock removes the holder record and a file that TryLock created and
// nothing was written to, then releases the lock (in that order, so that
// whoever locks next finds no stale holder's record).
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	var err error
	if l.created {
		if fi, serr := l.f.Stat(); serr == nil && fi.Size() == 0 && sameInode(l.f, l.path) {
			if rerr := os.Remove(l.path); rerr != nil && !errors.Is(rerr, os.ErrNotExist) {
				err = rerr
			}
		}
	}
	if l.record != "" {
		if rerr := os.Remove(l.record); rerr != nil && !errors.Is(rerr, os.ErrNotExist) && err == nil {
			err = rerr
		}
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
