//go:build !unix

package analysis

func cpuSeconds() float64 { return 0 }
