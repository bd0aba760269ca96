package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/internal/outfile"
)

type mergeOptions struct {
	out    string // merged raw JSONL ledger; "-" for stdout
	shards []string
}

func newMergeCmd(e *env) *cobra.Command {
	var o mergeOptions
	cmd := &cobra.Command{
		Use:   "merge --out LEDGER.jsonl SHARD.jsonl...",
		Short: "Combine the shards of a simulate --shard run into the whole run",
		Long: `merge combines the raw JSONL ledgers written by 'simulate --shard I/N'
into the ledger of the whole run, byte for byte the one a serial run with the
same design and seed writes, with its LEDGER.meta.json sidecar.

Each shard is read with its sidecar (SHARD.meta.json beside SHARD.jsonl).
Before anything is written merge checks that the shards belong together
(same design, design and profile hashes, seed, toolkit and schema versions,
same N), that every shard 1…N is present exactly once, and that each file
holds exactly the episodes its sidecar declares. Shards may be given in any
order; they are concatenated in design order. The output appears atomically.

Shards of 'drive --shard I/N' are merged the same way: one plan (by its
SHA-256), every shard once, and every planned episode exactly once (in any
order within a shard); the merged ledger lists them in plan order.

Examples:
  for i in 1 2 3 4; do limbo-analyze simulate --seed 7 --shard $i/4 --out part-$i.jsonl; done
  limbo-analyze merge --out run.jsonl part-*.jsonl
  limbo-analyze merge --out - part-1.jsonl part-2.jsonl | wc -l`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.out == "" {
				return usagef("merge: --out is required")
			}
			if len(args) == 0 {
				return usagef("merge: give the shard ledgers to merge")
			}
			for _, a := range args {
				if filepath.Clean(a) == filepath.Clean(o.out) || outfile.SameFile(a, o.out) {
					return usagef("merge: --out %s is one of the shards", o.out)
				}
				if o.out != "-" && (filepath.Clean(metaPath(a)) == filepath.Clean(metaPath(o.out)) || outfile.SameFile(metaPath(a), metaPath(o.out))) {
					return usagef("merge: --out %s would replace the sidecar of shard %s", o.out, a)
				}
			}
			o.shards = args
			return runMerge(o, e)
		},
	}
	cmd.Flags().StringVar(&o.out, "out", "", `merged raw ledger to write (JSONL; "-" for stdout)`)
	return cmd
}

// shardFile is one input of merge with its sidecar.
type shardFile struct {
	path string
	meta simMeta
	i, n int
}

func readShardMeta(path string) (shardFile, error) {
	mp := metaPath(path)
	b, err := os.ReadFile(mp)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return shardFile{}, fmt.Errorf("%s: no sidecar %s (merge needs the .meta.json simulate writes beside each shard)", path, mp)
		}
		return shardFile{}, fmt.Errorf("%s: %w", mp, err)
	}
	s := shardFile{path: path}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s.meta); err != nil {
		return shardFile{}, fmt.Errorf("%s: not a simulate sidecar: %v", mp, err)
	}
	if s.i, s.n, err = parseShard(s.meta.Shard); err != nil {
		return shardFile{}, fmt.Errorf("%s: field shard: %v", mp, err)
	}
	lo, hi := shardRange(s.meta.DesignTotal, s.i, s.n)
	if s.meta.DesignTotal < 0 || s.meta.FirstEpisode != lo || s.meta.Episodes != hi-lo {
		return shardFile{}, fmt.Errorf("%s: shard %s of %d episodes should hold episodes [%d, %d), the sidecar says first_episode %d, episodes %d",
			mp, s.meta.Shard, s.meta.DesignTotal, lo, hi, s.meta.FirstEpisode, s.meta.Episodes)
	}
	return s, nil
}

// runFields identify a run: every shard of it agrees on them.
var runFields = []struct {
	name string
	get  func(shardFile) string
}{
	{"toolkit_version", func(s shardFile) string { return s.meta.Toolkit }},
	{"ledger_schema", func(s shardFile) string { return s.meta.Schema }},
	{"design", func(s shardFile) string { return s.meta.Design }},
	{"design_name", func(s shardFile) string { return s.meta.DesignName }},
	{"design_sha256", func(s shardFile) string { return s.meta.DesignSHA256 }},
	{"profiles_sha256", func(s shardFile) string { return s.meta.ProfileSHA256 }},
	{"seed", func(s shardFile) string { return fmt.Sprint(s.meta.Seed) }},
	{"design_total", func(s shardFile) string { return fmt.Sprint(s.meta.DesignTotal) }},
	{"number of shards", func(s shardFile) string { return fmt.Sprint(s.n) }},
}

// checkShards orders the shards and verifies they are exactly 1…N of one run.
func checkShards(shards []shardFile) error {
	ref := shards[0]
	for _, s := range shards[1:] {
		for _, f := range runFields {
			if a, b := f.get(ref), f.get(s); a != b {
				return fmt.Errorf("%s and %s are not shards of one run: %s %q ≠ %q", ref.path, s.path, f.name, a, b)
			}
		}
	}
	slices.SortStableFunc(shards, func(a, b shardFile) int { return a.i - b.i })
	var missing []string
	next := 1
	for k, s := range shards {
		if k > 0 && shards[k-1].i == s.i {
			return fmt.Errorf("shard %d/%d given twice: %s and %s", s.i, s.n, shards[k-1].path, s.path)
		}
		for ; next < s.i; next++ {
			missing = append(missing, fmt.Sprintf("%d/%d", next, ref.n))
		}
		next = s.i + 1
	}
	for ; next <= ref.n; next++ {
		missing = append(missing, fmt.Sprintf("%d/%d", next, ref.n))
	}
	if len(missing) > 0 {
		return fmt.Errorf("incomplete run: shard %s missing (%d of %d given)", strings.Join(missing, ", "), len(shards), ref.n)
	}
	return nil
}

func runMerge(o mergeOptions, e *env) error {
	if isDriveSidecar(o.shards[0]) {
		return runMergeDriven(o, e)
	}
	shards := make([]shardFile, len(o.shards))
	for k, p := range o.shards {
		s, err := readShardMeta(p)
		if err != nil {
			return err
		}
		shards[k] = s
	}
	if err := checkShards(shards); err != nil {
		return err
	}
	// Count lines first so a short or truncated shard is caught before the
	// output is created (a second read is cheap next to simulating).
	for _, s := range shards {
		if err := checkShardLines(s); err != nil {
			return err
		}
	}

	// The merged ledger and its sidecar are one unit.
	ins := make([]string, 0, 2*len(shards))
	for _, s := range shards {
		ins = append(ins, s.path, metaPath(s.path))
	}
	u := outfile.NewUnit(ins...)
	defer u.Abort() // no-op after Commit
	var out io.Writer
	var raw *outfile.File
	if o.out == "-" {
		out = e.stdout
	} else {
		var err error
		if raw, err = u.Create(o.out); err != nil {
			return err
		}
		out = raw
	}
	for _, s := range shards {
		if err := copyFile(out, s.path); err != nil {
			return err
		}
	}
	if raw == nil {
		return nil
	}
	if err := raw.Close(); err != nil {
		return err
	}
	m := shards[0].meta
	m.Shard, m.FirstEpisode, m.Episodes = "1/1", 0, m.DesignTotal
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := u.WriteFile(metaPath(o.out), append(b, '\n')); err != nil {
		return err
	}
	if err := u.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "merged %d shards, %d episodes, into %s\n", len(shards), m.Episodes, o.out)
	return nil
}

// checkShardLines verifies the shard has as many complete lines as its
// sidecar declares episodes.
func checkShardLines(s shardFile) error {
	f, err := os.Open(s.path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 1<<20)
	n, last := 0, byte('\n')
	buf := make([]byte, 1<<20)
	for {
		k, err := r.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", s.path, err)
		}
	}
	if last != '\n' {
		return fmt.Errorf("%s: last line is incomplete (truncated shard?)", s.path)
	}
	if n != s.meta.Episodes {
		return fmt.Errorf("%s: %d lines, but its sidecar declares %d episodes (shard %s)", s.path, n, s.meta.Episodes, s.meta.Shard)
	}
	return nil
}

func copyFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}
