//go:build !unix

package stats

func cpuSeconds() float64 { return 0 }
