package paper

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// BenchmarkAnalyze runs every table and hypothesis on a graded JSONL
// ledger named by $LIMBO_BENCH_LEDGER (e.g. the paper's 25,930 episodes:
// limbo-analyze simulate --out p.jsonl --episodes p.parquet; limbo-analyze
// export --in p.parquet --out p.graded.jsonl), or on the sample ledger.
func BenchmarkAnalyze(b *testing.B) {
	d := loadSample(b)
	if p := os.Getenv("LIMBO_BENCH_LEDGER"); p != "" {
		f, err := os.Open(p)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		d = &table.Data{}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			e := new(ledger.Episode)
			if err := json.Unmarshal(sc.Bytes(), e); err != nil {
				b.Fatal(err)
			}
			d.Append(e)
		}
	}
	b.ReportMetric(float64(d.Len()), "episodes")
	for b.Loop() {
		Analyze(d, Options{})
	}
}
