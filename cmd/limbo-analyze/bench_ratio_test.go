package main

import (
	"io"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkReportVsSimulate times the one-command report against the
// simulation it contains, alternating the two in process: `simulate
// --design paper --seed 1 --out X.jsonl --episodes X.parquet`, then
// `report --out DIR` (which simulates the same 25,930 episodes, then writes
// every table, hypothesis and figure). It reports each command's wall and
// CPU milliseconds per op and their ratios; the target (bench/README.md)
// is report/simulate ≤ 1.3 in wall time.
func BenchmarkReportVsSimulate(b *testing.B) {
	dir := b.TempDir()
	simArgs := []string{"simulate", "--design", "paper", "--seed", "1",
		"--out", filepath.Join(dir, "x.jsonl"), "--episodes", filepath.Join(dir, "x.parquet")}
	repArgs := []string{"report", "--out", filepath.Join(dir, "report")}
	var simWall, repWall time.Duration
	var simCPU, repCPU float64
	timed := func(args []string, wall *time.Duration, cpu *float64) {
		var stderr strings.Builder
		t0, c0 := time.Now(), processCPUSeconds()
		if code := run(args, nil, io.Discard, &stderr); code != 0 {
			b.Fatalf("%s: exit %d: %s", args[0], code, stderr.String())
		}
		*wall += time.Since(t0)
		*cpu += processCPUSeconds() - c0
	}
	for b.Loop() {
		timed(simArgs, &simWall, &simCPU)
		timed(repArgs, &repWall, &repCPU)
	}
	n := float64(b.N)
	b.ReportMetric(simWall.Seconds()*1000/n, "simulate-ms/op")
	b.ReportMetric(repWall.Seconds()*1000/n, "report-ms/op")
	b.ReportMetric(repWall.Seconds()/simWall.Seconds(), "report/simulate")
	b.ReportMetric(simCPU*1000/n, "simulate-cpu-ms/op")
	b.ReportMetric(repCPU*1000/n, "report-cpu-ms/op")
	b.ReportMetric(repCPU/simCPU, "report/simulate-cpu")
}

// processCPUSeconds is the process's user+system CPU time.
func processCPUSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}
