package sqlitestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/guard/guardtest"
	"github.com/limbo-toolkit/limbo/internal/testfile"
)

// BenchmarkSQLiteKeyedWrite is one guarded write through the durable
// store: Begin (the key recorded in flight) and Finish (the result
// recorded), each committed before it returns, from 1, 8 and 64 callers at
// once. writes/s is the throughput; transitions/commit the mean group
// commit.
func BenchmarkSQLiteKeyedWrite(b *testing.B) {
	for _, conc := range []int{1, 8, 64} {
		b.Run(fmt.Sprintf("conc=%d", conc), func(b *testing.B) {
			s := openAt(b, filepath.Join(b.TempDir(), "guard.db"))
			defer s.Close()
			g, err := guard.New(guard.Config{Policy: guard.Keys}, s)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			result := []byte(`{"content":[{"type":"text","text":"{\"id\":\"ch_1\",\"amount_cents\":1000}"}]}`)
			var next atomic.Int64
			before := s.Stats()
			b.ResetTimer()
			cpu := testfile.CPUSeconds()
			var wg sync.WaitGroup
			for range conc {
				wg.Go(func() {
					for {
						i := next.Add(1)
						if i > int64(b.N) {
							return
						}
						key := fmt.Sprintf("k%d", i)
						c := guard.Call{Tool: "charge", Fingerprint: key, Key: key}
						now := guardtest.At(float64(i))
						d, err := g.Begin(ctx, c, now)
						if err != nil || d.Outcome != guard.Forward {
							b.Errorf("begin %s: %s %v", key, d.Outcome, err)
							return
						}
						if err := g.Finish(ctx, d.Ticket, guard.Succeeded, result, now); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.StopTimer()
			after := s.Stats()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "writes/s")
			if c := testfile.CPUSeconds(); c > 0 {
				b.ReportMetric((c-cpu)*1e9/float64(b.N), "cpu-ns/op")
			}
			if c := after.Commits - before.Commits; c > 0 {
				b.ReportMetric(float64(after.Transitions-before.Transitions)/float64(c), "transitions/commit")
			}
		})
	}
}

// BenchmarkFsync is the floor under a durable commit on this disk: 4 KiB
// written at the end of a file and fsynced.
func BenchmarkFsync(b *testing.B) {
	f, err := os.Create(filepath.Join(b.TempDir(), "sync"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	page := make([]byte, 4096)
	cpu := testfile.CPUSeconds()
	for b.Loop() {
		if _, err := f.Write(page); err != nil {
			b.Fatal(err)
		}
		if err := f.Sync(); err != nil {
			b.Fatal(err)
		}
	}
	if c := testfile.CPUSeconds(); c > 0 {
		b.ReportMetric((c-cpu)*1e9/float64(b.N), "cpu-ns/op")
	}
}
