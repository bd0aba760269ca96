package mcp

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzShardMeta: any bytes in a driven shard's sidecar give a sidecar
// whose plan and episode ids agree, or an error naming the file — never a
// panic. IsDrivenShard reads the same bytes.
func FuzzShardMeta(f *testing.F) {
	f.Add([]byte(`{"kind":"drive","shard":"1/2","episodes":1,"episode_ids":["a"],"plan":[{"episode_id":"a","template":"T01","fault_mode":"none"}]}`))
	f.Add([]byte(`{"kind":"drive","episodes":0,"episode_ids":[],"plan":[]}`))
	f.Add([]byte(`{"kind":"drive","episodes":-1}`))
	f.Add([]byte(`{"plan":[{}],"episodes":1,"episode_ids":[""]}`))
	f.Add([]byte(`[`))
	dir := f.TempDir()
	path := filepath.Join(dir, "s.meta.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadShardMeta(path)
		IsDrivenShard(filepath.Join(dir, "s.jsonl"))
		if err != nil {
			return
		}
		if m.Kind != ShardKind || len(m.Plan) != m.Episodes || len(m.EpisodeIDs) != m.Episodes {
			t.Fatalf("accepted an inconsistent sidecar: kind %q, %d planned, %d ids, %d episodes", m.Kind, len(m.Plan), len(m.EpisodeIDs), m.Episodes)
		}
	})
}
