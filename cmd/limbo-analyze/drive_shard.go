package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/limbo-toolkit/limbo/internal/outfile"
	"os"
	"slices"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp"
)

// driveKind marks a sidecar written by drive --shard (simulate's have no
// kind field).
const driveKind = "drive"

// driveMeta is the sidecar of a driven shard (LEDGER.meta.json): which
// plan, which slice of it, and the ids merge expects in the ledger.
type driveMeta struct {
	Kind         string   `json:"kind"`
	Toolkit      string   `json:"toolkit_version"`
	Schema       string   `json:"ledger_schema"`
	PlanSHA256   string   `json:"plan_sha256"`
	PlanTotal    int      `json:"plan_total"`
	Shard        string   `json:"shard"`
	FirstEpisode int      `json:"first_episode"`
	Episodes     int      `json:"episodes"`
	EpisodeIDs   []string `json:"episode_ids"`
}

// shardPlan returns the I-th of N contiguous slices of the plan (the split
// of simulate --shard) and the sidecar that describes it.
func shardPlan(plan *mcp.Plan, shard string) (*mcp.Plan, *driveMeta, error) {
	i, n, err := parseShard(shard)
	if err != nil {
		return nil, nil, err
	}
	if n > plan.Len() {
		return nil, nil, fmt.Errorf("--shard %s: %d shards for a plan of %d episodes would leave shards empty; use at most %d", shard, n, plan.Len(), plan.Len())
	}
	data, err := plan.Marshal()
	if err != nil {
		return nil, nil, err
	}
	sum := sha256.Sum256(data)
	lo, hi := shardRange(plan.Len(), i, n)
	m := &driveMeta{
		Kind: driveKind, Toolkit: version, Schema: ledger.SchemaVersion,
		PlanSHA256: hex.EncodeToString(sum[:]), PlanTotal: plan.Len(),
		Shard: fmt.Sprintf("%d/%d", i, n), FirstEpisode: lo, Episodes: hi - lo, EpisodeIDs: []string{},
	}
	for k := lo; k < hi; k++ {
		m.EpisodeIDs = append(m.EpisodeIDs, plan.Episodes[k].EpisodeID)
	}
	part, err := mcp.NewPlan(slices.Clone(plan.Episodes[lo:hi]))
	if err != nil {
		return nil, nil, err
	}
	return part, m, nil
}

// checkExisting refuses to resume into a ledger whose sidecar describes
// another plan or another shard.
func (m *driveMeta) checkExisting(out string) error {
	mp := metaPath(out)
	old, err := readDriveMeta(mp)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if old.PlanSHA256 != m.PlanSHA256 || old.Shard != m.Shard {
		return fmt.Errorf("%s: holds shard %s of plan %.12s…, not shard %s of this plan (%.12s…); use another --out",
			mp, old.Shard, old.PlanSHA256, m.Shard, m.PlanSHA256)
	}
	return nil
}

func (m *driveMeta) marshal() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

func (m *driveMeta) write(out string) error {
	b, err := m.marshal()
	if err != nil {
		return err
	}
	return outfile.WriteFile(metaPath(out), b)
}

// readDriveMeta reads a driven shard's sidecar; the error names the file
// and the field.
func readDriveMeta(path string) (*driveMeta, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m driveMeta
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: not a drive sidecar: %v", path, err)
	}
	if m.Kind != driveKind {
		return nil, fmt.Errorf("%s: field kind: %q, want %q", path, m.Kind, driveKind)
	}
	if len(m.EpisodeIDs) != m.Episodes {
		return nil, fmt.Errorf("%s: field episode_ids: %d ids for %d episodes", path, len(m.EpisodeIDs), m.Episodes)
	}
	return &m, nil
}

// isDriveSidecar reports whether the shard's sidecar was written by drive.
func isDriveSidecar(shard string) bool {
	b, err := os.ReadFile(metaPath(shard))
	if err != nil {
		return false
	}
	var head struct {
		Kind string `json:"kind"`
	}
	return json.Unmarshal(b, &head) == nil && head.Kind == driveKind
}
