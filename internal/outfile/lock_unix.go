//go:build unix

package outfile

import (
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
