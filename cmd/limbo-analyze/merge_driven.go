package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/limbo-toolkit/limbo/internal/outfile"
	"io"
	"os"
)

// runMergeDriven merges the ledgers of drive --shard: the same checks as
// for simulated shards (one plan, every shard 1…N exactly once), then
// every planned episode of each shard exactly once in its ledger (driven
// episodes are appended as they end, so order is not checked). The merged
// ledger lists the episodes in plan order.
func runMergeDriven(o mergeOptions, e *env) error {
	shards := make([]shardFile, len(o.shards))
	metas := map[string]*driveMeta{}
	for k, p := range o.shards {
		m, err := readDriveMeta(metaPath(p))
		if err != nil {
			return fmt.Errorf("%s: %w", p, err)
		}
		i, n, err := parseShard(m.Shard)
		if err != nil {
			return fmt.Errorf("%s: field shard: %v", metaPath(p), err)
		}
		lo, hi := shardRange(m.PlanTotal, i, n)
		if m.FirstEpisode != lo || m.Episodes != hi-lo {
			return fmt.Errorf("%s: shard %s of %d episodes should hold episodes [%d, %d), the sidecar says first_episode %d, episodes %d",
				metaPath(p), m.Shard, m.PlanTotal, lo, hi, m.FirstEpisode, m.Episodes)
		}
		// The run identity in simulate's terms, so checkShards applies:
		// the plan's hash and size stand for the design's.
		shards[k] = shardFile{path: p, i: i, n: n, meta: simMeta{
			Schema: m.Schema, Design: "drive plan", DesignSHA256: m.PlanSHA256, DesignTotal: m.PlanTotal,
			Shard: m.Shard, FirstEpisode: m.FirstEpisode, Episodes: m.Episodes,
		}}
		metas[p] = m
	}
	if err := checkShards(shards); err != nil {
		return err
	}
	// Every line of every shard, checked before the output is created.
	lines := make([]map[string][]byte, len(shards))
	for k, s := range shards {
		var err error
		if lines[k], err = drivenLines(s.path, metas[s.path]); err != nil {
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
	w := bufio.NewWriter(out)
	for k, s := range shards {
		for _, id := range metas[s.path].EpisodeIDs {
			w.Write(lines[k][id])
			w.WriteByte('\n')
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if raw == nil {
		return nil
	}
	if err := raw.Close(); err != nil {
		return err
	}
	all := *metas[shards[0].path]
	all.Shard, all.FirstEpisode, all.Episodes = "1/1", 0, all.PlanTotal
	all.EpisodeIDs = nil
	for _, s := range shards {
		all.EpisodeIDs = append(all.EpisodeIDs, metas[s.path].EpisodeIDs...)
	}
	b, err := all.marshal()
	if err != nil {
		return err
	}
	if err := u.WriteFile(metaPath(o.out), b); err != nil {
		return err
	}
	if err := u.Commit(); err != nil {
		return err
	}
	fmt.Fprintf(e.stderr, "merged %d driven shards, %d episodes, into %s\n", len(shards), all.Episodes, o.out)
	return nil
}

// drivenLines reads a driven shard's ledger: every line an episode of the
// shard's plan slice, each planned episode exactly once.
func drivenLines(path string, m *driveMeta) (map[string][]byte, error) {
	planned := make(map[string]bool, len(m.EpisodeIDs))
	for _, id := range m.EpisodeIDs {
		planned[id] = true
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return nil, fmt.Errorf("%s: last line is incomplete (interrupted drive? run drive --shard %s again to repair and finish it)", path, m.Shard)
	}
	got := make(map[string][]byte, len(m.EpisodeIDs))
	firstLine := map[string]int{}
	for n, line := range bytes.Split(bytes.TrimSuffix(data, []byte{'\n'}), []byte{'\n'}) {
		if len(data) == 0 {
			break
		}
		var head struct {
			EpisodeID string `json:"episode_id"`
		}
		if err := json.Unmarshal(line, &head); err != nil || head.EpisodeID == "" {
			return nil, fmt.Errorf("%s:%d: episode_id: not an episode line", path, n+1)
		}
		id := head.EpisodeID
		if !planned[id] {
			return nil, fmt.Errorf("%s:%d: episode_id: %q is not a planned episode of shard %s", path, n+1, id, m.Shard)
		}
		if prev, dup := firstLine[id]; dup {
			return nil, fmt.Errorf("%s:%d: episode_id: %q recorded twice (first on line %d)", path, n+1, id, prev)
		}
		firstLine[id] = n + 1
		got[id] = line
	}
	if len(got) != len(m.EpisodeIDs) {
		for _, id := range m.EpisodeIDs {
			if got[id] == nil {
				return nil, fmt.Errorf("%s: incomplete shard %s: %d of %d planned episodes recorded; missing %q (run drive --shard %s again)",
					path, m.Shard, len(got), len(m.EpisodeIDs), id, m.Shard)
			}
		}
	}
	return got, nil
}
