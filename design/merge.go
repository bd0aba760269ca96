package design

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

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/internal/readlimit"
	"github.com/limbo-toolkit/limbo/outfile"
)

// Merging lives here, beside the sidecar it reads: whether shards belong
// together is a question about the design (its hash, size and seed), not
// about ledger rows. Driven shards (package mcp) reuse CheckShards with
// their plan standing for the design.

// Shard is one input of a merge: a shard ledger, its sidecar and its
// position I of N.
type Shard struct {
	Path string
	Meta Meta
	I, N int
}

// ReadShard reads the sidecar of the shard ledger path and checks that it
// declares the slice ShardRange gives its shard.
func ReadShard(path string) (Shard, error) {
	mp := MetaPath(path)
	b, err := readlimit.ReadFile(mp, "a run's sidecar", readlimit.Manifest)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Shard{}, fmt.Errorf("%s: no sidecar %s (merge needs the .meta.json simulate writes beside each shard)", path, mp)
		}
		var big *readlimit.TooLargeError
		if errors.As(err, &big) {
			return Shard{}, err
		}
		return Shard{}, fmt.Errorf("%s: %w", mp, err)
	}
	s := Shard{Path: path}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s.Meta); err != nil {
		return Shard{}, fmt.Errorf("%s: not a simulate sidecar: %v", mp, err)
	}
	if s.I, s.N, err = ParseShard(s.Meta.Shard); err != nil {
		return Shard{}, fmt.Errorf("%s: field shard: %v", mp, err)
	}
	lo, hi := ShardRange(s.Meta.DesignTotal, s.I, s.N)
	if s.Meta.DesignTotal < 0 || s.Meta.FirstEpisode != lo || s.Meta.Episodes != hi-lo {
		return Shard{}, fmt.Errorf("%s: shard %s of %d episodes should hold episodes [%d, %d), the sidecar says first_episode %d, episodes %d",
			mp, s.Meta.Shard, s.Meta.DesignTotal, lo, hi, s.Meta.FirstEpisode, s.Meta.Episodes)
	}
	return s, nil
}

// runFields identify a run: every shard of it agrees on them.
var runFields = []struct {
	name string
	get  func(Shard) string
}{
	{"toolkit_version", func(s Shard) string { return s.Meta.Toolkit }},
	{"ledger_schema", func(s Shard) string { return s.Meta.Schema }},
	{"design", func(s Shard) string { return s.Meta.Design }},
	{"design_name", func(s Shard) string { return s.Meta.DesignName }},
	{"design_sha256", func(s Shard) string { return s.Meta.DesignSHA256 }},
	{"profiles_sha256", func(s Shard) string { return s.Meta.ProfileSHA256 }},
	{"seed", func(s Shard) string { return fmt.Sprint(s.Meta.Seed) }},
	{"design_total", func(s Shard) string { return fmt.Sprint(s.Meta.DesignTotal) }},
	{"number of shards", func(s Shard) string { return fmt.Sprint(s.N) }},
}

// CheckShards orders the shards by I and verifies they are exactly 1…N of
// one run.
func CheckShards(shards []Shard) error {
	if len(shards) == 0 {
		return errors.New("no shards")
	}
	ref := shards[0]
	for _, s := range shards[1:] {
		for _, f := range runFields {
			if a, b := f.get(ref), f.get(s); a != b {
				return fmt.Errorf("%s and %s are not shards of one run: %s %q ≠ %q", ref.Path, s.Path, f.name, a, b)
			}
		}
	}
	slices.SortStableFunc(shards, func(a, b Shard) int { return a.I - b.I })
	var missing []string
	next := 1
	for k, s := range shards {
		if k > 0 && shards[k-1].I == s.I {
			return fmt.Errorf("shard %d/%d given twice: %s and %s", s.I, s.N, shards[k-1].Path, s.Path)
		}
		for ; next < s.I; next++ {
			missing = append(missing, fmt.Sprintf("%d/%d", next, ref.N))
		}
		next = s.I + 1
	}
	for ; next <= ref.N; next++ {
		missing = append(missing, fmt.Sprintf("%d/%d", next, ref.N))
	}
	if len(missing) > 0 {
		return fmt.Errorf("incomplete run: shard %s missing (%d of %d given)", strings.Join(missing, ", "), len(shards), ref.N)
	}
	return nil
}

// CheckMergeOutput refuses a merge output (a raw ledger, "-" for stdout)
// that is one of the shards, or whose sidecar would replace a shard's,
// however the paths are spelled; merge checks it before any work.
func CheckMergeOutput(out string, shards []string) error {
	for _, a := range shards {
		if filepath.Clean(a) == filepath.Clean(out) || outfile.SameFile(a, out) {
			return fieldtext.New("Out", "{Out} %s is one of the shards", out)
		}
		if ma, mo := MetaPath(a), MetaPath(out); out != "-" && (filepath.Clean(ma) == filepath.Clean(mo) || outfile.SameFile(ma, mo)) {
			return fieldtext.New("Out", "{Out} %s would replace the sidecar of shard %s", out, a)
		}
	}
	return nil
}

// Merge combines the shard ledgers of one simulate run into out ("-"
// writes to stdout and no sidecar), byte for byte the ledger of a serial
// run, with its sidecar. Every check runs before the output is created;
// ledger and sidecar appear as one unit. It returns the episode count.
func Merge(out string, stdout io.Writer, paths []string) (int, error) {
	shards := make([]Shard, len(paths))
	for k, p := range paths {
		s, err := ReadShard(p)
		if err != nil {
			return 0, err
		}
		shards[k] = s
	}
	if err := CheckShards(shards); err != nil {
		return 0, err
	}
	// Count lines first so a short or truncated shard is caught before the
	// output is created (a second read is cheap next to simulating).
	for _, s := range shards {
		if err := checkShardLines(s); err != nil {
			return 0, err
		}
	}
	m := shards[0].Meta
	m.Shard, m.FirstEpisode, m.Episodes = "1/1", 0, m.DesignTotal
	b, err := m.Marshal()
	if err != nil {
		return 0, err
	}
	err = WriteMerged(out, stdout, shards, b, func(w io.Writer, s Shard) error {
		f, err := os.Open(s.Path)
		if err != nil {
			return err
		}
		defer f.Close()
		if _, err := io.Copy(w, f); err != nil {
			return fmt.Errorf("%s: %w", s.Path, err)
		}
		return nil
	})
	return m.Episodes, err
}

// WriteMerged writes a merged ledger and its sidecar meta as one unit
// whose inputs are the shards and their sidecars: each shard's lines are
// written by copy, in the order of shards. With out "-" the lines go to
// stdout and no sidecar is written.
func WriteMerged(out string, stdout io.Writer, shards []Shard, meta []byte, copy func(io.Writer, Shard) error) error {
	ins := make([]string, 0, 2*len(shards))
	for _, s := range shards {
		ins = append(ins, s.Path, MetaPath(s.Path))
	}
	u := outfile.NewUnit(ins...)
	defer u.Abort() // no-op after Commit
	w := stdout
	var raw *outfile.File
	if out != "-" {
		var err error
		if raw, err = u.Create(out); err != nil {
			return err
		}
		w = raw
	}
	for _, s := range shards {
		if err := copy(w, s); err != nil {
			return err
		}
	}
	if raw == nil {
		return nil
	}
	if err := raw.Close(); err != nil {
		return err
	}
	if err := u.WriteFile(MetaPath(out), meta); err != nil {
		return err
	}
	return u.Commit()
}

// checkShardLines verifies the shard has as many complete lines as its
// sidecar declares episodes.
func checkShardLines(s Shard) error {
	f, err := os.Open(s.Path)
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
			return fmt.Errorf("%s: %w", s.Path, err)
		}
	}
	if last != '\n' {
		return fmt.Errorf("%s: last line is incomplete (truncated shard?)", s.Path)
	}
	if n != s.Meta.Episodes {
		return fmt.Errorf("%s: %d lines, but its sidecar declares %d episodes (shard %s)", s.Path, n, s.Meta.Episodes, s.Meta.Shard)
	}
	return nil
}
