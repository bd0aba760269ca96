package ledger

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// replayEpisode is synthEpisode i with the replay group's columns set.
func replayEpisode(i int) *Episode {
	e := synthEpisode(i)
	e.AgentFault = AgentFaultNames.Values[i%len(AgentFaultNames.Values)]
	if e.AgentFault == AgentFaultCrashResume {
		e.CrashWindow = CrashWindows.Values[i%2]
	}
	e.Guard = GuardNames.Values[i%len(GuardNames.Values)]
	e.ExactDuplicated = e.Duplicated && i%2 == 0
	e.Perturbed = i%3 == 1
	e.Suppressed = !e.TaskSuccess && i%2 == 1
	e.ErrorReplayed = !e.TaskSuccess && i%4 == 3
	e.GuardAnswers = int64(i % 3)
	return e
}

// A ledger without a group's columns is written as before the group
// existed: no header cell, no Parquet column, no JSON member; with the
// group (WriteOptions.Groups, or a value in a JSONL line) every format
// carries and reads back its columns, and GroupsOf finds it.
func TestSparseGroups(t *testing.T) {
	dir := t.TempDir()
	plain := []*Episode{synthEpisode(1), synthEpisode(2)}
	var replay []*Episode
	for i := range 12 {
		replay = append(replay, replayEpisode(i))
	}
	for _, format := range []string{"csv", "parquet", "jsonl"} {
		t.Run(format, func(t *testing.T) {
			without := filepath.Join(dir, "plain."+format)
			writeEpisodes(t, without, plain, nil)
			if g, err := GroupsOf(without, ""); err != nil || len(g) != 0 {
				t.Errorf("GroupsOf(plain) = %v, %v; want none", g, err)
			}
			cols, err := FileColumns(without, "")
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []string{"agent_fault", "guard", "suppressed"} {
				if slices.Contains(cols, c) {
					t.Errorf("plain %s file has column %s", format, c)
				}
			}
			b, _ := os.ReadFile(without)
			if format != "parquet" && bytes.Contains(b, []byte("agent_fault")) {
				t.Errorf("plain %s file names agent_fault", format)
			}
			if got := readAll(t, without, ReadOptions{}); !reflect.DeepEqual(got, plain) {
				t.Errorf("plain %s: read back differs", format)
			}

			with := filepath.Join(dir, "replay."+format)
			writeEpisodesWith(t, with, replay, nil, WriteOptions{Groups: []string{GroupReplay}})
			if g, err := GroupsOf(with, ""); err != nil || !slices.Equal(g, []string{GroupReplay}) {
				t.Errorf("GroupsOf(replay) = %v, %v; want [replay]", g, err)
			}
			if got := readAll(t, with, ReadOptions{Strict: true}); !reflect.DeepEqual(got, replay) {
				t.Errorf("replay %s: read back differs", format)
			}
			// Exported, the group goes with the episodes.
			out := filepath.Join(dir, "exported-"+format+".csv")
			if _, err := Export(with, out, ExportOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := readAll(t, out, ReadOptions{}); !reflect.DeepEqual(got, replay) {
				t.Errorf("replay %s exported to CSV: read back differs", format)
			}
		})
	}
}

// An analysis that names a sparse column of a ledger without its group is
// told the column is missing, as for any column it needs (zeros would be
// made up); the column scan hands such a file to the row reader.
func TestSparseColumnNeeded(t *testing.T) {
	dir := t.TempDir()
	for _, format := range []string{"csv", "parquet"} {
		path := filepath.Join(dir, "plain."+format)
		writeEpisodes(t, path, []*Episode{synthEpisode(1)}, nil)
		err := ReadEpisodes(path, ReadOptions{Columns: []string{"suppressed", "model"}}, func(*Episode) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "suppressed: missing column (needed for this analysis)") {
			t.Errorf("%s: got %v, want suppressed missing", format, err)
		}
		if err := ReadEpisodes(path, ReadOptions{Columns: []string{"model"}}, func(*Episode) error { return nil }); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
	path := filepath.Join(dir, "plain.parquet")
	if err := ScanParquet(path, []string{"suppressed"}, func(*Batch) error { return nil }); err != ErrRowScan {
		t.Errorf("ScanParquet of an absent sparse column: %v, want ErrRowScan", err)
	}
}

// Validation takes an empty sparse string as absent and checks a value
// against the catalogue.
func TestSparseValidation(t *testing.T) {
	e := synthEpisode(3)
	if ps := Validate(e); len(ps) != 0 {
		t.Fatalf("plain episode: %v", ps)
	}
	e.AgentFault, e.Guard = "crash", GuardNone
	ps := Validate(e)
	if len(ps) != 1 || ps[0].Field != "agent_fault" || !strings.Contains(ps[0].Msg, "crash_resume") {
		t.Errorf("unknown agent fault: %v", ps)
	}
	r := replayEpisode(5)
	if ps := Validate(r); len(ps) != 0 {
		t.Errorf("replay episode: %v", ps)
	}
}

// The agent-side columns go together: a guard without an agent fault, or a
// crash window off crash_resume, is a plausibility warning.
func TestReplayColumnsTogether(t *testing.T) {
	for _, c := range []struct {
		fault, window, guard, field string
	}{
		{AgentFaultReplan, "", "", "guard"},
		{"", "", GuardLedger, "guard"},
		{AgentFaultReplan, WindowAfterJournal, GuardNone, "crash_window"},
		{AgentFaultCrashResume, "", GuardNone, "crash_window"},
	} {
		e := synthEpisode(2)
		e.AgentFault, e.CrashWindow, e.Guard = c.fault, c.window, c.guard
		ps := Validate(e)
		if len(ps) != 1 || ps[0].Field != c.field || !ps[0].Warning {
			t.Errorf("%+v: %v, want one warning on %s", c, ps, c.field)
		}
	}
}

// The column scan hands a row group whose agent-side columns would warn to
// the row reader, which gives the warning, as it does for the paper's
// cross-column checks.
func TestReplayColumnsScan(t *testing.T) {
	dir := t.TempDir()
	good, bad := replayEpisode(5), replayEpisode(6)
	bad.CrashWindow = WindowAfterJournal // on an agent fault that is not crash_resume
	if bad.AgentFault == AgentFaultCrashResume {
		t.Fatal("episode 6 should not be a crash")
	}
	cols := []string{"agent_fault", "crash_window", "guard"}
	for _, c := range []struct {
		e    *Episode
		want error
	}{{good, nil}, {bad, ErrRowScan}} {
		path := filepath.Join(dir, "scan.parquet")
		w, err := CreateEpisodesWith(path, "", nil, WriteOptions{Groups: []string{GroupReplay}})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Write(c.e); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if err := ScanParquet(path, cols, func(*Batch) error { return nil }); err != c.want {
			t.Errorf("%+v: scan %v, want %v", c.e.CrashWindow, err, c.want)
		}
	}
}
