//go:build unix

package outfile

import (
	"errors"
	"os"
	"syscall"
)

const canLock = true

// lockFD takes an exclusive flock on f without waiting (wait false) or
// waiting for it. The kernel releases it when the process dies.
func lockFD(f *os.File, wait bool) error {
	how := syscall.LOCK_EX
	if !wait {
		how |= syscall.LOCK_NB
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

// openForLock opens the file at path to lock it, creating it if missing
// and create is set (created reports whether it did). It opens without
// waiting (O_NONBLOCK), so that a FIFO at path does not hang the lock.
func openForLock(path string, create bool) (f *os.File, created bool, err error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK
	if create {
		if f, err = os.OpenFile(path, flags|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
			return f, true, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return nil, false, err
		}
	}
	f, err = os.OpenFile(path, flags, 0)
	return f, false, err
}
