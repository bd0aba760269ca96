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

// Check names the first field of a serve job that cannot run.
func TestServeJobCheck(t *testing.T) {
	ok := ServeJob{Addr: "127.0.0.1:8765", Ledger: "run.jsonl"}
	tests := []struct {
		name string
		edit func(*ServeJob)
		err  string
	}{
		{"defaults", func(*ServeJob) {}, ""},
		{"remote addr", func(j *ServeJob) { j.HTTP, j.Addr = true, "0.0.0.0:80" }, "Addr 0.0.0.0:80 is not a loopback address; pass AllowRemote to bind it"},
		{"remote allowed", func(j *ServeJob) { j.HTTP, j.Addr, j.AllowRemote = true, "0.0.0.0:80", true }, ""},
		{"malformed addr", func(j *ServeJob) { j.HTTP, j.Addr, j.AllowRemote = true, "localhost", true }, `Addr "localhost": the port is missing`},
		{"stdio has no addr", func(j *ServeJob) { j.Addr = "0.0.0.0:80" }, ""},
		{"no ledger", func(j *ServeJob) { j.Ledger = "" }, ""},
		{"csv ledger", func(j *ServeJob) { j.Ledger = "run.csv" }, "Ledger run.csv: the served ledger is JSONL; name it .jsonl"},
		{"origin", func(j *ServeJob) { j.Options.AllowedOrigins = []string{"http://localhost:3000"} }, ""},
		{"empty origin", func(j *ServeJob) { j.Options.AllowedOrigins = []string{""} }, `AllowedOrigins "": `},
		{"origin with path", func(j *ServeJob) { j.Options.AllowedOrigins = []string{"http://a.example/x"} }, `AllowedOrigins "http://a.example/x": `},
		{"negative limits", func(j *ServeJob) { j.Options.Limits.MaxCalls = -1 }, "ThinkS, MaxCalls, MaxTimeS and MaxArgBytes must not be negative"},
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
