//go:build !unix

package testfile

// CPUSeconds is 0 where getrusage is missing.
func CPUSeconds() float64 { return 0 }
