package analysis

import (
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// wideEpisodes are episodes whose columns outgrow every narrow code: more
// than 256 distinct strings, floats and integers, integers beyond int32,
// a cost on some episodes only and extra columns on some.
func wideEpisodes(n int) []*ledger.Episode {
	eps := genSample(7)[:n]
	for i, e := range eps {
		c := *e
		c.PairKey = fmt.Sprintf("pk-%d", i)
		c.AgentTimeS = float64(i) / 7
		c.Seed = 1 << 40
		c.ToolCalls = int64(i)              // int32 after 256 values
		c.FocalCommits = int64(i%300) << 33 // int64 after 256 values
		if i%3 == 0 {
			x := float64(i) / 100
			c.CostUSD = &x
		} else {
			c.CostUSD = nil
		}
		if i%5 == 0 {
			c.Extra = map[string]string{"site": fmt.Sprint("s", i%2)}
		}
		if i == 1 {
			c.DelayS = math.Copysign(0, -1) // -0 stays apart from 0
		}
		eps[i] = &c
	}
	return eps
}

// writeParquet writes eps to a Parquet ledger at path, without their extra
// columns (a CSV's); eps are not changed.
func writeParquet(t testing.TB, path string, eps []*ledger.Episode) {
	t.Helper()
	w, err := ledger.CreateEpisodes(path, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range eps {
		c := *e
		c.Extra = nil
		if err := w.Write(&c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// Episode ids that a Parquet ledger's Data does not hold are read again
// when a query names them: --where on episode_id selects as on the file.
func TestParquetIDsOnDemand(t *testing.T) {
	eps := wideEpisodes(500)
	path := filepath.Join(t.TempDir(), "w.parquet")
	writeParquet(t, path, eps)
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
