package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
)

// benchLedger returns the episode table the CLI benchmarks read:
// $LIMBO_BENCH_EPISODES if set (bench/run.sh points it at one simulated
// copy), else the paper design simulated into a temporary directory.
func benchLedger(b *testing.B) (path string, rows int) {
	b.Helper()
	path = os.Getenv("LIMBO_BENCH_EPISODES")
	if path == "" {
		path = filepath.Join(b.TempDir(), "paper.parquet")
		raw := filepath.Join(filepath.Dir(path), "paper.jsonl")
		if code := run([]string{"simulate", "--out", raw, "--episodes", path}, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("simulate: exit %d", code)
		}
	}
	if err := ledger.ReadEpisodes(path, ledger.ReadOptions{Columns: []string{"seed"}}, func(*ledger.Episode) error { rows++; return nil }); err != nil {
		b.Fatal(err)
	}
	return path, rows
}

// benchCLI runs one limbo-analyze command line over the bench ledger per
// iteration and reports rows per second.
func benchCLI(b *testing.B, args ...string) {
	path, rows := benchLedger(b)
	args = append(args, "--in", path)
	c0 := testfile.CPUSeconds()
	for b.Loop() {
		var stderr strings.Builder
		if code := run(args, nil, io.Discard, &stderr); code != 0 {
			b.Fatalf("%v: exit %d: %s", args, code, stderr.String())
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	// CPU time too: on a shared, loaded machine wall time mostly measures
	// waiting for a core.
	b.ReportMetric((testfile.CPUSeconds()-c0)*1000/float64(b.N), "cpu-ms/op")
}

const benchFormula = "duplicated ~ contract + fault_mode + model + harness"

func BenchmarkCLIRates(b *testing.B) {
	benchCLI(b, "rates", "--outcome", "duplicated", "--by", "contract,fault_mode")
}

func BenchmarkCLIPaired(b *testing.B) {
	benchCLI(b, "paired", "--outcome", "duplicated", "--arm", "condition", "--base", "vanilla", "--pair-by", "pair_key,contract")
}

func BenchmarkCLIShapley(b *testing.B) { benchCLI(b, "shapley", "--formula", benchFormula) }

func BenchmarkCLIModelLogit(b *testing.B) {
	benchCLI(b, "model", "--family", "logit", "--formula", benchFormula)
}

func BenchmarkCLIModelGEE(b *testing.B) {
	benchCLI(b, "model", "--family", "gee", "--formula", "eos ~ condition + contract", "--group", "task")
}

func BenchmarkCLIModelGLMM(b *testing.B) {
	benchCLI(b, "model", "--family", "glmm", "--formula", "duplicated ~ contract + (1|model)")
}

// BenchmarkCLIReport is issue 25's whole report (every table, hypothesis
// and figure, written to a directory) on the bench ledger; with
// LIMBO_BENCH_EPISODES at bench/gen's 10M rows and -cpuprofile it shows
// where the report's time goes.
func BenchmarkCLIReport(b *testing.B) {
	benchCLI(b, "report", "--out", filepath.Join(b.TempDir(), "report"))
}
