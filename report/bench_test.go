package report

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// benchReportRows is the default size of BenchmarkReport's ledger; set
// $LIMBO_BENCH_REPORT_ROWS for a bigger one (the speed goal is set at 10M
// rows on the whole command: `limbo-analyze report` within 30 s and 2 GiB).
const benchReportRows = 100_000

// BenchmarkReport runs the whole report (read, every table and hypothesis,
// figures, files) on a Parquet ledger generated here from the sample
// ledger, replicated with suffixed episode_id, task and pair_key as
// bench/gen does, so that clusters and pairs grow with the rows:
//
//	LIMBO_BENCH_REPORT_ROWS=1000000 go test ./report/ -run '^$' -bench Report -benchtime 3x
//
// It reports ns/row and the live heap per row after the run's read
// (heapB/row), the quantity that bounds the process's peak memory.
func BenchmarkReport(b *testing.B) {
	rows := benchReportRows
	if s := os.Getenv("LIMBO_BENCH_REPORT_ROWS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			b.Fatalf("LIMBO_BENCH_REPORT_ROWS=%q: want a positive row count", s)
		}
		rows = n
	}
	in := writeBenchLedger(b, rows)
	var heap uint64
	j := Job{In: in, Meta: Meta{Toolkit: "bench", Schema: ledger.SchemaVersion, Go: "go"},
		ReadDone: func() {
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			heap = ms.HeapAlloc
		},
		Analyze: func(d *table.Data) *paper.Results {
			return paper.Analyze(d, paper.Options{Tools: paper.NativeTools()})
		},
		Warn: func(string) {}}
	dir := b.TempDir()
	i := 0
	for b.Loop() {
		j.Out = filepath.Join(dir, strconv.Itoa(i))
		i++
		w, err := Generate(j)
		if err != nil {
			b.Fatal(err)
		}
		if w.Episodes != rows {
			b.Fatalf("report of %d episodes, want %d", w.Episodes, rows)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(rows), "ns/row")
	b.ReportMetric(float64(heap)/float64(rows), "heapB/row")
}

// writeBenchLedger writes rows episodes, the sample ledger's replicated,
// to a Parquet file in a temporary directory.
func writeBenchLedger(b *testing.B, rows int) string {
	b.Helper()
	d, err := table.Read(sampleLedger, ledger.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(b.TempDir(), "bench.parquet")
	w, err := ledger.CreateEpisodes(path, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	defer w.Abort()
	eps := d.Episodes()
	for i := range rows {
		rep, k := i/len(eps), i%len(eps)
		e := *eps[k]
		if rep > 0 {
			suf := "~r" + strconv.Itoa(rep)
			e.EpisodeID += suf
			e.Task += suf
			e.PairKey += suf
		}
		if err := w.Write(&e); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}
