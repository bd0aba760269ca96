package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Export writes the episodes and, for raw lines to Parquet, their calls
// and effects; other formats drop them and say so; a partitioned export
// counts its partitions; a failed read writes nothing.
func TestExport(t *testing.T) {
	var raw bytes.Buffer
	rw := NewRawWriter(&raw)
	calls := 0
	for i := range 12 {
		r := synthRaw(i, 1+i%3)
		calls += len(r.Calls)
		if err := rw.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	in := writeFile(t, "raw.jsonl", raw.String())
	read := ReadOptions{Grader: testGrader}
	cases := []struct {
		name, out string
		o         ExportOptions
		want      ExportStats
	}{
		{"parquet", "x.parquet", ExportOptions{Read: read}, ExportStats{Episodes: 12, Nested: true}},
		{"csv", "x.csv", ExportOptions{Read: read}, ExportStats{Episodes: 12, DroppedNested: true}},
		{"format flag", "x.data", ExportOptions{Read: read, Format: "jsonl"}, ExportStats{Episodes: 12, DroppedNested: true}},
		{"partitioned", "ds", ExportOptions{Read: read, PartitionBy: []string{"model"}}, ExportStats{Episodes: 12, Partitions: 4, Nested: true}},
		{"partitioned csv", "ds", ExportOptions{Read: read, Format: "csv", PartitionBy: []string{"model"}}, ExportStats{Episodes: 12, Partitions: 4, DroppedNested: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), c.out)
			st, err := Export(in, out, c.o)
			if err != nil {
				t.Fatal(err)
			}
			if st != c.want {
				t.Errorf("stats %+v, want %+v", st, c.want)
			}
			var o ReadOptions
			if c.o.Format != "" && c.o.PartitionBy == nil {
				o.Format = c.o.Format
			}
			if n := len(readAll(t, out, o)); n != 12 {
				t.Errorf("read back %d episodes, want 12", n)
			}
			if c.out == "x.parquet" {
				cp, _ := SiblingPaths(out)
				p, err := openPQ(cp)
				if err != nil {
					t.Fatal(err)
				}
				defer p.close()
				if n := int(p.pf.NumRows()); n != calls {
					t.Errorf("%d calls written, want %d", n, calls)
				}
			}
		})
	}
}

// A graded export over an earlier raw Parquet export removes the stale
// calls and effects; a failed read leaves the earlier files untouched.
func TestExportSiblings(t *testing.T) {
	var raw bytes.Buffer
	if err := NewRawWriter(&raw).Write(synthRaw(1, 2)); err != nil {
		t.Fatal(err)
	}
	in := writeFile(t, "raw.jsonl", raw.String())
	out := filepath.Join(t.TempDir(), "x.parquet")
	if _, err := Export(in, out, ExportOptions{Read: ReadOptions{Grader: testGrader}}); err != nil {
		t.Fatal(err)
	}
	cp, ep := SiblingPaths(out)
	bad := writeFile(t, "bad.csv", "episode_id\n")
	if _, err := Export(bad, out, ExportOptions{}); err == nil {
		t.Fatal("invalid input exported")
	}
	for _, p := range []string{cp, ep} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("failed export removed %s: %v", p, err)
		}
	}
	if _, err := Export("../testdata/ledger/sample.csv", out, ExportOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{cp, ep} {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("stale %s left beside a graded export (err %v)", p, err)
		}
	}
}
