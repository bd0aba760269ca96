package mcp

import (
	"strings"
	"testing"
	"time"
)

// Check names the first field of a drive job that cannot run.
func TestDriveJobCheck(t *testing.T) {
	ok := DriveJob{Ledger: "run.jsonl", DriveOptions: DriveOptions{Harness: "true", Parallel: 1, Timeout: time.Minute, Grace: time.Second}}
	tests := []struct {
		name string
		edit func(*DriveJob)
		err  string
	}{
		{"defaults", func(*DriveJob) {}, ""},
		{"no harness", func(j *DriveJob) { j.Harness = "" }, "Harness is required"},
		{"no out", func(j *DriveJob) { j.Ledger = "" }, "Out is required"},
		{"parquet out", func(j *DriveJob) { j.Ledger = "run.parquet" }, "Out run.parquet: the driven ledger is JSONL; name it .jsonl"},
		{"parallel 0", func(j *DriveJob) { j.Parallel = 0 }, "Parallel must be 1–256, got 0"},
		{"parallel 257", func(j *DriveJob) { j.Parallel = 257 }, "Parallel must be 1–256, got 257"},
		{"no grace", func(j *DriveJob) { j.Grace = 0 }, "Timeout and Grace must be positive"},
		{"bad shard", func(j *DriveJob) { j.Shard = "5/4" }, "Shard: "},
		{"good shard", func(j *DriveJob) { j.Shard = "2/4" }, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := ok
			tc.edit(&j)
			err := j.Check()
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)) {
				t.Errorf("Check() = %v, want %q", err, tc.err)
			}
		})
	}
}
