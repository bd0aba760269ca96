package ledger

import "testing"

func TestIsJSONLName(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"run.jsonl", true},
		{"dir/RUN.NDJSON", true},
		{"run.JsonL", true},
		{"run.json", false},
		{"run.csv", false},
		{"run.jsonl.gz", false},
		{"jsonl", false},
		{"", false},
	}
	for _, tc := range tests {
		if got := IsJSONLName(tc.path); got != tc.want {
			t.Errorf("IsJSONLName(%q) = %v, want %v", tc.path, got, tc.want)
		}
	}
}
