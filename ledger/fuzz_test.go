package ledger

import (
	"os"
	"path/filepath"
	"reflect"
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
		w, err := CreateEpisodes(out, "", extra)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range first {
			if err := w.Write(e); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
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
