package mcp

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"
)

// FileLock is an exclusive lock on a ledger, held through a sibling lock
// file (LEDGER.lock) for as long as one process appends to it: two drives
// (or serves) on one ledger would otherwise run every episode twice.
// The lock is advisory (flock(2)), so the kernel drops it when its holder
// dies, and a killed run never leaves a stale lock behind.
type FileLock struct {
	f    *os.File
	path string
}

// ErrLocked is wrapped by LockFile's error when another process holds the
// lock.
var ErrLocked = errors.New("in use by another process")

// LockPath is the lock file of a ledger.
func LockPath(ledgerPath string) string { return ledgerPath + ".lock" }

// LockFile takes the exclusive lock of target without waiting. The lock
// file records who holds it (process id, host, command line, start time)
// so that a second run can say so. The lock file is removed on Unlock.
func LockFile(target string) (*FileLock, error) {
	path := LockPath(target)
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, fmt.Errorf("%s: lock: %w", target, err)
		}
		if err := flock(f); err != nil {
			f.Close()
			if !errors.Is(err, errWouldBlock) {
				return nil, fmt.Errorf("%s: lock %s: %w", target, path, err)
			}
			holder, _ := os.ReadFile(path)
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "an unknown process"
			}
			return nil, fmt.Errorf("%s: %w: held by %s (lock file %s)", target, ErrLocked, who, path)
		}
		// The holder before us may have removed the file between our open
		// and our lock: then we locked an unlinked inode that nobody else
		// sees, and must start over on the file now at path.
		if same, err := sameFile(f, path); err != nil || !same {
			f.Close()
			if attempt < 10 {
				continue
			}
			return nil, fmt.Errorf("%s: lock %s keeps changing under us", target, path)
		}
		host, _ := os.Hostname()
		who := fmt.Sprintf("pid %d on %s since %s: %s\n", os.Getpid(), host,
			time.Now().UTC().Format(time.RFC3339), strings.Join(os.Args, " "))
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(who), 0)
		}
		return &FileLock{f: f, path: path}, nil
	}
}

func sameFile(f *os.File, path string) (bool, error) {
	a, err := f.Stat()
	if err != nil {
		return false, err
	}
	b, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	return os.SameFile(a, b), nil
}

// Unlock removes the lock file and releases the lock (in that order, so
// that whoever takes the lock next finds no stale holder's file).
func (l *FileLock) Unlock() error {
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
