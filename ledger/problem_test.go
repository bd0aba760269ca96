package ledger

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

func TestProblemPlaces(t *testing.T) {
	for _, tc := range []struct {
		p    Problem
		want string
	}{
		{Problem{File: "a.csv", Line: 2, Field: "model", Msg: "empty"}, "a.csv:2: model: empty"},
		{Problem{File: "a.parquet", Line: 1, Row: true, Field: "model", Msg: "null"}, "a.parquet: row 0: model: null"},
		{Problem{File: "a.parquet", Row: true, Msg: "empty ledger"}, "a.parquet: empty ledger"},
		{Problem{Line: 3, Field: "cue", Msg: "bad", Warning: true}, "line 3: cue: warning: bad"},
		{Problem{Line: 3, Row: true, Msg: "bad"}, "row 2: bad"},
		{Problem{Field: "team", Msg: "bad"}, "team: bad"},
	} {
		if got := tc.p.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.p, got, tc.want)
		}
	}
}

// TestCallbackProblemPlaced checks that a Problem a ReadEpisodes callback
// returns without a place is returned with the place of the row it was
// given: the file line (CSV, JSONL) or the 0-based row index (Parquet), in
// the file of a directory that holds the row. Other errors pass unchanged.
func TestCallbackProblemPlaced(t *testing.T) {
	eps := []*Episode{synthEpisode(0), synthEpisode(1), synthEpisode(2)}
	dir := t.TempDir()
	paths := map[string]string{}
	for _, ext := range []string{"csv", "jsonl", "parquet"} {
		paths[ext] = filepath.Join(dir, "x."+ext)
		writeEpisodes(t, paths[ext], eps, nil)
	}
	multi := filepath.Join(t.TempDir(), "ds")
	writeEpisodes(t, filepath.Join(multi, "a.csv"), eps[:1], nil)
	writeEpisodes(t, filepath.Join(multi, "b.parquet"), eps[1:], nil)
	bad := func(e *Episode) error {
		if e.EpisodeID == eps[2].EpisodeID {
			return Problem{Field: "model", Msg: "rejected"}
		}
		return nil
	}
	other := errors.New("stop")
	for _, tc := range []struct {
		name, in string
		fn       func(*Episode) error
		want     string
	}{
		{"csv", paths["csv"], bad, paths["csv"] + ":4: model: rejected"},
		{"jsonl", paths["jsonl"], bad, paths["jsonl"] + ":3: model: rejected"},
		{"parquet", paths["parquet"], bad, paths["parquet"] + ": row 2: model: rejected"},
		{"directory", multi, bad, filepath.Join(multi, "b.parquet") + ": row 1: model: rejected"},
		{"placed already", paths["csv"], func(*Episode) error { return Problem{File: "elsewhere", Msg: "m"} }, "elsewhere: m"},
		{"other error", paths["parquet"], func(*Episode) error { return other }, "stop"},
	} {
		err := ReadEpisodes(tc.in, ReadOptions{}, tc.fn)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want)
		}
		if tc.name == "other error" && err != other {
			t.Errorf("%s: %v is not the callback's error", tc.name, err)
		}
	}
}

// TestExportPartitionValuePlaced: a value export cannot partition by is
// named at its input line, not by the count of rows written.
func TestExportPartitionValuePlaced(t *testing.T) {
	eps := []*Episode{synthEpisode(0), synthEpisode(1), synthEpisode(2)}
	eps[2].Experiment = "2024" // read back as a number by other tools
	in := filepath.Join(t.TempDir(), "x.csv")
	writeEpisodes(t, in, eps, nil)
	_, err := Export(in, filepath.Join(t.TempDir(), "ds"), ExportOptions{PartitionBy: []string{"experiment"}})
	if err == nil || !strings.HasPrefix(err.Error(), in+":4: experiment: ") {
		t.Errorf("got %v, want %s:4: experiment: …", err, in)
	}
}
