package ledger

import (
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// Benchmarks for the targets of the ledger issue (rows per second are
// reported as a metric):
//
//	go test -run='^$' -bench=. -benchmem ./ledger/

const benchRows = 50_000

// benchFile writes benchRows synthetic episodes (or raw episodes with
// nCalls calls and effects each) in the format of ext.
func benchFile(b *testing.B, ext string, nCalls int) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench"+ext)
	if nCalls > 0 {
		f, err := CreateRaw(path)
		if err != nil {
			b.Fatal(err)
		}
		for i := range benchRows {
			if err := f.Write(synthRaw(i, nCalls)); err != nil {
				b.Fatal(err)
			}
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
		return path
	}
	w, err := CreateEpisodes(path, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range benchRows {
		if err := w.Write(synthEpisode(i)); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// reportRows reports throughput against wall-clock time (rows/s) and
// against the process's CPU time (rows/cpu-s): on a shared machine the
// second is the one that says what the code costs.
func reportRows(b *testing.B, rows int) {
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// cpuClock measures the CPU time the process spends from start to stop.
type cpuClock struct{ start time.Duration }

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func startCPU(b *testing.B) *cpuClock {
	b.ResetTimer()
	return &cpuClock{start: cpuNow()}
}

func (c *cpuClock) report(b *testing.B, rows int) {
	b.ReportMetric(float64(rows)*float64(b.N)/(cpuNow()-c.start).Seconds(), "rows/cpu-s")
	reportRows(b, rows)
}

// toParquet converts in to a Parquet episode table (validating every row).
func toParquet(b *testing.B, in string, opt ReadOptions) {
	out := filepath.Join(b.TempDir(), "out.parquet")
	clk := startCPU(b)
	for b.Loop() {
		w, err := CreateEpisodes(out, "", nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := ReadEpisodes(in, opt, w.Write); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	clk.report(b, benchRows)
}

// The writers copy what they are given, so conversion reads with Reuse
// (as export can); the Keep variants hand fn episodes it may keep.
func BenchmarkCSVToParquet(b *testing.B) {
	toParquet(b, benchFile(b, ".csv", 0), ReadOptions{Reuse: true})
}
func BenchmarkCSVToParquetKeep(b *testing.B) { toParquet(b, benchFile(b, ".csv", 0), ReadOptions{}) }
func BenchmarkGradedJSONLToParquet(b *testing.B) {
	toParquet(b, benchFile(b, ".jsonl", 0), ReadOptions{Reuse: true})
}
func BenchmarkGradedJSONLToParquetKeep(b *testing.B) {
	toParquet(b, benchFile(b, ".jsonl", 0), ReadOptions{})
}

// Raw JSONL with 10 calls and 10 effects per episode: read, validate and
// grade (with a trivial grader) every line.
func BenchmarkRawJSONLRead(b *testing.B) {
	in := benchFile(b, ".jsonl", 10)
	clk := startCPU(b)
	for b.Loop() {
		n := 0
		if err := ReadGraded(in, ReadOptions{Grader: testGrader}, func(*Episode, *RawEpisode) error { n++; return nil }); err != nil || n != benchRows {
			b.Fatal(err, n)
		}
	}
	clk.report(b, benchRows)
}

// Raw JSONL → episodes, calls and effects in Parquet (what export does).
func BenchmarkRawJSONLToParquet(b *testing.B) {
	in := benchFile(b, ".jsonl", 10)
	dir := b.TempDir()
	clk := startCPU(b)
	for b.Loop() {
		w, _ := CreateEpisodes(filepath.Join(dir, "x.parquet"), "", nil)
		cw, _ := CreateCalls(filepath.Join(dir, "x.calls.parquet"))
		ew, _ := CreateEffects(filepath.Join(dir, "x.effects.parquet"))
		err := ReadGraded(in, ReadOptions{Grader: testGrader}, func(e *Episode, r *RawEpisode) error {
			for i := range r.Calls {
				cw.Write(&r.Calls[i])
			}
			for i := range r.Effects {
				ew.Write(&r.Effects[i])
			}
			return w.Write(e)
		})
		if err != nil {
			b.Fatal(err)
		}
		w.Close()
		cw.Close()
		ew.Close()
	}
	clk.report(b, benchRows)
}

func benchParquetRead(b *testing.B, cols []string, reuse bool) {
	in := benchFile(b, ".parquet", 0)
	clk := startCPU(b)
	for b.Loop() {
		n := 0
		if err := ReadEpisodes(in, ReadOptions{Columns: cols, Reuse: reuse}, func(*Episode) error { n++; return nil }); err != nil || n != benchRows {
			b.Fatal(err, n)
		}
	}
	clk.report(b, benchRows)
}

// The columns a typical analysis command needs.
var analysisCols = []string{"model", "condition", "fault_mode", "fault_fired", "eos", "duplicated", "weight"}

// Analysis commands keep the episodes (Keep); a streaming consumer such
// as validate or export need not (Reuse).
func BenchmarkParquetReadColumns(b *testing.B)      { benchParquetRead(b, analysisCols, false) }
func BenchmarkParquetReadColumnsReuse(b *testing.B) { benchParquetRead(b, analysisCols, true) }
func BenchmarkParquetReadAll(b *testing.B)          { benchParquetRead(b, nil, false) }

// TestWriteBigLedger writes a large synthetic ledger for measuring
// validate's peak memory by hand; it runs only when LIMBO_BIG_LEDGER names
// the output (e.g. /tmp/big.csv) and LIMBO_BIG_ROWS its size:
//
//	LIMBO_BIG_LEDGER=/tmp/big.csv LIMBO_BIG_ROWS=1000000 go test -run TestWriteBigLedger ./ledger/
//	/usr/bin/time -v limbo-analyze validate /tmp/big.csv
func TestWriteBigLedger(t *testing.T) {
	path := os.Getenv("LIMBO_BIG_LEDGER")
	if path == "" {
		t.Skip("set LIMBO_BIG_LEDGER (and LIMBO_BIG_ROWS) to write a big ledger")
	}
	n, err := strconv.Atoi(os.Getenv("LIMBO_BIG_ROWS"))
	if err != nil {
		n = 1_000_000
	}
	w, err := CreateEpisodes(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if err := w.Write(synthEpisode(i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkPartitionedWrite writes the benchmark ledger as a dataset of
// 48 partitions (model × template) and reads
// it back as one ledger: the cost of export --partition-by and --in DIR.
func BenchmarkPartitionedWrite(b *testing.B) {
	in := benchFile(b, ".parquet", 0)
	base := b.TempDir()
	n := 0
	clk := startCPU(b)
	for b.Loop() {
		n++
		dir := filepath.Join(base, "ds"+strconv.Itoa(n))
		w, err := CreatePartitioned(dir, []string{"model", "template"}, "", nil)
		if err != nil {
			b.Fatal(err)
		}
		if err := ReadEpisodes(in, ReadOptions{Reuse: true}, w.Write); err != nil {
			b.Fatal(err)
		}
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
		if err := ReadEpisodes(dir, ReadOptions{Reuse: true}, func(*Episode) error { return nil }); err != nil {
			b.Fatal(err)
		}
		os.RemoveAll(dir)
	}
	clk.report(b, benchRows)
}
