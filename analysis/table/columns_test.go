package table

import (
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/limbo-toolkit/limbo/internal/ledgertest"
	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
)

// sample is the analysis package's committed sample ledger, read with
// encoding/json (the tests do not depend on the ledger readers).
func sample(t testing.TB) []*ledger.Episode {
	t.Helper()
	eps, err := testfile.ReadJSONLinesGz[ledger.Episode](filepath.Join("..", "..", "testdata", "analysis", "sample.jsonl.gz"))
	if err != nil {
		t.Fatal(err)
	}
	return eps
}

// wideEpisodes are the first n sample episodes widened past every narrow
// code (ledgertest.Widen).
func wideEpisodes(t testing.TB, n int) []*ledger.Episode {
	return ledgertest.Widen(sample(t)[:n])
}

// Data holds episodes as columns: materialised again, every field is as
// appended, and a row answers Get as the episode does.
func TestDataRoundTrip(t *testing.T) {
	for _, n := range []int{0, 1, 300, 1000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			eps := wideEpisodes(t, n)
			d := NewData(eps)
			if d.Len() != n {
				t.Fatalf("Len = %d, want %d", d.Len(), n)
			}
			d.release() // Append after release must keep the dictionaries
			got := d.Episodes()
			for i, e := range eps {
				if !reflect.DeepEqual(got[i], e) {
					t.Fatalf("episode %d:\n got %+v\nwant %+v", i, got[i], e)
				}
				if i == 1 && !math.Signbit(got[i].DelayS) {
					t.Errorf("episode 1: delay_s lost its sign")
				}
				var names []string
				for _, c := range ledger.EpisodeColumns {
					names = append(names, c.Name)
				}
				for _, c := range append(names, "site", "nope") {
					w, wok := e.Get(c)
					g, gok := (row{d, int32(i)}).Get(c)
					if w != g || wok != gok {
						t.Fatalf("episode %d: Get(%s) = %+v, %v; want %+v, %v", i, c, g, gok, w, wok)
					}
				}
			}
		})
	}
}

// Reading a Parquet ledger by columns (nulls in cost_usd included) gives
// the Data the row reader gives.
func TestReadParquetColumns(t *testing.T) {
	eps := wideEpisodes(t, 1000)
	for _, e := range eps {
		e.Extra = nil // extra columns are a CSV's
	}
	path := filepath.Join(t.TempDir(), "w.parquet")
	ledgertest.WriteParquet(t, path, eps)
	for _, cols := range [][]string{nil, {"episode_id", "model", "pair_key", "agent_time_s", "seed", "eos", "task_success", "duplicated"}} {
		d, err := Read(path, ledger.ReadOptions{Columns: cols})
		if err != nil {
			t.Fatal(err)
		}
		if d.src == "" {
			t.Fatalf("columns %v: read by rows, want the column scan", cols)
		}
		want := &Data{Columns: cols}
		want.Append(eps...)
		got, wantEps := d.Episodes(), want.Episodes()
		if !reflect.DeepEqual(got, wantEps) {
			t.Fatalf("columns %v: read by columns differs from the episodes written", cols)
		}
	}
}

// A Parquet ledger without an optional column (cost_usd) reads it as
// missing on every episode: Columns nil holds only what the file has.
func TestFillWithoutColumn(t *testing.T) {
	eps := wideEpisodes(t, 300)
	path := filepath.Join(t.TempDir(), "w.parquet")
	ledgertest.WriteParquet(t, path, eps)
	var cols []string
	for _, c := range ledger.EpisodeColumns {
		if c.Name != "cost_usd" && c.Group == "" { // the file has no group
			cols = append(cols, c.Name)
		}
	}
	d := &Data{} // Columns nil: every column the file has, as Read does
	if err := d.fill(path, cols); err != nil {
		t.Fatal(err)
	}
	for i, e := range d.Episodes() {
		want := *eps[i]
		want.CostUSD, want.Extra = nil, nil
		if !reflect.DeepEqual(e, &want) {
			t.Fatalf("episode %d:\n got %+v\nwant %+v", i, e, &want)
		}
		if v, _ := d.Row(i).Get("cost_usd"); !v.Null {
			t.Fatalf("episode %d: cost_usd = %+v, want null", i, v)
		}
	}
}
