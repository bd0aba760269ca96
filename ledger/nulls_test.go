package ledger

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// writeNullParquet writes eps as a Parquet table of another tool's (every
// column nullable), with column null empty in row bad; stats says whether
// the file carries column statistics (null counts).
func writeNullParquet(t *testing.T, path string, eps []*Episode, null string, bad int, stats bool) {
	t.Helper()
	var fields []arrow.Field
	for _, c := range EpisodeColumns {
		fields = append(fields, arrow.Field{Name: c.Name, Type: arrowType(c.Kind), Nullable: true})
	}
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	for r, e := range eps {
		for i, c := range EpisodeColumns {
			v, _ := e.Get(c.Name)
			fb := b.Field(i)
			if (r == bad && c.Name == null) || v.Null {
				fb.AppendNull()
				continue
			}
			switch bb := fb.(type) {
			case *array.StringBuilder:
				bb.Append(v.Str)
			case *array.Int64Builder:
				bb.Append(v.Int)
			case *array.Float64Builder:
				bb.Append(v.Num)
			case *array.BooleanBuilder:
				bb.Append(v.Bool)
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithStats(stats)), pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestNullInRequiredColumnWhateverIsRead checks the contract of docs/ledger.md
// for every reader and every choice of columns a command reads: a null
// (Parquet) or an empty cell (CSV) in a required column that the file
// carries is an error, with the same message (file, line or row, column),
// whether the column is read or not. It used to be caught only by the
// commands that read the column, each with a message of its own. The
// column scan hands such a file over to the row reader.
func TestNullInRequiredColumnWhateverIsRead(t *testing.T) {
	eps := []*Episode{synthEpisode(0), synthEpisode(1), synthEpisode(2), synthEpisode(3)}
	// What different commands read: everything (validate, export), an
	// outcome by a group (rates), an arm and pairs (paired), a weight.
	reads := [][]string{nil, {"eos", "condition"}, {"duplicated", "model", "fault_fired"}, {"eos", "condition", "pair_key", "episode_id"}, {"weight"}}
	dir := t.TempDir()
	for _, col := range []string{"cue", "model", "episode_id", "recovery", "instance", "duplicated", "delay_s", "weight", "agent_time_s"} {
		csvPath := filepath.Join(dir, col+".csv")
		writeEpisodes(t, csvPath, eps, nil)
		b, err := os.ReadFile(csvPath)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(b), "\n")
		hdr := strings.Split(lines[0], ",")
		cells := strings.Split(lines[3], ",") // row 2 (0-based) of the table
		for j, h := range hdr {
			if h == col {
				cells[j] = ""
			}
		}
		lines[3] = strings.Join(cells, ",")
		if err := os.WriteFile(csvPath, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		pq := filepath.Join(dir, col+".parquet")
		writeNullParquet(t, pq, eps, col, 2, true)
		pqNoStats := filepath.Join(dir, col+".nostats.parquet")
		writeNullParquet(t, pqNoStats, eps, col, 2, false)
		for _, f := range []struct{ path, want string }{
			{csvPath, csvPath + ":4: " + col + ": empty cell in a required column"},
			{pq, pq + ": row 2: " + col + ": null in a required column"},
			{pqNoStats, pqNoStats + ": row 2: " + col + ": null in a required column"},
		} {
			for _, cols := range reads {
				err := ReadEpisodes(f.path, ReadOptions{Columns: cols}, func(*Episode) error { return nil })
				if err == nil || err.Error() != f.want {
					t.Errorf("%s reading %v: %v\nwant %s", filepath.Base(f.path), cols, err, f.want)
				}
			}
		}
	}
	// Optional values stay optional: an empty cost_usd, or platform off a
	// social write.
	ok := filepath.Join(dir, "ok.parquet")
	writeNullParquet(t, ok, eps, "cost_usd", 2, true)
	for _, cols := range reads {
		if err := ReadEpisodes(ok, ReadOptions{Columns: cols}, func(*Episode) error { return nil }); err != nil {
			t.Errorf("null cost_usd reading %v: %v", cols, err)
		}
	}
	// The toolkit's own files declare the required columns required: the
	// metadata rules nulls out and the column scan reads only what it
	// reads.
	own := filepath.Join(dir, "own.parquet")
	writeEpisodes(t, own, eps, nil)
	p, err := openPQ(own)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if m := p.nullCols(requiredSet); m != 0 {
		t.Errorf("the toolkit's file: columns %b may hold nulls, want none", m)
	}
	if err := ScanParquet(own, []string{"eos", "condition"}, func(*Batch) error { return nil }); err != nil {
		t.Errorf("the toolkit's file, scanning eos and condition: %v", err)
	}
}
