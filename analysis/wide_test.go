package analysis

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/internal/ledgertest"
	"github.com/limbo-toolkit/limbo/ledger"
)

// wideEpisodes are the first n generated sample episodes widened past
// every narrow code (ledgertest.Widen).
func wideEpisodes(n int) []*ledger.Episode {
	return ledgertest.Widen(genSample(7)[:n])
}

// Episode ids that a Parquet ledger's Data does not hold are read again
// when a query names them: --where on episode_id selects as on the file.
func TestParquetIDsOnDemand(t *testing.T) {
	eps := wideEpisodes(500)
	path := filepath.Join(t.TempDir(), "w.parquet")
	ledgertest.WriteParquet(t, path, eps)
	d, err := table.Read(path, ledger.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	where := fmt.Sprintf("episode_id == %q || episode_id == %q", eps[3].EpisodeID, eps[400].EpisodeID)
	for name, q := range map[string]Query{"file": {Source: &table.Files{Paths: []string{path}}}, "columns": {Source: table.Held(d, nil)}} {
		q.Where = where
		r, err := Rates(q, RatesSpec{Outcome: "eos"})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if r.Rows[0].N != 2 {
			t.Errorf("%s: %d episodes kept, want 2", name, r.Rows[0].N)
		}
	}
}
