package ledger

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestCheckFiles(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join("..", "testdata", "ledger", "sample.csv")
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"episode_id\": 3}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		paths     []string
		wantClean []string
		wantErr   string
	}{
		{"clean", []string{good}, []string{good}, ""},
		{"one bad of two", []string{bad, good}, []string{good}, " in 1 of 2 files"},
		{"missing", []string{filepath.Join(dir, "none.csv")}, nil, "1 error in 1 of 1 file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var clean []string
			nrep := 0
			err := CheckFiles(tc.paths, ReadOptions{}, true, func(error) { nrep++ }, func(p string, c FileCheck) error {
				if c.Summary == nil || c.Rows == 0 {
					t.Errorf("%s: clean with %d rows, summary %v", p, c.Rows, c.Summary)
				}
				clean = append(clean, p)
				return nil
			})
			if !reflect.DeepEqual(clean, tc.wantClean) {
				t.Errorf("clean files %v, want %v", clean, tc.wantClean)
			}
			if tc.wantErr == "" {
				if err != nil || nrep != 0 {
					t.Errorf("err %v after %d reports, want none", err, nrep)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || nrep == 0 {
				t.Errorf("err %v after %d reports, want one containing %q", err, nrep, tc.wantErr)
			}
		})
	}
}

func TestExportStatsNotes(t *testing.T) {
	calls, effects := PartitionSiblings("ds")
	tests := []struct {
		name        string
		st          ExportStats
		partitioned bool
		want        []string
	}{
		{"one episode", ExportStats{Episodes: 1}, false, []string{"wrote 1 episode to o.csv"}},
		{"raw to csv", ExportStats{Episodes: 2, DroppedNested: true}, false, []string{"wrote 2 episodes to o.csv",
			"note: calls and effects of the raw lines are kept only in Parquet output (X.calls.parquet, X.effects.parquet); o.csv has the graded episodes"}},
		{"partitioned", ExportStats{Episodes: 3, Partitions: 1, Nested: true}, true, []string{"wrote 3 episodes in 1 partition to ds",
			"wrote the calls and effects of the raw lines to " + calls + " and " + effects + ", partitioned the same way"}},
		{"partitioned csv", ExportStats{Episodes: 3, Partitions: 2, DroppedNested: true}, true, []string{"wrote 3 episodes in 2 partitions to ds",
			"note: calls and effects of the raw lines are kept only in Parquet output; ds has the graded episodes"}},
	}
	for _, tc := range tests {
		out := "o.csv"
		if tc.partitioned {
			out = "ds"
		}
		if got := tc.st.Notes(out, tc.partitioned); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestFormatNames(t *testing.T) {
	for _, tc := range []struct {
		s            string
		format, name bool
	}{
		{"", true, false}, {"JSONL", true, false}, {"ndjson", true, false}, {"json", true, false},
		{"csv", true, false}, {"parquet", true, false}, {"tsv", false, false},
		{"a.parquet", false, true}, {"A.CSV", false, true}, {"a.ndjson", false, true}, {"a.json", false, false},
	} {
		if got := IsFormat(tc.s); got != tc.format {
			t.Errorf("IsFormat(%q) = %v", tc.s, got)
		}
		if got := IsLedgerName(tc.s); got != tc.name {
			t.Errorf("IsLedgerName(%q) = %v", tc.s, got)
		}
	}
}
