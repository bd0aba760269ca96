package mcp

import (
	"io"

	"github.com/limbo-toolkit/limbo/design"
)

// MergeAny merges shard ledgers of either kind into out (stdout for "-"):
// those of drive --shard (MergeShards) when the first shard's sidecar was
// written by drive, else those of simulate --shard (design.Merge). It
// returns the episode count and the kind merged, "driven shards" or
// "shards", for the caller's message.
func MergeAny(out string, stdout io.Writer, shards []string) (n int, kind string, err error) {
	if len(shards) > 0 && IsDrivenShard(shards[0]) {
		n, err = MergeShards(out, stdout, shards)
		return n, "driven shards", err
	}
	n, err = design.Merge(out, stdout, shards)
	return n, "shards", err
}
