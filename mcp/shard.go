package mcp

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/internal/readlimit"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
)

// ShardKind marks a sidecar written by drive --shard (simulate's have no
// kind field).
const ShardKind = "drive"

// ShardMeta is the sidecar of a driven shard (LEDGER.meta.json): which
// plan, which slice of it, and the ids merge expects in the ledger.
type ShardMeta struct {
	Kind         string   `json:"kind"`
	Toolkit      string   `json:"toolkit_version"`
	Schema       string   `json:"ledger_schema"`
	PlanSHA256   string   `json:"plan_sha256"`
	PlanTotal    int      `json:"plan_total"`
	Shard        string   `json:"shard"`
	FirstEpisode int      `json:"first_episode"`
	Episodes     int      `json:"episodes"`
	EpisodeIDs   []string `json:"episode_ids"`
	// Plan is the shard's slice of the plan, its episodes as planned
	// (normalized): merge checks every line against its entry, and that
	// the slices of all shards make the plan PlanSHA256 names.
	Plan []Episode `json:"plan"`
}

// ShardPlan returns the I-th of N contiguous slices of the plan (the split
// of simulate --shard, design.ShardRange) and the sidecar that describes
// it; toolkit is the version recorded in the sidecar.
func ShardPlan(plan *Plan, shard, toolkit string) (*Plan, *ShardMeta, error) {
	i, n, err := design.ParseShard(shard)
	if err != nil {
		return nil, nil, err
	}
	if n > plan.Len() {
		return nil, nil, fieldtext.New("Shard", "{Shard} %s: %d shards for a plan of %d episodes would leave shards empty; use at most %d", shard, n, plan.Len(), plan.Len())
	}
	data, err := plan.Marshal()
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(data)
	lo, hi := design.ShardRange(plan.Len(), i, n)
	m := &ShardMeta{
		Kind: ShardKind, Toolkit: toolkit, Schema: ledger.SchemaVersion,
		PlanSHA256: hex.EncodeToString(sum[:]), PlanTotal: plan.Len(),
		Shard: fmt.Sprintf("%d/%d", i, n), FirstEpisode: lo, Episodes: hi - lo, EpisodeIDs: []string{},
	}
	for k := lo; k < hi; k++ {
		m.EpisodeIDs = append(m.EpisodeIDs, plan.Episodes[k].EpisodeID)
	}
	m.Plan = slices.Clone(plan.Episodes[lo:hi])
	part, err := NewPlan(slices.Clone(plan.Episodes[lo:hi]))
	if err != nil {
		return nil, nil, err
	}
	return part, m, nil
}

// CheckExisting refuses to resume into the ledger out when its sidecar
// describes another plan or another shard, or was written by another
// toolkit version (whose sandbox may differ: a shard's episodes come from
// one version); no sidecar is fine (the caller checks the ledger's lines).
func (m *ShardMeta) CheckExisting(out string) error {
	mp := design.MetaPath(out)
	old, err := ReadShardMeta(mp)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if old.PlanSHA256 != m.PlanSHA256 || old.Shard != m.Shard {
		return fieldtext.New("Out", "%s: holds shard %s of plan %.12s…, not shard %s of this plan (%.12s…); use another {Out}",
			mp, old.Shard, old.PlanSHA256, m.Shard, m.PlanSHA256)
	}
	if old.Toolkit != m.Toolkit {
		return fieldtext.New("Out", "%s: shard %s was driven by toolkit %s, this is %s; finish it with %s, or drive the shard again into another {Out}",
			mp, m.Shard, old.Toolkit, m.Toolkit, old.Toolkit)
	}
	return nil
}

// Marshal returns the sidecar's bytes as written.
func (m *ShardMeta) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Write writes the sidecar of the ledger out atomically.
func (m *ShardMeta) Write(out string) error {
	b, err := m.Marshal()
	if err != nil {
		return err
	}
	return outfile.WriteFile(design.MetaPath(out), b)
}

// ReadShardMeta reads a driven shard's sidecar; the error names the file
// and the field.
func ReadShardMeta(path string) (*ShardMeta, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPlanBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxPlanBytes {
		return nil, fmt.Errorf("%s: larger than %d MiB: not a drive sidecar", path, maxPlanBytes>>20)
	}
	var m ShardMeta
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: not a drive sidecar: %v", path, err)
	}
	if m.Kind != ShardKind {
		return nil, fmt.Errorf("%s: field kind: %q, want %q", path, m.Kind, ShardKind)
	}
	if len(m.EpisodeIDs) != m.Episodes {
		return nil, fmt.Errorf("%s: field episode_ids: %d ids for %d episodes", path, len(m.EpisodeIDs), m.Episodes)
	}
	if m.Plan == nil {
		return nil, fmt.Errorf("%s: field plan: missing (a sidecar of an older drive, which recorded the plan only by its hash): drive the shard again with this version", path)
	}
	if len(m.Plan) != m.Episodes {
		return nil, fmt.Errorf("%s: field plan: %d episodes for %d", path, len(m.Plan), m.Episodes)
	}
	for k := range m.Plan {
		if m.Plan[k].EpisodeID != m.EpisodeIDs[k] {
			return nil, fmt.Errorf("%s: field plan: episode %d is %q, episode_ids says %q", path, k, m.Plan[k].EpisodeID, m.EpisodeIDs[k])
		}
	}
	return &m, nil
}

// IsDrivenShard reports whether the sidecar of the shard ledger was
// written by drive.
func IsDrivenShard(shard string) bool {
	b, err := readlimit.ReadFile(design.MetaPath(shard), "a drive sidecar", maxPlanBytes)
	if err != nil {
		return false
	}
	var head struct {
		Kind string `json:"kind"`
	}
	return json.Unmarshal(b, &head) == nil && head.Kind == ShardKind
}

// MergeShards merges the ledgers of drive --shard into out ("-" for
// stdout, no sidecar): the same checks as for simulated shards (one plan,
// every shard 1…N exactly once), then every planned episode of each shard
// exactly once in its ledger (driven episodes are appended as they end, so
// order is not checked). The merged ledger lists the episodes in plan
// order. It returns the episode count.
func MergeShards(out string, stdout io.Writer, paths []string) (int, error) {
	shards := make([]design.Shard, len(paths))
	metas := map[string]*ShardMeta{}
	for k, p := range paths {
		mp := design.MetaPath(p)
		m, err := ReadShardMeta(mp)
		if err != nil {
			return 0, fmt.Errorf("%s: %w", p, err)
		}
		i, n, err := design.ParseShard(m.Shard)
		if err != nil {
			return 0, fmt.Errorf("%s: field shard: %v", mp, err)
		}
		lo, hi := design.ShardRange(m.PlanTotal, i, n)
		if m.FirstEpisode != lo || m.Episodes != hi-lo {
			return 0, fmt.Errorf("%s: shard %s of %d episodes should hold episodes [%d, %d), the sidecar says first_episode %d, episodes %d",
				mp, m.Shard, m.PlanTotal, lo, hi, m.FirstEpisode, m.Episodes)
		}
		// The run identity in simulate's terms, so CheckShards applies:
		// the plan's hash and size stand for the design's.
		shards[k] = design.Shard{Path: p, I: i, N: n, Meta: design.Meta{
			Schema: m.Schema, Design: "drive plan", DesignSHA256: m.PlanSHA256, DesignTotal: m.PlanTotal,
			Shard: m.Shard, FirstEpisode: m.FirstEpisode, Episodes: m.Episodes,
		}}
		metas[p] = m
	}
	if err := design.CheckShards(shards); err != nil {
		return 0, err
	}
	if err := checkShardPlans(shards, metas); err != nil {
		return 0, err
	}
	// Every line of every shard, checked before the output is created.
	lines := map[string]map[string][]byte{}
	for _, s := range shards {
		var err error
		if lines[s.Path], err = drivenLines(s.Path, metas[s.Path]); err != nil {
			return 0, err
		}
	}
	// The merged run began when its first shard did: its creation time
	// is the earliest of the shards' (none if any shard lacks one).
	created, haveCreated := time.Time{}, out != "-"
	for _, s := range shards {
		t, _, ok, err := ReadCreated(s.Path)
		if err != nil {
			return 0, err
		}
		haveCreated = haveCreated && ok
		if ok && (created.IsZero() || t.Before(created)) {
			created = t
		}
	}
	all := *metas[shards[0].Path]
	all.Shard, all.FirstEpisode, all.Episodes = "1/1", 0, all.PlanTotal
	all.EpisodeIDs, all.Plan = nil, nil
	for _, s := range byShard(shards) {
		all.EpisodeIDs = append(all.EpisodeIDs, metas[s.Path].EpisodeIDs...)
		all.Plan = append(all.Plan, metas[s.Path].Plan...)
	}
	b, err := all.Marshal()
	if err != nil {
		return 0, err
	}
	err = design.WriteMerged(out, stdout, shards, b, func(w io.Writer, s design.Shard) error {
		bw := bufio.NewWriter(w)
		for _, id := range metas[s.Path].EpisodeIDs {
			bw.Write(lines[s.Path][id])
			bw.WriteByte('\n')
		}
		return bw.Flush()
	})
	if err == nil && haveCreated {
		err = WriteCreated(out, created)
	}
	return all.Episodes, err
}

// byShard returns the shards in shard order (1/N first).
func byShard(shards []design.Shard) []design.Shard {
	return slices.SortedFunc(slices.Values(shards), func(a, b design.Shard) int { return a.I - b.I })
}

// checkShardPlans refuses shards driven by different toolkit versions
// (their sandboxes may differ) and sidecars whose plan slices, put
// together in shard order, are not the plan whose hash they all name (a
// sidecar edited, or put beside another shard's ledger).
func checkShardPlans(shards []design.Shard, metas map[string]*ShardMeta) error {
	first := metas[shards[0].Path]
	for _, s := range shards[1:] {
		if m := metas[s.Path]; m.Toolkit != first.Toolkit {
			return fmt.Errorf("%s was driven by toolkit %s, %s by %s: the shards of one run are driven by one version (drive the odd ones again with %s)",
				shards[0].Path, first.Toolkit, s.Path, m.Toolkit, first.Toolkit)
		}
	}
	var eps []Episode
	for _, s := range byShard(shards) {
		eps = append(eps, metas[s.Path].Plan...)
	}
	data, err := (&Plan{Episodes: eps}).Marshal()
	if err != nil {
		return err
	}
	if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != first.PlanSHA256 {
		return fmt.Errorf("the plans recorded in the shards' sidecars (%s, …) are not the plan %.12s… they name: a sidecar was edited or belongs to another ledger",
			design.MetaPath(shards[0].Path), first.PlanSHA256)
	}
	return nil
}

// drivenLines reads a driven shard's ledger: every line an episode of the
// shard's plan slice, each planned episode exactly once, each with the
// design fields of its plan entry (Episode.CheckLine).
func drivenLines(path string, m *ShardMeta) (map[string][]byte, error) {
	planned := make(map[string]*Episode, len(m.EpisodeIDs))
	for k := range m.Plan {
		planned[m.Plan[k].EpisodeID] = &m.Plan[k]
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		return nil, fieldtext.New("Shard", "%s: last line is incomplete (interrupted drive? run drive {Shard} %s again to repair and finish it)", path, m.Shard)
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
		if planned[id] == nil {
			return nil, fmt.Errorf("%s:%d: episode_id: %q is not a planned episode of shard %s", path, n+1, id, m.Shard)
		}
		if err := planned[id].CheckLine(line); err != nil {
			return nil, fieldtext.New("Out", "%s:%d: episode %s: %v: not the planned episode (a line edited, or of another run); drive shard %s again into another {Out}",
				path, n+1, id, err, m.Shard)
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
				return nil, fieldtext.New("Shard", "%s: incomplete shard %s: %d of %d planned episodes recorded; missing %q (run drive {Shard} %s again)",
					path, m.Shard, len(got), len(m.EpisodeIDs), id, m.Shard)
			}
		}
	}
	return got, nil
}
