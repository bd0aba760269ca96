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
	// Every mode of the sandbox (the transport faults are the proxy's).
	if want := len(FaultNames(func(m FaultMode) bool { return m.InjectedBy(SiteSandbox) })); len(modes) != want {
		t.Errorf("sample covers %d fault modes, want all %d", len(modes), want)
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
