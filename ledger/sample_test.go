package ledger

import (
	"bytes"
	"os"
	"testing"
)

// The bundled raw sample is in canonical form: reading it and writing it
// back with RawWriter gives the same bytes. This pins the canonical
// encoding the simulator's byte-identity relies on.
func TestSampleRawCanonical(t *testing.T) {
	const path = "../testdata/ledger/sample.jsonl"
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := NewRawWriter(&buf)
	modes := map[string]bool{}
	err = ReadRaw(path, ReadOptions{Strict: true}, func(r *RawEpisode) error {
		modes[r.FaultMode] = true
		return w.Write(r)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("re-encoding %s changed it", path)
	}
	// Every family of the sandbox's modes (the transport faults are the
	// proxy's), so that the readers meet each kind of fault; a new mode of
	// a family the sample covers needs no new sample.
	family := func(name string) string {
		m, _ := FaultByName(name)
		return string(m.Family)
	}
	covered := map[string]bool{}
	for m := range modes {
		covered[family(m)] = true
	}
	for _, name := range FaultNames(func(m FaultMode) bool { return m.InjectedBy(SiteSandbox) }) {
		if !covered[family(name)] {
			t.Errorf("sample has no fault mode of family %s (%s is one)", family(name), name)
		}
	}
}

// The graded sample agrees with the raw sample on every design column.
func TestSampleCSVMatchesRaw(t *testing.T) {
	var raw []*RawEpisode
	if err := ReadRaw("../testdata/ledger/sample.jsonl", ReadOptions{}, func(r *RawEpisode) error { raw = append(raw, r); return nil }); err != nil {
		t.Fatal(err)
	}
	graded := readAll(t, "../testdata/ledger/sample.csv", ReadOptions{Strict: true})
	if len(raw) != len(graded) {
		t.Fatalf("%d raw, %d graded", len(raw), len(graded))
	}
	for i := range raw {
		for j, c := range EpisodeColumns {
			if !designCols.has(j) {
				continue
			}
			a, _ := raw[i].Get(c.Name)
			b, _ := graded[i].Get(c.Name)
			if a != b {
				t.Errorf("row %d %s: raw %v, graded %v", i+1, c.Name, a, b)
			}
		}
		if int64(len(raw[i].Calls)) != graded[i].ToolCalls {
			t.Errorf("row %d: %d calls, tool_calls %d", i+1, len(raw[i].Calls), graded[i].ToolCalls)
		}
	}
}
