package ledger

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
)

// writeForeign writes a Parquet file with the given columns, as another
// tool would.
func writeForeign(t *testing.T, fields []arrow.Field, fill func(b *array.RecordBuilder)) string {
	t.Helper()
	schema := arrow.NewSchema(fields, nil)
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	fill(b)
	rec := b.NewRecordBatch()
	defer rec.Release()
	path := filepath.Join(t.TempDir(), "foreign.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w, err := pqarrow.NewFileWriter(schema, f, nil, pqarrow.DefaultWriterProps())
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(rec); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil { // closes f too
		t.Fatal(err)
	}
	return path
}

func TestParquetOtherSchema(t *testing.T) {
	path := writeForeign(t, []arrow.Field{{Name: "id", Type: arrow.BinaryTypes.String}, {Name: "score", Type: arrow.PrimitiveTypes.Float64}},
		func(b *array.RecordBuilder) {
			b.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
			b.Field(1).(*array.Float64Builder).AppendValues([]float64{1, 2}, nil)
		})
	err := ReadEpisodes(path, ReadOptions{}, func(*Episode) error { return nil })
	var p Problem
	if !errors.As(err, &p) || p.Field != "episode_id" || !strings.HasPrefix(p.Msg, "missing required column (also missing: experiment, model,") ||
		!strings.HasSuffix(p.Msg, "is this a LIMBO episodes table?") {
		t.Fatalf("got %v", err)
	}
}

// A Parquet table of a user's own with only some columns: read through
// Columns when it has them (eos's check columns are optional), and the
// missing needed ones named otherwise.
func TestParquetColumnSubset(t *testing.T) {
	path := writeForeign(t, []arrow.Field{{Name: "model", Type: arrow.BinaryTypes.String}, {Name: "eos", Type: arrow.FixedWidthTypes.Boolean}},
		func(b *array.RecordBuilder) {
			b.Field(0).(*array.StringBuilder).AppendValues([]string{"m1", "m2"}, nil)
			b.Field(1).(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
		})
	eps := readAll(t, path, ReadOptions{Columns: []string{"model", "eos"}})
	if len(eps) != 2 || eps[0].Model != "m1" || !eps[0].EOS || eps[1].EOS {
		t.Errorf("got %+v", eps)
	}
	err := ReadEpisodes(path, ReadOptions{Columns: []string{"model", "harness", "weight"}}, func(*Episode) error { return nil })
	var p Problem
	if !errors.As(err, &p) || p.Field != "harness" || p.Msg != "missing column (needed for this analysis) (also missing: weight)" {
		t.Errorf("got %v", err)
	}
}

// A column of the wrong type is named; integers where floats belong (as
// pandas writes weight=1) and narrower integers are accepted.
func TestParquetColumnTypes(t *testing.T) {
	src := filepath.Join(t.TempDir(), "x.parquet")
	writeEpisodes(t, src, []*Episode{synthEpisode(1), synthEpisode(2)}, nil)
	// Rewrite with weight as int64 and seed as int32, via Arrow.
	eps := readAll(t, src, ReadOptions{})
	var fields []arrow.Field
	for _, c := range EpisodeColumns {
		typ := arrowType(c.Kind)
		switch c.Name {
		case "weight":
			typ = arrow.PrimitiveTypes.Int64
		case "seed":
			typ = arrow.PrimitiveTypes.Int32
		}
		fields = append(fields, arrow.Field{Name: c.Name, Type: typ, Nullable: true})
	}
	fill := func(b *array.RecordBuilder) {
		for _, e := range eps {
			for i, c := range EpisodeColumns {
				v, _ := e.Get(c.Name)
				switch bb := b.Field(i).(type) {
				case *array.StringBuilder:
					bb.Append(v.Str)
				case *array.Int64Builder:
					if c.Name == "weight" {
						bb.Append(2)
					} else {
						bb.Append(v.Int)
					}
				case *array.Int32Builder:
					bb.Append(int32(v.Int))
				case *array.Float64Builder:
					if v.Null {
						bb.AppendNull()
					} else {
						bb.Append(v.Num)
					}
				case *array.BooleanBuilder:
					bb.Append(v.Bool)
				}
			}
		}
	}
	got := readAll(t, writeForeign(t, fields, fill), ReadOptions{})
	for i := range got {
		if got[i].Weight != 2 || got[i].Seed != int64(int32(eps[i].Seed)) || got[i].Model != eps[i].Model {
			t.Errorf("row %d: %+v", i, got[i])
		}
	}
	// A string where a boolean belongs is an error naming the column.
	fields[colIndex["eos"]].Type = arrow.BinaryTypes.String
	bad := writeForeign(t, fields, func(b *array.RecordBuilder) {
		for i, c := range EpisodeColumns {
			switch bb := b.Field(i).(type) {
			case *array.StringBuilder:
				bb.Append("x")
			case *array.Int64Builder:
				bb.Append(1)
			case *array.Int32Builder:
				bb.Append(1)
			case *array.Float64Builder:
				bb.Append(1)
			case *array.BooleanBuilder:
				bb.Append(c.Name == "eos")
			}
		}
	})
	err := ReadEpisodes(bad, ReadOptions{}, func(*Episode) error { return nil })
	if want := bad + ": eos: column has type utf8, want a boolean (BOOLEAN)"; err == nil || err.Error() != want {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

func TestParquetNullInRequiredColumn(t *testing.T) {
	path := filepath.Join(t.TempDir(), "null.parquet")
	writeNullParquet(t, path, []*Episode{synthEpisode(3)}, "model", 0, true)
	err := ReadEpisodes(path, ReadOptions{}, func(*Episode) error { return nil })
	if want := path + ": row 0: model: null in a required column"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestParquetColumnsWithExtras(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.parquet")
	e := synthEpisode(1)
	e.Extra = map[string]string{"site": "lab", "team": "a"}
	writeEpisodes(t, path, []*Episode{e}, []string{"site", "team"})
	got := readAll(t, path, ReadOptions{Columns: []string{"model", "site"}})
	if len(got) != 1 || got[0].Model != e.Model || len(got[0].Extra) != 1 || got[0].Extra["site"] != "lab" {
		t.Errorf("got %+v", got[0])
	}
	err := ReadEpisodes(path, ReadOptions{Columns: []string{"nosuch"}}, func(*Episode) error { return nil })
	if want := path + ": nosuch: no such column"; err == nil || err.Error() != want {
		t.Errorf("got %v", err)
	}
	err = ReadEpisodes(path, ReadOptions{Strict: true}, func(*Episode) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "site: extra column") {
		t.Errorf("strict: got %v", err)
	}
	// The error names the option as a field, which a command renames.
	if want := path + ": site: extra column (not in the ledger schema; rejected under --strict)"; err == nil ||
		!strings.HasSuffix(err.Error(), "rejected under Strict)") || fieldtext.Rename(err, map[string]string{"Strict": "--strict"}).Error() != want {
		t.Errorf("strict: got %v, renamed want %s", err, want)
	}
}

// TestParquetRowGroups round-trips a table of several row groups whose
// dictionaries differ from group to group (one larger than a dictionary
// page may be), read with and without Reuse.
func TestParquetRowGroups(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 130k rows")
	}
	n := 2*rowGroupRows + 37
	ep := func(i int) *Episode {
		e := synthEpisode(i)
		e.Experiment = "E" + strconv.Itoa(1+i/50_000) // changes inside a row group
		// A unique task per row: a dictionary of several MB per row group,
		// beyond the writer's dictionary page limit.
		e.Task += "/" + strconv.Itoa(i) + strings.Repeat("x", 40)
		e.Extra = map[string]string{"site": "s" + strconv.Itoa(i%(1+i/rowGroupRows))}
		return e
	}
	eps := make([]*Episode, n)
	for i := range eps {
		eps[i] = ep(i)
	}
	path := filepath.Join(t.TempDir(), "x.parquet")
	writeEpisodes(t, path, eps, []string{"site"})
	kept := readAll(t, path, ReadOptions{})
	if len(kept) != n {
		t.Fatalf("read %d rows, wrote %d", len(kept), n)
	}
	for i, e := range kept {
		if !reflect.DeepEqual(e, eps[i]) {
			t.Fatalf("kept row %d differs:\n got %+v\nwant %+v", i, e, eps[i])
		}
	}
	i := 0
	err := ReadEpisodes(path, ReadOptions{Reuse: true}, func(e *Episode) error {
		if !reflect.DeepEqual(e, eps[i]) {
			return fmt.Errorf("reused row %d differs:\n got %+v\nwant %+v", i, e, eps[i])
		}
		i++
		return nil
	})
	if err != nil || i != n {
		t.Fatal(err, i)
	}
}

// The files carry what notebooks need: the Arrow schema (dictionary
// columns come back as categoricals in pandas and polars), arrow-go's own
// created_by with our version beside it, and each column's meaning.
func TestParquetNotebookMetadata(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.parquet")
	writeEpisodes(t, path, []*Episode{synthEpisode(1), synthEpisode(2)}, []string{"site"})
	p, err := openPQ(path)
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	if cb := p.pf.MetaData().GetCreatedBy(); !strings.HasPrefix(cb, "parquet-go version ") {
		t.Errorf("created_by %q, want arrow-go's \"parquet-go version …\"", cb)
	}
	if v := p.meta(MetaToolkitVersion); v != "unknown" {
		t.Errorf("%s = %q, want \"unknown\" (no version given)", MetaToolkitVersion, v)
	}
	if p.meta("ARROW:schema") == "" {
		t.Fatal("no ARROW:schema in the key-value metadata")
	}
	// The Arrow schema read back from the file (ARROW:schema) types the
	// dictionary-encoded columns as dictionaries and the rest as written.
	for _, c := range []struct {
		name string
		dict bool
	}{{"model", true}, {"fault_mode", true}, {"episode_id", false}, {"pair_key", false}, {"site", false}} {
		f, ok := p.schema.FieldsByName(c.name)
		if !ok {
			t.Fatalf("no field %s", c.name)
		}
		if got := f[0].Type.ID() == arrow.DICTIONARY; got != c.dict {
			t.Errorf("%s: Arrow type %s, want dictionary %v", c.name, f[0].Type, c.dict)
		}
	}
	var docs map[string]string
	if err := json.Unmarshal([]byte(p.meta(MetaColumns)), &docs); err != nil {
		t.Fatalf("%s: %v", MetaColumns, err)
	}
	cols, _ := fileColumns(0) // the file carries no group
	for _, c := range cols {
		if docs[c.Name] == "" || docs[c.Name] != c.Doc {
			t.Errorf("%s: description %q, want %q", c.Name, docs[c.Name], c.Doc)
		}
	}
	if !strings.Contains(docs["site"], "extra column") {
		t.Errorf("site: description %q", docs["site"])
	}
	// And this package reads it back.
	if got := readAll(t, path, ReadOptions{}); len(got) != 2 || got[1].Model != synthEpisode(2).Model {
		t.Errorf("read back %d episodes", len(got))
	}
}

// Every column of the three tables says what it means.
func TestColumnDocs(t *testing.T) {
	for _, cols := range [][]Column{EpisodeColumns, CallColumns, EffectColumns} {
		for _, c := range cols {
			if c.Doc == "" || c.Domain == "" {
				t.Errorf("%s: no Domain or Doc", c.Name)
			}
		}
	}
}

// A Parquet file of a partitioned dataset written by another tool leaves
// the partition column out; it is restored from the path, typed.
func TestParquetPartitionColumnFromPath(t *testing.T) {
	src := writeForeign(t, []arrow.Field{{Name: "episode_id", Type: arrow.BinaryTypes.String}, {Name: "duplicated", Type: arrow.FixedWidthTypes.Boolean}},
		func(b *array.RecordBuilder) {
			b.Field(0).(*array.StringBuilder).AppendValues([]string{"a", "b"}, nil)
			b.Field(1).(*array.BooleanBuilder).AppendValues([]bool{true, false}, nil)
		})
	dir := t.TempDir()
	dst := filepath.Join(dir, "model=gpt-4.1", "instance=7", "data_0.parquet")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, dst); err != nil {
		t.Fatal(err)
	}
	got := readAll(t, dir, ReadOptions{Columns: []string{"episode_id", "model", "instance", "duplicated"}})
	if len(got) != 2 || got[0].Model != "gpt-4.1" || got[1].Instance != 7 || !got[0].Duplicated || got[1].Duplicated {
		t.Errorf("read %+v", got)
	}
	cols, err := FileColumns(dir, "")
	if err != nil || !slices.Equal(cols, []string{"episode_id", "duplicated", "model", "instance"}) {
		t.Errorf("FileColumns = %v, %v", cols, err)
	}
}
