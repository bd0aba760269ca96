package ledgertest

import (
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

var cliCSV = filepath.Join("..", "..", "testdata", "cli", "episodes.csv")

// Widen copies: the episodes passed in keep their values, and the copies
// pass 256 distinct values and int32 where the doc comment says.
func TestWiden(t *testing.T) {
	orig := ReadEpisodes(t, cliCSV)
	if len(orig) < 258 {
		t.Fatalf("fixture: %d episodes, want more than 257", len(orig))
	}
	before := *orig[1]
	eps := Widen(append([]*ledger.Episode(nil), orig...))
	if orig[1].PairKey != before.PairKey || orig[1].Seed != before.Seed {
		t.Errorf("Widen changed the episode passed in: %+v", orig[1])
	}
	keys := map[string]bool{}
	for _, e := range eps {
		keys[e.PairKey] = true
	}
	if len(keys) != len(eps) {
		t.Errorf("%d distinct pair keys in %d episodes", len(keys), len(eps))
	}
	if d := eps[1].DelayS; d != 0 || !math.Signbit(d) {
		t.Errorf("episode 1: delay_s %g, want -0", d)
	}
	if eps[257].FocalCommits <= math.MaxInt32 || eps[0].CostUSD == nil || eps[1].CostUSD != nil || eps[0].Extra["site"] != "s0" {
		t.Errorf("episodes 0, 1, 257 not widened: %+v, %+v, %+v", eps[0], eps[1], eps[257])
	}
}

// UnderflowCSV writes the pairs its doc comment names, as a ledger that
// reads without error.
func TestUnderflowCSV(t *testing.T) {
	eps := ReadEpisodes(t, UnderflowCSV(t, cliCSV, 5, 3))
	if len(eps) != 2*(5+3) {
		t.Fatalf("%d episodes, want 16", len(eps))
	}
	dups := map[string]int{}
	for _, e := range eps {
		if e.Duplicated != (e.Condition != "vanilla") || e.EOS == e.Duplicated {
			t.Errorf("%s: condition %s, duplicated %v, eos %v", e.EpisodeID, e.Condition, e.Duplicated, e.EOS)
		}
		if e.Duplicated {
			dups[e.Condition]++
		}
	}
	if dups["guard"] != 5 || dups["aware"] != 3 {
		t.Errorf("duplicates by condition %v, want guard 5, aware 3", dups)
	}
}

// WriteParquet writes the episodes without their extra columns and leaves
// them as they were.
func TestWriteParquet(t *testing.T) {
	eps := Widen(ReadEpisodes(t, cliCSV)[:20])
	path := filepath.Join(t.TempDir(), "w.parquet")
	WriteParquet(t, path, eps)
	if eps[0].Extra == nil {
		t.Fatal("WriteParquet dropped the extra columns of the episodes passed in")
	}
	got := ReadEpisodes(t, path)
	if len(got) != len(eps) {
		t.Fatalf("%d episodes read back, want %d", len(got), len(eps))
	}
	for i, e := range got {
		want := *eps[i]
		want.Extra = nil
		if !reflect.DeepEqual(e, &want) {
			t.Errorf("episode %d:\n got %+v\nwant %+v", i, e, &want)
		}
	}
}
