package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeTree(t *testing.T, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if strings.HasSuffix(f, "/") {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// buildOwned writes files into a fresh owned directory at path and commits.
func buildOwned(path string, o Owner, files ...string) error {
	d, err := CreateOwnedDir(path, o)
	if err != nil {
		return err
	}
	defer d.Abort()
	for _, f := range files {
		p := filepath.Join(d.Path(), filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte("new "+f), 0o644); err != nil {
			return err
		}
	}
	return d.Commit()
}

// An owned directory lists what its tool wrote; a re-run replaces exactly
// that and refuses anything else at any depth, naming it.
func TestOwnedDir(t *testing.T) {
	o := Owner{Tool: "the tool", Legacy: func(rel string) bool { return strings.HasPrefix(rel, "out") }}
	dir := filepath.Join(t.TempDir(), "site")
	if err := buildOwned(dir, o, "a.txt", "sub/b.txt", "sub/deep/c.txt"); err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		t.Fatal(err)
	}
	if want := "# files written by the tool; a re-run replaces these and refuses the directory if it holds anything else\na.txt\nsub/b.txt\nsub/deep/c.txt\n"; string(m) != want {
		t.Errorf("manifest:\n%s\nwant:\n%s", m, want)
	}
	// A re-run with other files replaces the old ones (none left).
	if err := buildOwned(dir, o, "a.txt", "z.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "sub")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the earlier run's sub/ is left: %v", err)
	}
	for _, tc := range []struct {
		plant []string
		want  []string
	}{
		{[]string{"mine.txt"}, []string{"mine.txt"}},
		{[]string{"deep/er/mine.txt", "x.csv"}, []string{"deep/er/mine.txt", "x.csv"}},
		{[]string{"empty/"}, []string{"empty/"}},
	} {
		writeTree(t, dir, tc.plant...)
		err := buildOwned(dir, o, "a.txt")
		var fe *ForeignError
		if !errors.As(err, &fe) || !reflect.DeepEqual(fe.Files, tc.want) {
			t.Errorf("planted %v: %v; want a ForeignError naming %v", tc.plant, err, tc.want)
		}
		for _, p := range tc.plant {
			if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
				t.Errorf("%s was touched: %v", p, err)
			}
			os.RemoveAll(filepath.Join(dir, strings.Split(p, "/")[0]))
		}
	}
	// Another tool's directory, manifest and all, is not this one's.
	other := Owner{Tool: "another tool"}
	if err := CheckOwned(dir, other); err == nil || !strings.Contains(err.Error(), "which another tool did not write") {
		t.Errorf("another tool's directory: %v", err)
	}
	// Without a manifest (an earlier version's directory), the tool's
	// Legacy names decide.
	legacy := filepath.Join(t.TempDir(), "old")
	writeTree(t, legacy, "out1.txt", "out/deep.txt")
	if err := CheckOwned(legacy, o); err != nil {
		t.Errorf("legacy directory of the tool's names: %v", err)
	}
	writeTree(t, legacy, "notes.txt")
	if err := CheckOwned(legacy, o); err == nil || !strings.Contains(err.Error(), "holds notes.txt, which the tool did not write") {
		t.Errorf("legacy directory with a foreign file: %v", err)
	}
}

// A file that appears while the new directory is built refuses the swap.
func TestOwnedDirCheckedAtCommit(t *testing.T) {
	o := Owner{Tool: "the tool"}
	dir := filepath.Join(t.TempDir(), "site")
	if err := buildOwned(dir, o, "a.txt"); err != nil {
		t.Fatal(err)
	}
	d, err := CreateOwnedDir(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	writeTree(t, dir, "late.txt")
	err = d.Commit()
	var fe *ForeignError
	if !errors.As(err, &fe) || fe.Files[0] != "late.txt" {
		t.Errorf("Commit: %v; want the late file named", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "new a.txt" {
		t.Errorf("the old directory changed: %q", b)
	}
	ents, _ := os.ReadDir(filepath.Dir(dir))
	if len(ents) != 1 {
		t.Errorf("staging left beside the directory: %v", ents)
	}
}
