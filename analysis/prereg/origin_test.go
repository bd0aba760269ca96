package prereg

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// TestLockOrigin: whether a lock predates the ledger, for every kind of
// origin, and the warning a lock later than the ledger gets.
func TestLockOrigin(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	path, f := lockedSkeleton(t, at)
	in := cliCSV
	eps := ledgertest.ReadEpisodes(t, in)
	tests := []struct {
		name     string
		origin   Origin
		predates string
		warn     bool // the "does not predate" warning
	}{
		{"unknown", Origin{}, "unknown", false},
		{"ledger created after the lock", Origin{Created: at.Add(time.Minute), From: "run.created.json"}, "yes", false},
		{"ledger created before the lock", Origin{Created: at.Add(-24 * time.Hour), From: "--ledger-created"}, "no", true},
		{"same second", Origin{Created: at, From: "--ledger-created"}, "no", true},
		{"simulated", Origin{SimulatedSeed: "7"}, "not applicable: simulated (seed 7)", false},
		// A recorded time wins over the seed: it says when this copy was made.
		{"simulated with a time", Origin{Created: at.Add(time.Hour), From: "x", SimulatedSeed: "7"}, "yes", false},
	}
	for _, tt := range tests {
		r, err := f.RunWith(path, table.NewData(eps), RunOptions{In: in, Seed: "7", Version: "test", Origin: tt.origin})
		if err != nil {
			t.Fatal(err)
		}
		l := r.Provenance.Lock
		if l.PredatesLedger != tt.predates {
			t.Errorf("%s: predates %q, want %q", tt.name, l.PredatesLedger, tt.predates)
		}
		if !tt.origin.Created.IsZero() && (l.LedgerCreated != tt.origin.Created.UTC().Format(time.RFC3339) || l.LedgerCreatedFrom != tt.origin.From) {
			t.Errorf("%s: ledger created %q from %q", tt.name, l.LedgerCreated, l.LedgerCreatedFrom)
		}
		warned := slices.ContainsFunc(r.Warnings(), func(w string) bool { return strings.Contains(w, "does not predate the data") })
		if warned != tt.warn {
			t.Errorf("%s: warnings %q, want the late-lock warning: %v", tt.name, r.Warnings(), tt.warn)
		}
	}
}

// writeParquet writes a one-column Parquet file with the given key-value
// metadata.
func writeParquet(t *testing.T, path string, kv map[string]string) {
	t.Helper()
	schema := arrow.NewSchema([]arrow.Field{{Name: "episode_id", Type: arrow.BinaryTypes.String}}, nil)
	out, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	fw, err := pqarrow.NewFileWriter(schema, out, parquet.NewWriterProperties(), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range kv {
			if !yield(k) {
				return
			}
		}
	}) {
		if err := fw.AppendKeyValueMetadata(k, kv[k]); err != nil {
			t.Fatal(err)
		}
	}
	b := array.NewStringBuilder(memory.DefaultAllocator)
	b.Append("e1")
	col := b.NewArray()
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, 1)
	if err := fw.Write(rec); err != nil {
		t.Fatal(err)
	}
	rec.Release()
	col.Release()
	if err := fw.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestParquetCreated reads created_utc from a Parquet file's metadata:
// present, absent, and malformed (an error naming the file and the key).
func TestParquetCreated(t *testing.T) {
	dir := t.TempDir()
	with, without, bad := filepath.Join(dir, "with.parquet"), filepath.Join(dir, "without.parquet"), filepath.Join(dir, "bad.parquet")
	writeParquet(t, with, map[string]string{CreatedKey: "2026-03-02T08:30:00+01:00", "other": "x"})
	writeParquet(t, without, map[string]string{"other": "x"})
	writeParquet(t, bad, map[string]string{CreatedKey: "yesterday"})

	got, ok, err := ParquetCreated(with)
	if err != nil || !ok || !got.Equal(time.Date(2026, 3, 2, 7, 30, 0, 0, time.UTC)) {
		t.Errorf("with: %v %v %v", got, ok, err)
	}
	if _, ok, err := ParquetCreated(without); err != nil || ok {
		t.Errorf("without: %v %v", ok, err)
	}
	_, _, err = ParquetCreated(bad)
	if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), CreatedKey) || !strings.Contains(err.Error(), "yesterday") {
		t.Errorf("bad: %v, want an error naming the file, the key and the value", err)
	}
	notPQ := filepath.Join(dir, "x.parquet")
	if err := os.WriteFile(notPQ, []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ParquetCreated(notPQ); err == nil || !strings.Contains(err.Error(), notPQ) {
		t.Errorf("not Parquet: %v", err)
	}
}
