package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// tempNames lists the files of our prefix in dir.
func tempNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), TempPrefix) {
			out = append(out, e.Name())
		}
	}
	return out
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestFileCommitAndAbort(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "sub", "a.txt")
	f, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("hello\n")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("output visible before Close: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readString(t, out); got != "hello\n" {
		t.Errorf("content %q", got)
	}
	fi, _ := os.Stat(out)
	if fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	g, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("other"))
	g.Abort()
	if got := readString(t, out); got != "hello\n" {
		t.Errorf("abort changed the output: %q", got)
	}
	if n := tempNames(t, filepath.Dir(out)); len(n) != 0 {
		t.Errorf("temporaries left: %v", n)
	}
}

// Errors name the output, never the temporary file, and never say
// "write: write:" (issue 17, items 8 and the failed-rename message).
func TestErrorsNameTheOutput(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "e.parquet")
	f, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	f.f.Close() // make the next write fail
	_, werr := f.Write([]byte("x"))
	f.Abort()
	// A rename that fails: the target became a non-empty directory.
	g, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(out, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	cerr := g.Close()
	for _, err := range []error{werr, cerr} {
		if err == nil {
			t.Fatal("want an error")
		}
		msg := err.Error()
		if !strings.Contains(msg, out) || strings.Contains(msg, TempPrefix) || strings.Contains(msg, "write: write") {
			t.Errorf("message %q: want it to name %s and not the temporary file", msg, out)
		}
	}
	if n := tempNames(t, dir); len(n) != 0 {
		t.Errorf("temporaries left: %v", n)
	}
}

// Item 13: the file is synced before the rename and the directory after.
func TestCommitSyncsFileThenRenamesThenSyncsDir(t *testing.T) {
	var ops []string
	var mu sync.Mutex // a unit syncs its files concurrently
	op := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		ops = append(ops, s)
	}
	sf, sd, rn := syncFile, syncDir, rename
	t.Cleanup(func() { syncFile, syncDir, rename = sf, sd, rn })
	syncFile = func(f *os.File) error { op("sync file"); return f.Sync() }
	syncDir = func(d string) error { op("sync dir"); return fsyncDir(d) }
	rename = func(a, b string) error { op("rename"); return os.Rename(a, b) }
	dir := t.TempDir()
	if err := WriteFile(filepath.Join(dir, "a"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	u := NewUnit()
	u.WriteFile(filepath.Join(dir, "b"), []byte("2"))
	u.WriteFile(filepath.Join(dir, "c"), []byte("3"))
	if err := u.Commit(); err != nil {
		t.Fatal(err)
	}
	want := []string{"sync file", "rename", "sync dir", "sync file", "sync file", "rename", "rename", "sync dir"}
	if !slices.Equal(ops, want) {
		t.Errorf("operations %v, want %v", ops, want)
	}
}

// A unit's files are synced at its commit, together: a failed sync (the
// disk full when the data is written back) fails the commit before any
// file is renamed, names the output, and leaves the old files and no
// temporaries; a commit of many files syncs each once.
func TestUnitSyncFailure(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 40 {
		p := filepath.Join(dir, "f"+strconv.Itoa(i))
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	sf, rn := syncFile, rename
	t.Cleanup(func() { syncFile, rename = sf, rn })
	var mu sync.Mutex
	synced := map[string]int{}
	renamed := 0
	rename = func(a, b string) error {
		mu.Lock()
		renamed++
		mu.Unlock()
		return os.Rename(a, b)
	}
	write := func() error {
		u := NewUnit()
		defer u.Abort()
		for _, p := range paths {
			if err := u.WriteFile(p, []byte("new")); err != nil {
				t.Fatal(err)
			}
		}
		return u.Commit()
	}
	syncFile = func(f *os.File) error {
		mu.Lock()
		defer mu.Unlock()
		synced[f.Name()]++
		if strings.Contains(f.Name(), TempPrefix+"f17.") || strings.Contains(f.Name(), TempPrefix+"f30.") {
			return &os.PathError{Op: "sync", Path: f.Name(), Err: syscall.ENOSPC}
		}
		return nil
	}
	err := write()
	if err == nil || !strings.Contains(err.Error(), paths[17]) || strings.Contains(err.Error(), TempPrefix) || !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("commit with a failed sync: %v, want the no-space error of %s", err, paths[17])
	}
	if renamed != 0 {
		t.Errorf("%d renames after a failed sync", renamed)
	}
	for _, p := range paths {
		if got := readString(t, p); got != "old" {
			t.Fatalf("%s holds %q after the failed commit", p, got)
		}
	}
	if n := tempNames(t, dir); len(n) != 0 {
		t.Errorf("temporaries left: %v", n)
	}
	if len(synced) != len(paths) {
		t.Errorf("synced %d files, want all %d", len(synced), len(paths))
	}

	syncFile = func(f *os.File) error {
		mu.Lock()
		defer mu.Unlock()
		synced[f.Name()]++
		return f.Sync()
	}
	clear(synced)
	if err := write(); err != nil {
		t.Fatal(err)
	}
	for name, n := range synced {
		if n != 1 {
			t.Errorf("%s synced %d times", name, n)
		}
	}
	if len(synced) != len(paths) || renamed != len(paths) {
		t.Errorf("synced %d files and renamed %d, want %d each", len(synced), renamed, len(paths))
	}
	for _, p := range paths {
		if got := readString(t, p); got != "new" {
			t.Fatalf("%s holds %q after the commit", p, got)
		}
	}
}

// A unit's file starts its sync when it is closed, without waiting for it;
// the commit waits for it before renaming the file into place.
func TestUnitSyncsInBackground(t *testing.T) {
	dir := t.TempDir()
	sf := syncFile
	t.Cleanup(func() { syncFile = sf })
	started, release := make(chan struct{}), make(chan struct{})
	syncFile = func(f *os.File) error {
		close(started)
		<-release
		return f.Sync()
	}
	u := NewUnit()
	defer u.Abort()
	out := filepath.Join(dir, "a")
	if err := u.WriteFile(out, []byte("1")); err != nil { // returns with the sync blocked
		t.Fatal(err)
	}
	<-started
	committed := make(chan error)
	go func() { committed <- u.Commit() }()
	select {
	case err := <-committed:
		t.Fatalf("commit returned (%v) before the file's sync", err)
	case <-time.After(50 * time.Millisecond):
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("file in place before its sync")
	}
	close(release)
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	if got := readString(t, out); got != "1" {
		t.Errorf("a = %q", got)
	}
}

func TestUnitAllOrNothing(t *testing.T) {
	dir := t.TempDir()
	x := filepath.Join(dir, "x.parquet")
	calls := filepath.Join(dir, "x.calls.parquet")
	effects := filepath.Join(dir, "x.effects.parquet")
	for _, p := range []string{x, calls, effects} {
		if err := os.WriteFile(p, []byte("old "+filepath.Base(p)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name     string
		failOn   string // rename target that fails; "" for none
		want     map[string]string
		wantFail bool
	}{
		{"second rename fails", calls, map[string]string{x: "old x.parquet", calls: "old x.calls.parquet", effects: "old x.effects.parquet"}, true},
		{"commit replaces and removes stale", "", map[string]string{x: "new x", calls: "new calls", effects: ""}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rn := rename
			t.Cleanup(func() { rename = rn })
			rename = func(a, b string) error {
				if b == tc.failOn {
					return &os.LinkError{Op: "rename", Old: a, New: b, Err: errors.New("injected")}
				}
				return os.Rename(a, b)
			}
			u := NewUnit()
			if err := u.WriteFile(x, []byte("new x")); err != nil {
				t.Fatal(err)
			}
			if err := u.WriteFile(calls, []byte("new calls")); err != nil {
				t.Fatal(err)
			}
			u.Remove(effects)
			err := u.Commit()
			if (err != nil) != tc.wantFail {
				t.Fatalf("Commit: %v, want failure %v", err, tc.wantFail)
			}
			if err != nil && (!strings.Contains(err.Error(), calls) || strings.Contains(err.Error(), TempPrefix)) {
				t.Errorf("error %q should name %s", err, calls)
			}
			for p, w := range tc.want {
				b, err := os.ReadFile(p)
				if w == "" {
					if !errors.Is(err, os.ErrNotExist) {
						t.Errorf("%s should be gone: %v", p, err)
					}
					continue
				}
				if string(b) != w {
					t.Errorf("%s = %q, want %q", p, b, w)
				}
			}
			if n := tempNames(t, dir); len(n) != 0 {
				t.Errorf("temporaries left: %v", n)
			}
		})
	}
}

func TestUnitAbortRemovesCreatedDirs(t *testing.T) {
	dir := t.TempDir()
	rep := filepath.Join(dir, "rep")
	u := NewUnit()
	if err := u.WriteFile(filepath.Join(rep, "report.md"), []byte("#")); err != nil {
		t.Fatal(err)
	}
	if err := u.WriteFile(filepath.Join(rep, "tables", "t.csv"), []byte("a")); err != nil {
		t.Fatal(err)
	}
	f, err := u.Create(filepath.Join(rep, "figures", "f.png"))
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("png"))
	u.Abort()
	if _, err := os.Stat(rep); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left after abort: %v", rep, err)
	}
	// An unstaged file fails the commit, and nothing appears.
	u = NewUnit()
	u.WriteFile(filepath.Join(rep, "report.md"), []byte("#"))
	if _, err := u.Create(filepath.Join(rep, "report.html")); err != nil {
		t.Fatal(err)
	}
	if err := u.Commit(); err == nil {
		t.Fatal("commit with an unclosed file succeeded")
	}
	if _, err := os.Stat(rep); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("%s left after a failed commit: %v", rep, err)
	}
}

func TestUnitRefusesInputs(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "s.jsonl")
	os.WriteFile(in, []byte("{}\n"), 0o644)
	link := filepath.Join(dir, "link.jsonl")
	hard := filepath.Join(dir, "hard.jsonl")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(in, hard); err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(in)
	for _, out := range []string{in, abs, link, hard, dir + "/./s.jsonl"} {
		u := NewUnit(in)
		_, err := u.Create(out)
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("Create(%s) with input %s: %v, want an InputError", out, in, err)
		}
		if err := u.Remove(out); !errors.As(err, &ie) {
			t.Errorf("Remove(%s): %v, want an InputError", out, err)
		}
		u.Abort()
	}
	if got := readString(t, in); got != "{}\n" {
		t.Errorf("input changed: %q", got)
	}
	if err := CheckNotInput(filepath.Join(dir, "new.jsonl"), in); err != nil {
		t.Errorf("a new file is not an input: %v", err)
	}
}

// Item 12: a temporary file nobody holds is stale and goes; a live
// writer's stays.
func TestCleanStale(t *testing.T) {
	dir := t.TempDir()
	live, err := Create(filepath.Join(dir, "live.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Abort()
	stale := filepath.Join(dir, TempPrefix+"killed.jsonl.123")
	other := filepath.Join(dir, ".user.tmp123")
	for _, p := range []string{stale, other} {
		os.WriteFile(p, []byte("x"), 0o600)
	}
	cleaned.Delete(mustAbs(t, dir))
	if n := CleanStale(dir); n != 1 {
		t.Errorf("removed %d files, want 1", n)
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temporary still there")
	}
	for _, p := range []string{live.tmp, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestTryLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "L.jsonl")
	l, err := TryLock(path, "pid 1, limbo-analyze drive")
	if err != nil {
		t.Fatal(err)
	}
	_, err = TryLock(path, "")
	var le *LockedError
	if !errors.As(err, &le) || le.Holder != "pid 1, limbo-analyze drive" || !strings.Contains(err.Error(), path) {
		t.Fatalf("second lock: %v, want a LockedError naming the holder", err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	l2, err := TryLock(path, "")
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	l2.Unlock()
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("locking created the ledger itself")
	}
	if _, err := os.Stat(LockPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Unlock left the lock file %s", LockPath(path))
	}
	if !errors.Is(le, ErrLocked) {
		t.Errorf("a LockedError is not ErrLocked")
	}
}

func TestCheckDistinct(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	tests := []struct {
		name    string
		outputs map[string]string
		want    string
	}{
		{"distinct", map[string]string{"--out": a, "--episodes": filepath.Join(dir, "a.csv")}, ""},
		{"stdout twice", map[string]string{"--out": "-", "--episodes": "-"}, ""},
		{"same spelled twice", map[string]string{"--out": a, "--episodes": dir + "/./a.jsonl", "--x": ""}, "--episodes and --out name the same file"},
	}
	for _, tt := range tests {
		err := CheckDistinct(tt.outputs)
		if (tt.want == "") != (err == nil) || err != nil && !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want %q", tt.name, err, tt.want)
		}
		var se *SameFileError
		if err != nil && (!errors.As(err, &se) || se.A != "--episodes" || se.B != "--out") {
			t.Errorf("%s: err %#v, want a *SameFileError naming --episodes and --out", tt.name, err)
		}
	}
}

// TestCreateSurvivesCleaner: a cleaner in another process can remove a
// temporary file in the moment between its creation and its lock; Create
// then makes a new one, and the output still appears whole.
func TestCreateSurvivesCleaner(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform")
	}
	removed := 0
	old := beforeLock
	t.Cleanup(func() { beforeLock = old })
	beforeLock = func(f *os.File) {
		if removed < 2 {
			removed++
			if err := os.Remove(f.Name()); err != nil {
				t.Fatal(err)
			}
		}
	}
	path := filepath.Join(t.TempDir(), "out.txt")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte("whole\n")); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatalf("Close after a cleaner removed the first two temporary files: %v", err)
	}
	got, err := os.ReadFile(path)
	if err != nil || string(got) != "whole\n" {
		t.Fatalf("output %q, %v; want the written bytes", got, err)
	}
	if removed != 2 {
		t.Fatalf("cleaner ran %d times, want 2", removed)
	}
}

// Issue 28, item 4: the one rule for outputs and inputs, by identity: an
// output inside an input directory (however spelled), an input inside an
// output directory, an output matching an input glob.
func TestCheckNotInputRelations(t *testing.T) {
	dir := t.TempDir()
	ds := filepath.Join(dir, "ds")
	part := filepath.Join(ds, "k=v")
	os.MkdirAll(part, 0o755)
	in := filepath.Join(part, "part-0.parquet")
	os.WriteFile(in, []byte("x"), 0o644)
	link := filepath.Join(dir, "link")
	if err := os.Symlink(ds, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		out, in, rel string
	}{
		{in, in, IsInput},
		{filepath.Join(part, "new.parquet"), ds, InsideInput},
		{filepath.Join(ds, "a", "b", "new.parquet"), ds, InsideInput},
		{filepath.Join(link, "new.parquet"), ds, InsideInput},
		{filepath.Join(ds, "new"), link, InsideInput},
		{dir, in, ContainsInput},
		{ds, in, ContainsInput},
		{link, in, ContainsInput},
		{filepath.Join(part, "x.parquet"), filepath.Join(ds, "*", "*.parquet"), MatchesInput},
		{dir, filepath.Join(ds, "*", "*.parquet"), ContainsInput},
		{"", in, ""},
		{filepath.Join(dir, "beside.parquet"), ds, ""},
		{filepath.Join(dir, "dsx", "f.parquet"), ds, ""},
		{part, filepath.Join(dir, "nothing"), ""},
		{filepath.Join(ds, "f"), "-", ""},
	} {
		err := CheckNotInput(c.out, c.in)
		var ie *InputError
		switch {
		case c.rel == "" && err != nil:
			t.Errorf("CheckNotInput(%s, %s) = %v, want nil", c.out, c.in, err)
		case c.rel != "" && (!errors.As(err, &ie) || ie.Relation != c.rel):
			t.Errorf("CheckNotInput(%s, %s) = %v, want relation %q", c.out, c.in, err, c.rel)
		}
	}
}
