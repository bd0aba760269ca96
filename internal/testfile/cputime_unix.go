//go:build unix

package testfile

import "syscall"

// CPUSeconds is the process's user plus system CPU time, so that
// benchmarks on a shared machine can report CPU per operation next to
// wall time (0 where the system does not say).
func CPUSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
