package design

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

func TestParseShard(t *testing.T) {
	tests := []struct {
		in      string
		i, n    int
		wantErr bool
	}{
		{"", 1, 1, false},
		{"1/1", 1, 1, false},
		{"3/8", 3, 8, false},
		{"0/4", 0, 0, true},
		{"5/4", 0, 0, true},
		{"1/0", 0, 0, true},
		{"2", 0, 0, true},
		{"a/b", 0, 0, true},
	}
	for _, tt := range tests {
		i, n, err := ParseShard(tt.in)
		if (err != nil) != tt.wantErr || i != tt.i || n != tt.n {
			t.Errorf("ParseShard(%q) = %d, %d, %v; want %d, %d, error %v", tt.in, i, n, err, tt.i, tt.n, tt.wantErr)
		}
	}
}

// The shards of a run cover [0, total) contiguously, each episode once,
// with sizes differing by at most one.
func TestShardRangeCovers(t *testing.T) {
	for _, total := range []int{0, 1, 7, 64, 25930} {
		for n := 1; n <= 9; n++ {
			next := 0
			for i := 1; i <= n; i++ {
				lo, hi := ShardRange(total, i, n)
				if lo != next || hi < lo || hi-lo > total/n+1 {
					t.Fatalf("total %d, shard %d/%d: [%d, %d), previous ended at %d", total, i, n, lo, hi, next)
				}
				next = hi
			}
			if next != total {
				t.Fatalf("total %d, %d shards end at %d", total, n, next)
			}
		}
	}
}

func TestMetaPath(t *testing.T) {
	for in, want := range map[string]string{"a/run.jsonl": "a/run.meta.json", "x.ndjson": "x.meta.json", "noext": "noext.meta.json"} {
		if got := MetaPath(in); got != want {
			t.Errorf("MetaPath(%q) = %q, want %q", in, got, want)
		}
	}
}

const smallDesign = "../testdata/sim/small.json"

// runShards writes shards 1…n of the small design with seed 7 into dir and
// returns their paths; n 1 is the whole run.
func runShards(t *testing.T, dir, name string, n int) []string {
	t.Helper()
	sim, err := LoadSimulator(smallDesign, "", 7)
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i := 1; i <= n; i++ {
		p := filepath.Join(dir, name+"-"+string(rune('0'+i))+".jsonl")
		shard := ""
		if n > 1 {
			shard = string(rune('0'+i)) + "/" + string(rune('0'+n))
		}
		if err := Run(sim, RunOptions{Design: smallDesign, Out: p, Jobs: 2, Shard: shard, Toolkit: "test"}); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// Merging the shards, given in any order, gives the serial run's bytes and
// a sidecar equal to the serial run's.
func TestMergeEqualsSerial(t *testing.T) {
	dir := t.TempDir()
	whole := runShards(t, dir, "whole", 1)[0]
	parts := runShards(t, dir, "part", 3)
	out := filepath.Join(dir, "merged.jsonl")
	n, err := Merge(out, nil, []string{parts[2], parts[0], parts[1]})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]string{{whole, out}, {MetaPath(whole), MetaPath(out)}} {
		a, _ := os.ReadFile(p[0])
		b, _ := os.ReadFile(p[1])
		if len(a) == 0 || !bytes.Equal(a, b) {
			t.Errorf("%s (%d bytes) and %s (%d bytes) differ", p[0], len(a), p[1], len(b))
		}
	}
	if lines := bytes.Count(mustRead(t, out), []byte{'\n'}); n != lines {
		t.Errorf("Merge returned %d episodes, the ledger has %d lines", n, lines)
	}
	var stdout bytes.Buffer
	if _, err := Merge("-", &stdout, parts); err != nil || !bytes.Equal(stdout.Bytes(), mustRead(t, whole)) {
		t.Errorf("merge to stdout: err %v, equal %v", err, bytes.Equal(stdout.Bytes(), mustRead(t, whole)))
	}
}

func TestMergeRefuses(t *testing.T) {
	dir := t.TempDir()
	parts := runShards(t, dir, "part", 3)
	trunc := filepath.Join(dir, "trunc.jsonl")
	b := mustRead(t, parts[1])
	if err := os.WriteFile(trunc, b[:len(b)-5], 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(MetaPath(trunc), mustRead(t, MetaPath(parts[1])), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		shards []string
		want   string
	}{
		{"missing", []string{parts[0], parts[2]}, "shard 2/3 missing"},
		{"twice", []string{parts[0], parts[1], parts[1], parts[2]}, "given twice"},
		{"truncated", []string{parts[0], trunc, parts[2]}, "incomplete"},
		{"no sidecar", []string{parts[0], filepath.Join(dir, "none.jsonl")}, "no sidecar"},
	}
	for _, tt := range tests {
		out := filepath.Join(dir, tt.name+".out.jsonl")
		_, err := Merge(out, nil, tt.shards)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
		if _, serr := os.Stat(out); serr == nil {
			t.Errorf("%s: output written despite the error", tt.name)
		}
	}
}

// Shards of different runs (another seed) are refused, naming the field.
func TestCheckShardsOneRun(t *testing.T) {
	a := Shard{Path: "a", I: 1, N: 2, Meta: Meta{Seed: 1}}
	b := Shard{Path: "b", I: 2, N: 2, Meta: Meta{Seed: 2}}
	if err := CheckShards([]Shard{a, b}); err == nil || !strings.Contains(err.Error(), "seed") {
		t.Errorf("err %v, want a seed mismatch", err)
	}
	b.Meta.Seed = 1
	if err := CheckShards([]Shard{b, a}); err != nil {
		t.Errorf("err %v", err)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Chunks' buffers are handed back and reused once emitted: over many
// chunks, on several workers, every chunk's lines are its own, the same
// as one worker's and as each episode's line written alone.
func TestGenerateReusesBuffers(t *testing.T) {
	sim, err := LoadSimulator("paper", "", 3)
	if err != nil {
		t.Fatal(err)
	}
	const n = 12 * chunkSize
	run := func(jobs int) []byte {
		var out []byte
		if err := Generate(sim, 0, n, jobs, false, func(c *Chunk) error {
			out = append(out, c.Buf...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	var want []byte
	for i := range n {
		raw, err := sim.Episode(i)
		if err != nil {
			t.Fatal(err)
		}
		want = ledger.AppendRaw(want, raw)
	}
	for _, jobs := range []int{1, 3} {
		if got := run(jobs); !bytes.Equal(got, want) {
			t.Errorf("%d workers: the chunks' lines differ from the episodes' own", jobs)
		}
	}
}
