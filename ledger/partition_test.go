package ledger

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Reference: Hive's FileUtils.escapePathName escape set (control
// characters, "#%'*/:=?\{[]^, DEL), which Spark's ExternalCatalogUtils
// shares; a leading dot is our addition.
func TestEscapePartitionValue(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"gpt-4.1", "gpt-4.1"},
		{"claude sonnet 4", "claude sonnet 4"},
		{"a/b", "a%2Fb"},
		{"k=v", "k%3Dv"},
		{"50%", "50%25"},
		{"x:y?z#", "x%3Ay%3Fz%23"},
		{"tab\there", "tab%09here"},
		{".hidden", "%2Ehidden"},
		{"ünï", "ünï"},
	} {
		if got := EscapePartitionValue(c.in); got != c.want {
			t.Errorf("EscapePartitionValue(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func TestPartitionPath(t *testing.T) {
	e := synthEpisode(1)
	e.Experiment = "E1/b"
	e.Extra = map[string]string{"site": "", "year": "2024", "flag": "True", "day": "2024-05-01T10:00", "nul": "NULL", "tag": "v2024"}
	for _, c := range []struct {
		by   []string
		want string // the path, or a part of the error
	}{
		{[]string{"experiment", "model"}, "experiment=E1%2Fb/model=claude-sonnet-4"},
		{[]string{"model", "instance"}, "model=claude-sonnet-4/instance=1"},
		{[]string{"tag"}, "tag=v2024"},
		// Values that readers would not give back as written.
		{[]string{"fault_fired"}, "error: cannot partition by a bool column"},
		{[]string{"delay_s"}, "error: cannot partition by a float column"},
		{[]string{"model", "site"}, "error: site: empty value"},
		{[]string{"year"}, "error: as a number"},
		{[]string{"flag"}, "error: as a boolean"},
		{[]string{"day"}, "error: as a date"},
		{[]string{"nul"}, "error: as NULL"},
	} {
		got, err := PartitionPath(e, c.by)
		if want, isErr := strings.CutPrefix(c.want, "error: "); isErr {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("PartitionPath(%v) = %q, %v; want an error with %q", c.by, got, err, want)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("PartitionPath(%v) = %q, %v; want %q", c.by, got, err, c.want)
		}
	}
}

// Every row lands in its partition's files, in input order, and reading
// the files back gives the input; with MaxOpen 2 partitions spill into
// further part files; the dataset appears only on Close.
func TestPartitionedWriter(t *testing.T) {
	for _, maxOpen := range []int{DefaultMaxOpenPartitions, 2} {
		dir := filepath.Join(t.TempDir(), "ds")
		w, err := CreatePartitioned(dir, []string{"experiment", "model"}, "", []string{"site"})
		if err != nil {
			t.Fatal(err)
		}
		w.MaxOpen = maxOpen
		var eps []*Episode
		for i := range 40 {
			e := synthEpisode(i)
			e.Experiment = []string{"E1", "E2"}[i/20]
			e.Extra = map[string]string{"site": "lab" + string(rune('a'+i%3))}
			eps = append(eps, e)
			if err := w.Write(e); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := os.Stat(dir); err == nil {
			t.Fatal("dataset visible before Close")
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		if w.Partitions() != 8 {
			t.Errorf("MaxOpen %d: %d partitions, want 8 (2 experiments × 4 models)", maxOpen, w.Partitions())
		}
		files, err := filepath.Glob(filepath.Join(dir, "*", "*", "*.parquet"))
		if err != nil {
			t.Fatal(err)
		}
		if maxOpen == DefaultMaxOpenPartitions && len(files) != 8 {
			t.Errorf("%d files, want 8: %v", len(files), files)
		}
		if maxOpen == 2 && len(files) <= 8 {
			t.Errorf("MaxOpen 2: %d files, want more than 8 (spilled parts)", len(files))
		}
		got := map[string]bool{}
		for _, f := range files {
			rel, _ := filepath.Rel(dir, filepath.Dir(f))
			var prev string
			for _, e := range readAll(t, f, ReadOptions{}) {
				want, _ := PartitionPath(e, []string{"experiment", "model"})
				if filepath.ToSlash(rel) != want {
					t.Errorf("%s holds %s of partition %s", f, e.EpisodeID, want)
				}
				if e.EpisodeID <= prev {
					t.Errorf("%s: %s after %s, not in input order", f, e.EpisodeID, prev)
				}
				prev = e.EpisodeID
				if e.Extra["site"] == "" {
					t.Errorf("%s: extra column lost", e.EpisodeID)
				}
				got[e.EpisodeID] = true
			}
		}
		if len(got) != len(eps) {
			t.Errorf("MaxOpen %d: read back %d distinct episodes, wrote %d", maxOpen, len(got), len(eps))
		}
		ents, _ := os.ReadDir(filepath.Dir(dir))
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".") {
				t.Errorf("temporary %s left behind", e.Name())
			}
		}
	}
}

func TestPartitionedWriterRefuses(t *testing.T) {
	base := t.TempDir()
	full := filepath.Join(base, "full")
	if err := os.MkdirAll(filepath.Join(full, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		dir  string
		by   []string
		want string
	}{
		{filepath.Join(base, "a"), nil, "no partition columns"},
		{filepath.Join(base, "a"), []string{"nope"}, "not a ledger column"},
		{filepath.Join(base, "a"), []string{"model", "model"}, "twice"},
		{full, []string{"model"}, "not empty"},
		{filepath.Join(base, "a"), []string{"fault_fired"}, "boolean column"},
		{filepath.Join(base, "a"), []string{"model", "weight"}, "floating-point column"},
	} {
		if _, err := CreatePartitioned(c.dir, c.by, "", nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("CreatePartitioned(%s, %v): %v, want %q", c.dir, c.by, err, c.want)
		}
	}
	// Abort leaves nothing.
	w, err := CreatePartitioned(filepath.Join(base, "b"), []string{"model"}, "csv", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(synthEpisode(0)); err != nil {
		t.Fatal(err)
	}
	w.Abort()
	ents, _ := os.ReadDir(base)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"full"}) {
		t.Errorf("after Abort the directory holds %v, want only [full]", names)
	}
}

// More partitions than MaxPartitions is an error naming the columns and the
// dataset, without a place (a reader's callback that returns it gets the
// input row's), and leaves nothing behind.
func TestPartitionedWriterMaxPartitions(t *testing.T) {
	base := t.TempDir()
	w, err := CreatePartitioned(filepath.Join(base, "ds"), []string{"episode_id"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	w.MaxPartitions = 5
	var werr error
	for i := 0; i < 10 && werr == nil; i++ {
		werr = w.Write(synthEpisode(i))
	}
	var p Problem
	if !errors.As(werr, &p) || p.File != "" || p.Line != 0 || p.Field != "episode_id" || !strings.Contains(p.Msg, "more than 5 partitions in "+filepath.Join(base, "ds")) {
		t.Errorf("6th partition: %v, want a Problem without a place naming episode_id and the dataset", werr)
	}
	w.Abort()
	if ents, _ := os.ReadDir(base); len(ents) != 0 {
		t.Errorf("left %d entries behind", len(ents))
	}
}

// WriteNested puts calls and effects in the same partitions of the sibling
// datasets; reading the directory checks their references.
func TestPartitionedWriterNested(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "ds")
	w, err := CreatePartitioned(dir, []string{"model"}, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	w.MaxOpen = 2 // spill into part-1 files too
	calls, effects := 0, 0
	for i := range 12 {
		r := synthRaw(i, 1+i%3)
		calls += len(r.Calls)
		effects += len(r.Effects)
		for j := range r.Calls {
			r.Calls[j].EpisodeID = r.EpisodeID
			r.Effects[j].EpisodeID = r.EpisodeID
		}
		if err := w.WriteNested(&r.Episode, r.Calls, r.Effects); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	cdir, edir := PartitionSiblings(dir)
	for _, c := range []struct {
		dir  string
		want int
	}{{cdir, calls}, {edir, effects}} {
		files, _ := filepath.Glob(filepath.Join(c.dir, "model=*", "part-*.parquet"))
		n := 0
		for _, f := range files {
			p, err := openPQ(f)
			if err != nil {
				t.Fatal(err)
			}
			n += int(p.pf.NumRows())
			p.close()
			// The same partition and part as an episode file.
			rel, _ := filepath.Rel(c.dir, f)
			if _, err := os.Stat(filepath.Join(dir, rel)); err != nil {
				t.Errorf("%s has no episode file beside it: %v", f, err)
			}
		}
		if n != c.want {
			t.Errorf("%s: %d rows in %d files, want %d", c.dir, n, len(files), c.want)
		}
	}
	if got := readAll(t, dir, ReadOptions{}); len(got) != 12 {
		t.Errorf("read back %d episodes, want 12", len(got))
	}
	// The calls are checked against the episodes when the dataset is read.
	stray := filepath.Join(cdir, "model=gpt-4.1", "part-0.parquet")
	cw, err := CreateCalls(stray)
	if err != nil {
		t.Fatal(err)
	}
	if err := cw.Write(&Call{EpisodeID: "nope", Tool: "data_insert", Outcome: OutcomeOK}); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	err = ReadEpisodes(dir, ReadOptions{}, func(*Episode) error { return nil })
	if err == nil || !strings.Contains(err.Error(), stray) || !strings.Contains(err.Error(), `unknown episode "nope"`) {
		t.Errorf("stray call: %v, want an unknown-episode error naming %s", err, stray)
	}
}
