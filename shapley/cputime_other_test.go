//go:build !unix

package shapley_test

func cpuSeconds() float64 { return 0 }
