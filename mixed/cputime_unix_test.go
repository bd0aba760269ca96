//go:build unix

package mixed

import "syscall"

// cpuSeconds is the process's user+system CPU time: the benchmark machine
// is shared, so BenchmarkFitLogitCrossed reports CPU per fit beside wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	tv := func(t syscall.Timeval) float64 { return float64(t.Sec) + float64(t.Usec)/1e6 }
	return tv(ru.Utime) + tv(ru.Stime)
}
