package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestViewCommand runs `view` in-process: a site from the sample, usage
// errors (exit 2), and a malformed ledger (exit 1, file:line, nothing
// written).
func TestViewCommand(t *testing.T) {
	dir := t.TempDir()
	sample := filepath.Join("..", "..", "testdata", "ledger", "sample.jsonl")
	src, err := os.ReadFile(sample)
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	lines := strings.SplitAfter(string(src), "\n")
	os.WriteFile(bad, []byte(lines[0]+strings.Replace(lines[1], `"outcome":"ok"`, `"outcome":"fine"`, 1)), 0o644)

	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
		site   string // a directory that must (or, with exit ≠ 0, must not) exist
	}{
		{"site", []string{"view", sample, "--out", filepath.Join(dir, "site")}, 0, "wrote 36 episodes (36 with timelines)", filepath.Join(dir, "site")},
		{"no output", []string{"view", sample}, 2, "one of --out DIR or --serve", ""},
		{"both outputs", []string{"view", sample, "--out", filepath.Join(dir, "x"), "--serve", ":0"}, 2, "one of --out DIR or --serve", filepath.Join(dir, "x")},
		{"no ledger", []string{"view", "--out", filepath.Join(dir, "y")}, 2, "requires at least 1 arg", filepath.Join(dir, "y")},
		{"remote", []string{"view", sample, "--serve", "0.0.0.0:0"}, 2, "not a loopback address (127.0.0.1, ::1, localhost); add --allow-remote", ""},
		// Issue 28 item 11: a port out of range was found only by listen (exit 1).
		{"port out of range", []string{"view", sample, "--serve", "127.0.0.1:99999"}, 2, `port "99999" is not a number from 0 to 65535`, ""},
		{"no port", []string{"view", sample, "--serve", "127.0.0.1"}, 2, "the port is missing", ""},
		{"malformed", []string{"view", bad, "--out", filepath.Join(dir, "bad-site")}, 1, bad + ":2", filepath.Join(dir, "bad-site")},
		{"missing", []string{"view", filepath.Join(dir, "nope.jsonl"), "--out", filepath.Join(dir, "z")}, 1, "nope.jsonl", filepath.Join(dir, "z")},
	}
	for _, c := range cases {
		var stdout, stderr bytes.Buffer
		code := run(c.args, strings.NewReader(""), &stdout, &stderr)
		if code != c.code || !strings.Contains(stderr.String(), c.stderr) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", c.name, code, stderr.String(), c.code, c.stderr)
		}
		if c.site == "" {
			continue
		}
		_, err := os.Stat(filepath.Join(c.site, "index.html"))
		if (err == nil) != (c.code == 0) {
			t.Errorf("%s: site written: %v, want %v", c.name, err == nil, c.code == 0)
		}
	}
	// Nothing half-written beside the sites.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}
