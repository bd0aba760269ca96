package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// csvOf renders eps as a CSV ledger without the columns in drop.
func csvOf(t *testing.T, eps []*Episode, drop ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "x.csv")
	writeEpisodes(t, p, eps, nil)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	hdr := strings.Split(lines[0], ",")
	var out []string
	for _, l := range lines {
		cells := strings.Split(l, ",") // synthetic values hold no commas
		var keep []string
		for j, c := range cells {
			if !slices.Contains(drop, hdr[j]) {
				keep = append(keep, c)
			}
		}
		out = append(out, strings.Join(keep, ","))
	}
	return strings.Join(out, "\n") + "\n"
}

func put(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func ids(eps []*Episode) []string {
	var s []string
	for _, e := range eps {
		s = append(s, e.EpisodeID)
	}
	return s
}

// A partitioned dataset, read as a directory or through a glob, gives back
// every episode with every column, in a deterministic order.
func TestReadDirectoryAndGlob(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "ds")
	w, err := CreatePartitioned(dir, []string{"experiment", "model"}, "", []string{"site"})
	if err != nil {
		t.Fatal(err)
	}
	w.MaxOpen = 3 // part-0, part-1, … files too
	want := map[string]*Episode{}
	for i := range 60 {
		e := synthEpisode(i)
		e.Experiment = []string{"E1", "E2", "E3"}[i%3]
		e.Extra = map[string]string{"site": "lab" + string(rune('a'+i%2))}
		want[e.EpisodeID] = e
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	first := ids(readAll(t, dir, ReadOptions{}))
	for _, in := range []string{dir, dir + "/", filepath.Join(dir, "experiment=*", "*", "*.parquet"), filepath.Join(dir, "experiment=E*")} {
		got := readAll(t, in, ReadOptions{})
		if len(got) != len(want) {
			t.Fatalf("%s: %d episodes, want %d", in, len(got), len(want))
		}
		if !slices.Equal(ids(got), first) {
			t.Errorf("%s: order differs from the directory's", in)
		}
		for _, e := range got {
			w := want[e.EpisodeID]
			for _, c := range EpisodeColumns {
				a, _ := w.Get(c.Name)
				b, _ := e.Get(c.Name)
				if a != b && !(c.Kind == KindFloat && a.Null == b.Null && a.Num == b.Num) {
					t.Errorf("%s: %s: %s = %v, wrote %v", in, e.EpisodeID, c.Name, b, a)
				}
			}
			if e.Extra["site"] != w.Extra["site"] {
				t.Errorf("%s: %s: site = %q, wrote %q", in, e.EpisodeID, e.Extra["site"], w.Extra["site"])
			}
		}
	}
	cols, err := FileColumns(dir, "")
	if err != nil || !slices.Contains(cols, "site") || !slices.Contains(cols, "pair_key") {
		t.Errorf("FileColumns(dir) = %v, %v", cols, err)
	}
	if x, err := ExtraColumns(dir, ""); err != nil || !slices.Equal(x, []string{"site"}) {
		t.Errorf("ExtraColumns(dir) = %v, %v; want [site]", x, err)
	}
}

// A dataset written by another tool, whose files leave out the partition
// columns, gets them back from the path with the schema's types.
func TestReadDirectoryRestoresPartitionColumns(t *testing.T) {
	dir := t.TempDir()
	var a, b []*Episode
	for i := range 6 {
		e := synthEpisode(i)
		e.Instance = int64(i % 2)
		if i%2 == 0 {
			a = append(a, e)
		} else {
			b = append(b, e)
		}
	}
	put(t, filepath.Join(dir, "experiment=E%2F1", "instance=0", "data.csv"), csvOf(t, a, "experiment", "instance"))
	put(t, filepath.Join(dir, "experiment=E%2F1", "instance=1", "data.csv"), csvOf(t, b, "experiment", "instance"))
	put(t, filepath.Join(dir, "_SUCCESS"), "")
	put(t, filepath.Join(dir, ".tmp", "junk.csv"), "not,a,ledger\n")
	got := readAll(t, dir, ReadOptions{})
	if len(got) != 6 {
		t.Fatalf("%d episodes, want 6", len(got))
	}
	wantInst := map[string]int64{}
	for _, e := range append(a, b...) {
		wantInst[e.EpisodeID] = e.Instance
	}
	for _, e := range got {
		if e.Experiment != "E/1" || e.Instance != wantInst[e.EpisodeID] {
			t.Errorf("%s: experiment %q instance %d, want \"E/1\" %d", e.EpisodeID, e.Experiment, e.Instance, wantInst[e.EpisodeID])
		}
	}
	if got[0].Instance != 0 || got[len(got)-1].Instance != 1 {
		t.Errorf("instance=0 should be read before instance=1")
	}
	cols, err := FileColumns(dir, "")
	if err != nil || !slices.Contains(cols, "experiment") || !slices.Contains(cols, "instance") {
		t.Errorf("FileColumns = %v, %v; want the restored columns", cols, err)
	}
	// With only some columns asked for, as the analysis commands read.
	sub := readAll(t, dir, ReadOptions{Columns: []string{"experiment", "duplicated"}})
	if len(sub) != 6 || sub[0].Experiment != "E/1" {
		t.Errorf("column subset: %d episodes, experiment %q", len(sub), sub[0].Experiment)
	}
}

func TestReadDirectoryErrors(t *testing.T) {
	e0, e1 := synthEpisode(0), synthEpisode(1)
	dup := t.TempDir()
	writeEpisodes(t, filepath.Join(dup, "part-2.parquet"), []*Episode{e0, e1}, nil)
	writeEpisodes(t, filepath.Join(dup, "part-10.parquet"), []*Episode{e1}, nil)

	mismatch := t.TempDir()
	put(t, filepath.Join(mismatch, "model=gpt-4.1", "a.csv"), csvOf(t, []*Episode{e0, e1}))

	badType := t.TempDir()
	put(t, filepath.Join(badType, "instance=x", "a.csv"), csvOf(t, []*Episode{e0}, "instance"))

	badEnum := t.TempDir()
	put(t, filepath.Join(badEnum, "fault_mode=sometimes", "a.csv"), csvOf(t, []*Episode{e0}, "fault_mode"))

	empty := t.TempDir()
	put(t, filepath.Join(empty, "notes.txt"), "")

	for _, c := range []struct {
		name, in string
		file     string // the file the error names
		line     int
		want     string
	}{
		// part-2 is read before part-10, so the duplicate is in part-10.
		{"duplicate across files", dup, filepath.Join(dup, "part-10.parquet"), 1, "duplicate \"ep-00000001\" (first on " + filepath.Join(dup, "part-2.parquet") + ": row 1)"},
		{"value differs from path", mismatch, filepath.Join(mismatch, "model=gpt-4.1", "a.csv"), 3, "model: value \"claude-sonnet-4\" differs from the partition directory's \"gpt-4.1\""},
		{"path value of the wrong type", badType, filepath.Join(badType, "instance=x", "a.csv"), 0, "instance: partition directory instance=x: expected an integer"},
		{"path value outside the enumeration", badEnum, filepath.Join(badEnum, "fault_mode=sometimes", "a.csv"), 0, "fault_mode: partition directory fault_mode=sometimes:"},
		{"no ledger files", empty, empty, 0, "holds no ledger files"},
		{"glob matches nothing", filepath.Join(empty, "*.parquet"), filepath.Join(empty, "*.parquet"), 0, "no ledger file matches"},
	} {
		err := ReadEpisodes(c.in, ReadOptions{}, func(*Episode) error { return nil })
		var p Problem
		if !errors.As(err, &p) || p.File != c.file || p.Line != c.line || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %s:%d: …%s…", c.name, err, c.file, c.line, c.want)
		}
	}
}

func TestNaturalOrder(t *testing.T) {
	in := []string{"d/part-10.parquet", "d/part-2.parquet", "d/a=1/x", "d/part-1.parquet", "d/part-02.parquet"}
	slices.SortFunc(in, naturalCompare)
	want := []string{"d/a=1/x", "d/part-1.parquet", "d/part-02.parquet", "d/part-2.parquet", "d/part-10.parquet"}
	if !slices.Equal(in, want) {
		t.Errorf("natural order %v, want %v", in, want)
	}
}
