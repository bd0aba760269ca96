package ledger

import (
	"errors"
	"strings"
	"testing"
)

// A user's CSV with fewer columns than the schema: analysis commands read
// it through ReadOptions.Columns when it has the columns they name, and
// fail naming the missing needed ones otherwise; without Columns (validate,
// export) the full schema is still required.
func TestCSVColumnSubset(t *testing.T) {
	const csv = "model,fault_mode,fault_fired,eos,task_success,duplicated,team\n" +
		"m1,none,true,true,true,false,a\n" +
		"m2,timeout_post,1,0,1,1,b\n"
	path := writeFile(t, "small.csv", csv)

	t.Run("needed columns present", func(t *testing.T) {
		eps := readAll(t, path, ReadOptions{Columns: []string{"model", "eos", "team"}})
		if len(eps) != 2 {
			t.Fatalf("read %d episodes, want 2", len(eps))
		}
		// eos pulls in task_success and duplicated for its check.
		e := eps[1]
		if e.Model != "m2" || e.EOS || !e.TaskSuccess || !e.Duplicated || e.Extra["team"] != "b" {
			t.Errorf("episode 2 = %+v", e)
		}
		if e.FaultMode != "" {
			t.Errorf("fault_mode decoded although not asked for: %q", e.FaultMode)
		}
	})

	for _, tc := range []struct {
		name    string
		columns []string
		field   string
		msg     string
	}{
		{"missing needed schema columns", []string{"model", "harness", "weight"}, "harness", "missing column (needed for this analysis) (also missing: weight)"},
		{"unknown extra column", []string{"model", "site"}, "site", "no such column"},
		{"full schema without Columns", nil, "episode_id", "missing required column (also missing: experiment,"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ReadEpisodes(path, ReadOptions{Columns: tc.columns}, func(*Episode) error { return nil })
			var p Problem
			if !errors.As(err, &p) {
				t.Fatalf("got %v, want a Problem", err)
			}
			if p.File != path || p.Field != tc.field || !strings.HasPrefix(p.Msg, tc.msg) {
				t.Errorf("got %q, want field %s and message starting %q", err, tc.field, tc.msg)
			}
		})
	}

	t.Run("eos without the columns its check reads", func(t *testing.T) {
		// The eos ⇒ task_success ∧ ¬duplicated check runs when those
		// columns are there (line 3 fails it) and is skipped when not.
		for _, tc := range []struct {
			name, csv string
			want      string // error substring, or "" for none
		}{
			{"csv without", "model,eos\nm1,true\nm2,false\n", ""},
			{"csv with", "model,eos,task_success,duplicated\nm1,true,true,false\nm2,true,false,false\n", ":3: eos: true but task_success is false"},
			{"jsonl without", `{"model":"m1","eos":true}` + "\n", ""},
		} {
			name := "e.csv"
			if strings.HasPrefix(tc.name, "jsonl") {
				name = "e.jsonl"
			}
			p := writeFile(t, name, tc.csv)
			err := ReadEpisodes(p, ReadOptions{Columns: []string{"model", "eos"}}, func(*Episode) error { return nil })
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
			}
		}
	})

	t.Run("bad cell in a column not asked for is not read", func(t *testing.T) {
		bad := writeFile(t, "bad.csv", "model,fault_fired\nm1,maybe\n")
		eps := readAll(t, bad, ReadOptions{Columns: []string{"model"}})
		if len(eps) != 1 || eps[0].Model != "m1" {
			t.Errorf("got %v", eps)
		}
		err := ReadEpisodes(bad, ReadOptions{Columns: []string{"model", "fault_fired"}}, func(*Episode) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "bad.csv:2: fault_fired: expected a boolean") {
			t.Errorf("got %v, want the bad boolean on line 2", err)
		}
	})
}

// FileColumns lists a CSV's header and a Parquet file's schema; JSONL has
// none.
func TestFileColumns(t *testing.T) {
	path := writeFile(t, "small.csv", "\ufeffmodel,eos,team\nm1,true,a\n")
	got, err := FileColumns(path, "")
	if err != nil || strings.Join(got, ",") != "model,eos,team" {
		t.Errorf("CSV: got %v, %v", got, err)
	}
	pq := t.TempDir() + "/e.parquet"
	writeEpisodes(t, pq, []*Episode{synthEpisode(1)}, nil)
	got, err = FileColumns(pq, "")
	if cols, _ := fileColumns(0); err != nil || len(got) != len(cols) || got[0] != "episode_id" {
		t.Errorf("Parquet: got %v, %v", got, err)
	}
	js := writeFile(t, "e.jsonl", "{}\n")
	if got, err := FileColumns(js, ""); got != nil || err != nil {
		t.Errorf("JSONL: got %v, %v, want nil, nil", got, err)
	}
	if _, err := FileColumns(t.TempDir()+"/none.csv", ""); err == nil {
		t.Error("missing file: no error")
	}
}

// Episode identity is checked on every read, whatever the caller's
// Columns: a row copied twice is an error naming both places, in CSV,
// JSONL and Parquet, by the row reader and by the column scan (which hands
// the file to the row reader for the message). Before, a read of weight
// alone counted the copy (issue 37, case 1).
func TestDuplicateIDsWhateverColumns(t *testing.T) {
	eps := []*Episode{synthEpisode(1), synthEpisode(2), synthEpisode(3), synthEpisode(2)}
	dir := t.TempDir()
	for _, ext := range []string{"csv", "jsonl", "parquet"} {
		path := dir + "/dup." + ext
		writeEpisodes(t, path, eps, nil)
		for _, cols := range [][]string{{"weight"}, {"model", "eos"}, {"episode_id"}, nil} {
			err := ReadEpisodes(path, ReadOptions{Columns: cols}, func(*Episode) error { return nil })
			if err == nil || !strings.Contains(err.Error(), `episode_id: duplicate "`+eps[1].EpisodeID+`"`) {
				t.Errorf("%s, Columns %v: %v; want the duplicate", ext, cols, err)
			}
		}
		if ext != "parquet" {
			continue
		}
		for _, cols := range [][]string{{"weight"}, {"model", "eos"}} {
			err := ScanParquetChecked(path, cols, nil, func(*Batch) error { return nil })
			if !errors.Is(err, ErrRowScan) {
				t.Errorf("ScanParquetChecked(%v): %v; want ErrRowScan (the row reader names the duplicate)", cols, err)
			}
		}
	}
}
