package table

import (
	"path/filepath"
	"strconv"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/formula"
	"github.com/limbo-toolkit/limbo/ledger"
)

// The Data benchmarks hold a 1M-row ledger (the sample's episodes
// replicated, ids, tasks and pair keys suffixed so that those columns
// have a value per replicate; nothing committed) as columns: read from
// Parquet (the text columns interned into their frame.Coded columns),
// appended episode by episode, and scanned through a --where as the
// engine's frames and pairings scan it:
//
//	go test ./analysis/table/ -run '^$' -bench . -benchtime 3x

const benchRows = 1_000_000

// benchEpisodes returns about benchRows episodes.
func benchEpisodes(b *testing.B) []*ledger.Episode {
	b.Helper()
	base := sample(b)
	eps := make([]*ledger.Episode, 0, benchRows)
	for r := 0; len(eps) < benchRows; r++ {
		suf := "~" + strconv.Itoa(r)
		for _, e0 := range base {
			e := *e0
			e.EpisodeID += suf
			e.Task += suf
			e.PairKey += suf
			eps = append(eps, &e)
		}
	}
	return eps
}

// benchParquet writes the episodes to a Parquet file.
func benchParquet(b *testing.B, eps []*ledger.Episode) string {
	b.Helper()
	path := filepath.Join(b.TempDir(), "bench.parquet")
	w, err := ledger.CreateEpisodes(path, "", nil)
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range eps {
		if err := w.Write(e); err != nil {
			b.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return path
}

// BenchmarkReadParquet is Read of a Parquet ledger by columns.
func BenchmarkReadParquet(b *testing.B) {
	path := benchParquet(b, benchEpisodes(b))
	for b.Loop() {
		d, err := Read(path, ledger.ReadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if d.Len() < benchRows {
			b.Fatalf("%d rows", d.Len())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

// BenchmarkAppend is NewData of episodes held in memory.
func BenchmarkAppend(b *testing.B) {
	eps := benchEpisodes(b)
	for b.Loop() {
		if d := NewData(eps); d.Len() != len(eps) {
			b.Fatalf("%d rows", d.Len())
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}

// BenchmarkHeldFilter is Filter over a held Data: batches of the text
// columns' codes (pair_key's among them) through a --where.
func BenchmarkHeldFilter(b *testing.B) {
	d, err := Read(benchParquet(b, benchEpisodes(b)), ledger.ReadOptions{})
	if err != nil {
		b.Fatal(err)
	}
	w, err := formula.ParseWhere(`experiment == "E2" && fault_fired`)
	if err != nil {
		b.Fatal(err)
	}
	cols := []string{"pair_key", "condition", "task", "eos"}
	for b.Loop() {
		var n int64
		_, kept, err := Filter(Held(d, nil), w, cols, nil, func(bt *Batch, kept []int32) error {
			for _, r := range kept {
				n += int64(bt.Vec.Cols[0].Codes[r])
			}
			return nil
		})
		if err != nil || kept == 0 || n < 0 {
			b.Fatalf("kept %d: %v", kept, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/benchRows, "ns/row")
}
