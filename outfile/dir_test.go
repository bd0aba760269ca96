package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

func writeIn(t *testing.T, dir, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func readIn(t *testing.T, dir, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestDirCommitReplaces(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	for _, content := range []string{"first", "second"} {
		d, err := CreateDir(out)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(out); content == "first" && err == nil {
			t.Fatal("the output directory exists before Commit")
		}
		writeIn(t, d.Path(), "index.html", content)
		if err := d.Commit(); err != nil {
			t.Fatal(err)
		}
		if got := readIn(t, out, "index.html"); got != content {
			t.Errorf("index.html = %q, want %q", got, content)
		}
	}
	ents, _ := os.ReadDir(filepath.Dir(out))
	if len(ents) != 1 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("parent holds %v, want only the site", names)
	}
	ents, _ = os.ReadDir(out)
	for _, e := range ents {
		if e.Name() == heldName {
			t.Errorf("the committed directory keeps %s", heldName)
		}
	}
}

func TestDirAbortKeepsOld(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	writeIn(t, out, "index.html", "old")
	d, err := CreateDir(out)
	if err != nil {
		t.Fatal(err)
	}
	writeIn(t, d.Path(), "index.html", "half")
	d.Abort()
	if got := readIn(t, out, "index.html"); got != "old" {
		t.Errorf("after Abort index.html = %q, want the old one", got)
	}
	if _, err := os.Stat(d.Path()); !os.IsNotExist(err) {
		t.Errorf("Abort left the staging directory: %v", err)
	}
}

func TestDirRefusesFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	writeIn(t, filepath.Dir(out), "site", "a file")
	if _, err := CreateDir(out); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("CreateDir over a file: %v", err)
	}
}

// A staging directory whose writer died (its held file unlocked) is removed
// by the next run in that directory; one still being written is not.
func TestDirStaleCleaned(t *testing.T) {
	parent := t.TempDir()
	live, err := CreateDir(filepath.Join(parent, "other"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	dead := filepath.Join(parent, TempPrefix+"site.dead")
	if err := os.Mkdir(dead, 0o755); err != nil {
		t.Fatal(err)
	}
	writeIn(t, dead, heldName, "")
	writeIn(t, dead, "index.html", "left by kill -9")
	cleaned.Delete(mustAbs(t, parent)) // CleanStale runs once per directory per process
	if n := CleanStale(parent); n != 1 {
		t.Errorf("CleanStale removed %d entries, want 1", n)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Errorf("the dead staging directory is still there")
	}
	if _, err := os.Stat(live.Path()); err != nil {
		t.Errorf("the live staging directory was removed: %v", err)
	}
}

// CommitUnit syncs every file and directory of the staging directory once:
// the unit's by the unit's commit, the rest (a file written beside the
// unit) by the directory's; a unit that fails to commit aborts the
// directory and leaves the old one.
func TestDirCommitUnit(t *testing.T) {
	out := filepath.Join(t.TempDir(), "site")
	if err := os.MkdirAll(out, 0o755); err != nil {
		t.Fatal(err)
	}
	writeIn(t, out, "old.txt", "old")
	sf, sd := syncFile, syncDir
	t.Cleanup(func() { syncFile, syncDir = sf, sd })
	var mu sync.Mutex
	synced := map[string]int{}
	count := func(p string) {
		mu.Lock()
		defer mu.Unlock()
		synced[p]++
	}
	var fail string // a file whose sync fails
	syncFile = func(f *os.File) error {
		count(f.Name())
		if fail != "" && strings.Contains(f.Name(), fail) {
			return syscall.EIO
		}
		return f.Sync()
	}
	syncDir = func(d string) error { count(filepath.Clean(d)); return fsyncDir(d) }

	d, err := CreateDir(out)
	if err != nil {
		t.Fatal(err)
	}
	stage := d.Path()
	u := NewUnit()
	for _, p := range []string{"a/x", "a/y", "z"} {
		if err := u.WriteFile(filepath.Join(stage, p), []byte(p)); err != nil {
			t.Fatal(err)
		}
	}
	writeIn(t, stage, "beside", "b")
	if err := d.CommitUnit(u); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a/x": "a/x", "a/y": "a/y", "z": "z", "beside": "b"} {
		if got := readIn(t, out, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "old.txt")); err == nil {
		t.Error("old.txt survives the replacement")
	}
	files, dirs := 0, 0
	for p, n := range synced {
		if n != 1 {
			t.Errorf("%s synced %d times", p, n)
		}
		if p == filepath.Clean(stage) || p == filepath.Join(stage, "a") {
			dirs++
		} else if strings.HasPrefix(p, stage) {
			files++
		}
	}
	// The unit's three files (under their temporary names), the file
	// beside them and the held file; the two directories.
	if files != 5 || dirs != 2 {
		t.Errorf("synced %d files and %d directories of the stage, want 5 and 2: %v", files, dirs, synced)
	}

	fail = TempPrefix + "y."
	d, err = CreateDir(out)
	if err != nil {
		t.Fatal(err)
	}
	u = NewUnit()
	for _, p := range []string{"a/x", "a/y"} {
		if err := u.WriteFile(filepath.Join(d.Path(), p), []byte("new")); err != nil {
			t.Fatal(err)
		}
	}
	if err := d.CommitUnit(u); !errors.Is(err, syscall.EIO) {
		t.Fatalf("commit with a failed sync: %v, want EIO", err)
	}
	if got := readIn(t, out, "a/x"); got != "a/x" {
		t.Errorf("a/x = %q after the failed commit, want the old content", got)
	}
	if _, err := os.Stat(d.Path()); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("staging directory left after the failed commit: %v", err)
	}
}
