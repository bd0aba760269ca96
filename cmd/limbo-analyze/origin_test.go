package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// Issue 37, case 13: serve --allow-origin takes origins as browsers send
// them (scheme://host[:port]); anything else matched nothing and was
// accepted. It is now a usage error naming the value, before serve starts.
func TestServeAllowOriginChecked(t *testing.T) {
	ledgerPath := filepath.Join(t.TempDir(), "run.jsonl")
	for _, c := range []struct {
		origin, want string
	}{
		{"*", "a wildcard"},
		{"evil.example.com", "no scheme"},
		{"https://inspector.example/", "a path"},
		{"", "empty"},
		{"ftp://inspector.example", "scheme"},
		{"https://", "no host"},
		{"https://user@inspector.example", "user"},
		{"https://inspector.example:99999", "port"},
		{"https://inspector.example?x=1", "query"},
		{"HTTPS://Inspector.example", "lower case"},
	} {
		code, _, stderr := runCmd(t, "serve", "--transport", "http", "--addr", "127.0.0.1:0", "--ledger", ledgerPath, "--allow-origin", c.origin)
		if code != exitUsage || !strings.Contains(stderr, "--allow-origin") || !strings.Contains(stderr, c.want) {
			t.Errorf("--allow-origin %q: exit %d, %q; want 2 naming the value and %q", c.origin, code, stderr, c.want)
		}
		if c.origin != "" && !strings.Contains(stderr, c.origin) {
			t.Errorf("--allow-origin %q: the message does not name the value: %q", c.origin, stderr)
		}
	}
}

// Issue 37, case 14: a missing file whose name holds '[' is "no such
// file", not "bad pattern: syntax error in pattern".
func TestMissingFileWithBracket(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"runs[1].parquet", "res [v2]/x.parquet", "a[.csv", "x[1].jsonl"} {
		p := filepath.Join(dir, name)
		for _, args := range [][]string{{"rates", "--in", p, "--outcome", "eos"}, {"validate", p}} {
			code, stdout, stderr := runCmd(t, args...)
			if out := stdout + stderr; code != exitFailure || !strings.Contains(out, "no such file") || strings.Contains(out, "pattern") {
				t.Errorf("%v: exit %d, %q; want 1 and no such file", args, code, out)
			}
		}
	}
}
