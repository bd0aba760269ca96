package paper

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

func TestReadData(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.jsonl")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path string
		cols       []string
		wantErr    string
	}{
		{"the CLI ledger", cliLedger, nil, ""},
		{"selected columns", cliLedger, []string{"duplicated", "no_such_column"}, ""},
		{"empty JSONL", empty, nil, "no episodes"},
		{"missing file", filepath.Join(t.TempDir(), "none.csv"), nil, "none.csv"},
	}
	want, err := table.Read(cliLedger, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := ReadData(tc.path, ledger.ReadOptions{Columns: tc.cols})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d.Len() != want.Len() || d.Len() == 0 {
				t.Fatalf("%d episodes, want %d", d.Len(), want.Len())
			}
			if tc.cols != nil && (len(d.Columns) != 1 || d.Columns[0] != "duplicated") {
				t.Errorf("Columns = %v, want the one the file has", d.Columns)
			}
		})
	}
}
