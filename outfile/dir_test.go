package outfile

import (
	"os"
	"path/filepath"
	"strings"
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
