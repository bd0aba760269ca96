package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// fuzzRoundTrip reads data as a ledger of the given extension; whatever
// reads without error must write and read back unchanged.
func fuzzRoundTrip(t *testing.T, ext string, data []byte) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in"+ext)
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	opt := ReadOptions{Grader: testGrader}
	var first []*Episode
	if err := ReadEpisodes(in, opt, func(e *Episode) error { first = append(first, e); return nil }); err != nil {
		return // rejected input: fine, as long as it did not panic
	}
	extra, err := ExtraColumns(in, "")
	if err != nil {
		t.Fatalf("ExtraColumns after a successful read: %v", err)
	}
	for _, outExt := range []string{ext, ".parquet"} {
		out := filepath.Join(dir, "out"+outExt)
		writeEpisodes(t, out, first, extra)
		var second []*Episode
		if err := ReadEpisodes(out, opt, func(e *Episode) error { second = append(second, e); return nil }); err != nil {
			t.Fatalf("reading back %s: %v", outExt, err)
		}
		if len(first) != len(second) {
			t.Fatalf("%s: %d rows back, wrote %d", outExt, len(second), len(first))
		}
		for i := range first {
			a, b := *first[i], *second[i]
			if outExt == ".parquet" && ext == ".jsonl" {
				// Parquet has every extra column on every row.
				a.Extra, b.Extra = fill(a.Extra, extra), fill(b.Extra, extra)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("%s row %d changed:\n%+v\n%+v", outExt, i, a, b)
			}
		}
	}
}

func fill(m map[string]string, keys []string) map[string]string {
	if len(keys) == 0 {
		return m
	}
	out := map[string]string{}
	for _, k := range keys {
		out[k] = m[k]
	}
	return out
}

func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"episode_id":"a"}`))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRoundTrip(t, ".jsonl", data) })
}

func FuzzReadCSV(f *testing.F) {
	f.Add([]byte("episode_id\na\n"))
	f.Fuzz(func(t *testing.T, data []byte) { fuzzRoundTrip(t, ".csv", data) })
}

// FuzzReadCSVColumns checks that an empty cell in a required column is
// reported the same whatever columns are read: when reading every column
// stops at one, reading any set of the file's schema columns (what one
// command or another reads) stops at the same place with the same message.
// A read of fewer columns checks less, so it cannot stop earlier.
func FuzzReadCSVColumns(f *testing.F) {
	sample, err := os.ReadFile(filepath.Join("..", "testdata", "ledger", "sample.csv"))
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.Split(string(sample), "\n")
	for _, k := range []int{3, 10} {
		for _, col := range []int{1, 6, 9, 17, 21, 25} {
			cells := strings.Split(lines[k], ",")
			if col >= len(cells) {
				continue
			}
			cells[col] = ""
			l := slices.Clone(lines)
			l[k] = strings.Join(cells, ",")
			f.Add([]byte(strings.Join(l, "\n")), uint64(0x5555_5555_5555_5555)>>(col%3))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, pick uint64) {
		in := filepath.Join(t.TempDir(), "in.csv")
		if err := os.WriteFile(in, data, 0o644); err != nil {
			t.Fatal(err)
		}
		nop := func(*Episode) error { return nil }
		all := ReadEpisodes(in, ReadOptions{}, nop)
		var p Problem
		if !errors.As(all, &p) || p.Msg != errEmpty {
			return
		}
		hdr, _, err := CSVHeader(in)
		if err != nil {
			t.Fatalf("the header read before: %v", err)
		}
		var cols []string
		for j, h := range hdr {
			if _, ok := colIndex[h]; ok && pick>>(j%64)&1 == 1 {
				cols = append(cols, h)
			}
		}
		if len(cols) == 0 {
			return
		}
		if got := ReadEpisodes(in, ReadOptions{Columns: cols}, nop); got == nil || got.Error() != all.Error() {
			t.Fatalf("reading %v: %v\nreading all: %v", cols, got, all)
		}
	})
}
