package analysis

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"
	"github.com/limbo-toolkit/limbo/ledger"
)

// parquetSeed writes eps as a Parquet ledger and returns its bytes.
func parquetSeed(f *testing.F, eps []*ledger.Episode) []byte {
	f.Helper()
	path := filepath.Join(f.TempDir(), "seed.parquet")
	ledgertest.WriteParquet(f, path, eps)
	b, err := os.ReadFile(path)
	if err != nil {
		f.Fatal(err)
	}
	return b
}

// FuzzReadParquet reads arbitrary bytes as a Parquet ledger: Read (the
// column scan into Data, with its fall-back to the row reader) must never
// panic, and must agree with the row reader: both reject the file, or both
// give the same episodes.
//
//	go test ./analysis/ -run '^$' -fuzz FuzzReadParquet -fuzztime 60s
func FuzzReadParquet(f *testing.F) {
	whole := parquetSeed(f, wideEpisodes(40))
	f.Add(whole)
	f.Add(whole[:len(whole)/2])
	// A few single-byte changes in the data pages, ahead of the footer, so
	// the corpus starts with files whose metadata still parses.
	for _, at := range []int{8, len(whole) / 4, len(whole) / 3} {
		b := bytes.Clone(whole)
		b[at] ^= 0x5a
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "in.parquet")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		var rows []*ledger.Episode
		rowErr := ledger.ReadEpisodes(path, ledger.ReadOptions{}, func(e *ledger.Episode) error {
			c := *e
			rows = append(rows, &c)
			return nil
		})
		d, err := table.Read(path, ledger.ReadOptions{})
		switch {
		case err != nil && rowErr != nil:
			return
		case err != nil:
			t.Fatalf("Read failed (%v) where the row reader read %d episodes", err, len(rows))
		case rowErr != nil:
			t.Fatalf("Read gave %d episodes where the row reader failed: %v", d.Len(), rowErr)
		}
		got := d.Episodes()
		if len(got) != len(rows) {
			t.Fatalf("Read gave %d episodes, the row reader %d", len(got), len(rows))
		}
		for i := range rows {
			if !reflect.DeepEqual(got[i], rows[i]) {
				t.Fatalf("episode %d:\n Read       %+v\n row reader %+v", i, got[i], rows[i])
			}
		}
	})
}

// TestReadParquetCorrupt is FuzzReadParquet's property on a fixed set of
// seeded random corruptions of a small ledger (one to three bytes each):
// among them are files on which arrow-go panics (an unknown logical type in
// the footer), which must come back as an error naming the file.
func TestReadParquetCorrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 300 corrupt files; some make arrow-go allocate for a while")
	}
	path := filepath.Join(t.TempDir(), "seed.parquet")
	ledgertest.WriteParquet(t, path, wideEpisodes(40))
	whole, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	failed := 0
	for k := range 300 {
		b := bytes.Clone(whole)
		for range 1 + r.IntN(3) {
			b[r.IntN(len(b))] = byte(r.IntN(256))
		}
		in := filepath.Join(t.TempDir(), "in.parquet")
		if err := os.WriteFile(in, b, 0o644); err != nil {
			t.Fatal(err)
		}
		rowErr := ledger.ReadEpisodes(in, ledger.ReadOptions{}, func(*ledger.Episode) error { return nil })
		_, err := table.Read(in, ledger.ReadOptions{})
		if (err == nil) != (rowErr == nil) {
			t.Errorf("corruption %d: Read error %v, row reader error %v", k, err, rowErr)
		}
		if err != nil {
			failed++
			if !strings.Contains(err.Error(), in) {
				t.Errorf("corruption %d: error %q does not name the file", k, err)
			}
		}
	}
	if failed == 0 {
		t.Fatal("no corruption was rejected: the test exercises nothing")
	}
	t.Logf("%d of 300 corrupt files rejected", failed)
}
