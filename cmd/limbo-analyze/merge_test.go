package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/design"
)

// simulateTo runs simulate on the small design into dir/name.jsonl and
// returns the ledger's path.
func simulateTo(t *testing.T, dir, name string, extra ...string) string {
	t.Helper()
	out := filepath.Join(dir, name+".jsonl")
	args := append([]string{"simulate", "--design", smallDesign, "--seed", "7", "--jobs", "2", "--out", out}, extra...)
	var stderr bytes.Buffer
	if code := run(args, nil, io.Discard, &stderr); code != 0 {
		t.Fatalf("simulate %v: exit %d: %s", extra, code, stderr.String())
	}
	return out
}

func readFile(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Merging the shards of a run, given in any order, gives the serial run's
// ledger and sidecar byte for byte.
func TestMergeByteIdentical(t *testing.T) {
	dir := t.TempDir()
	whole := simulateTo(t, dir, "whole")
	var parts []string
	for _, s := range []string{"3/4", "1/4", "4/4", "2/4"} {
		parts = append(parts, simulateTo(t, dir, "part-"+s[:1], "--shard", s))
	}
	merged := filepath.Join(dir, "merged.jsonl")
	code, _, stderr := runCmd(t, append([]string{"merge", "--out", merged}, parts...)...)
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	if !bytes.Equal(readFile(t, whole), readFile(t, merged)) {
		t.Error("merged ledger differs from the serial run")
	}
	if a, b := readFile(t, design.MetaPath(whole)), readFile(t, design.MetaPath(merged)); !bytes.Equal(a, b) {
		t.Errorf("merged sidecar differs from the serial run's:\n%s\nwant\n%s", b, a)
	}
	// To stdout: the same bytes, no sidecar.
	code, stdout, stderr := runCmd(t, append([]string{"merge", "--out", "-"}, parts...)...)
	if code != 0 || stdout != string(readFile(t, whole)) {
		t.Errorf("merge --out -: exit %d, %d bytes (want %d): %s", code, len(stdout), len(readFile(t, whole)), stderr)
	}
}

// Incomplete, repeated, mixed or damaged shards are refused, and nothing is
// written.
func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	p1 := simulateTo(t, dir, "p1", "--shard", "1/3")
	p2 := simulateTo(t, dir, "p2", "--shard", "2/3")
	p3 := simulateTo(t, dir, "p3", "--shard", "3/3")
	other := filepath.Join(dir, "other")
	if err := os.Mkdir(other, 0o755); err != nil {
		t.Fatal(err)
	}
	seed8 := filepath.Join(other, "p3.jsonl")
	if code, _, stderr := runCmd(t, "simulate", "--design", smallDesign, "--seed", "8", "--shard", "3/3", "--out", seed8); code != 0 {
		t.Fatal(stderr)
	}
	half := simulateTo(t, dir, "half", "--shard", "2/2")
	// A truncated copy of shard 2 with its sidecar.
	trunc := filepath.Join(dir, "trunc.jsonl")
	b := readFile(t, p2)
	if err := os.WriteFile(trunc, b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(design.MetaPath(trunc), readFile(t, design.MetaPath(p2)), 0o644); err != nil {
		t.Fatal(err)
	}
	short := filepath.Join(dir, "short.jsonl")
	lines := bytes.SplitAfter(b, []byte("\n"))
	if err := os.WriteFile(short, bytes.Join(lines[1:], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(design.MetaPath(short), readFile(t, design.MetaPath(p2)), 0o644); err != nil {
		t.Fatal(err)
	}
	nometa := filepath.Join(dir, "nometa.jsonl")
	if err := os.WriteFile(nometa, b, 0o644); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		name   string
		shards []string
		code   int
		want   string
	}{
		{"missing", []string{p1, p3}, exitFailure, "shard 2/3 missing"},
		{"repeated", []string{p1, p2, p2, p3}, exitFailure, "shard 2/3 given twice"},
		{"other seed", []string{p1, p2, seed8}, exitFailure, "seed"},
		{"other N", []string{p1, p2, half}, exitFailure, "number of shards"},
		{"truncated", []string{p1, trunc, p3}, exitFailure, "incomplete"},
		{"short", []string{p1, short, p3}, exitFailure, "declares"},
		{"no sidecar", []string{p1, nometa, p3}, exitFailure, "no sidecar"},
		{"no shards", nil, exitUsage, "give the shard"},
		{"out is a shard", []string{p1, p2, p3, filepath.Join(dir, "out-out-is-a-shard.jsonl")}, exitUsage, "is one of the shards"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := filepath.Join(dir, "out-"+strings.ReplaceAll(c.name, " ", "-")+".jsonl")
			code, _, stderr := runCmd(t, append([]string{"merge", "--out", out}, c.shards...)...)
			if code != c.code || !strings.Contains(stderr, c.want) {
				t.Errorf("exit %d, stderr %q; want exit %d mentioning %q", code, stderr, c.code, c.want)
			}
			if _, err := os.Stat(out); err == nil {
				t.Errorf("%s written despite the error", out)
			}
		})
	}
}
