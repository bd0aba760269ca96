//go:build !unix

package mixed

func cpuSeconds() float64 { return 0 }
