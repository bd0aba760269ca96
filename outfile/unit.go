package outfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
)

// Unit is a set of output files that appear together or not at all, and
// the stale paths they replace. It is safe for concurrent use.
//
// Commit is all-or-nothing with respect to errors: if a rename fails, the
// files already renamed are put back as they were. A crash (SIGKILL, power
// loss) during Commit itself, a window of a few renames, may leave some
// files new and some old; every file is still whole.
type Unit struct {
	mu      sync.Mutex
	files   []*File
	stale   []string // paths removed on commit
	made    []string // directories created, to remove on abort
	inputs  []string // paths no output may be
	done    bool
	commits []string      // output paths, in commit order
	dirs    []string      // the directories the commit synced
	syncs   chan struct{} // bounds its files' syncs in flight (syncLimit)
}

// NewUnit returns an empty unit. The paths in inputs are protected: Create
// and Remove refuse them (by identity, see SameFile) with an *InputError.
func NewUnit(inputs ...string) *Unit {
	return &Unit{inputs: slices.Clone(inputs), syncs: make(chan struct{}, syncLimit)}
}

// Create adds the output file path to the unit. Close on the returned
// File stages it; Commit puts it in place.
func (u *Unit) Create(path string) (*File, error) {
	if err := CheckNotInput(path, u.inputs...); err != nil {
		return nil, err
	}
	f, made, err := create(path)
	u.mu.Lock()
	defer u.mu.Unlock()
	u.made = append(u.made, made...)
	if err != nil {
		return nil, err
	}
	if u.done {
		f.Abort()
		return nil, errors.New("outfile: unit already committed or aborted")
	}
	f.unit = u
	u.files = append(u.files, f)
	return f, nil
}

// WriteFile adds path with content data to the unit.
func (u *Unit) WriteFile(path string, data []byte) error {
	return u.Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write adds path with the content fn writes to the unit.
func (u *Unit) Write(path string, fn func(io.Writer) error) error {
	return fill(u.Create, path, fn)
}

// Remove marks path as stale: Commit removes it if it exists and no file of
// the unit takes its place (a sibling an earlier run wrote that this run's
// outputs no longer include).
func (u *Unit) Remove(path string) error {
	if err := CheckNotInput(path, u.inputs...); err != nil {
		return err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.stale = append(u.stale, path)
	return nil
}

// Files returns the output paths of the unit's files, in creation order.
func (u *Unit) Files() []string {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([]string, 0, len(u.files))
	for _, f := range u.files {
		if !f.done || slices.Contains(u.commits, f.path) {
			out = append(out, f.path)
		}
	}
	return out
}

// Abort discards every file of the unit and the directories it created
// (those left empty). It is a no-op after Commit or Abort.
func (u *Unit) Abort() {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.done {
		return
	}
	u.done = true
	for _, f := range u.files {
		f.Abort()
	}
	u.removeMade()
}

func (u *Unit) removeMade() {
	for i := len(u.made) - 1; i >= 0; i-- {
		os.Remove(u.made[i]) // fails, harmlessly, unless empty
	}
}

// replaced is an output path whose former content is kept until the whole
// unit is in place.
type replaced struct {
	path   string
	backup string // "" when nothing was there
	moved  bool   // the backup was made by renaming (the path is empty now)
	done   bool   // the new file (or the removal) took effect
}

// Commit waits for the syncs of the staged files (each starts when its
// file is closed, syncLimit at a time), puts each file in place and
// removes the stale paths, then syncs their directories; or it restores
// what was there and returns the first error. Every file must have been
// closed (staged) or aborted; an unstaged file fails the commit.
func (u *Unit) Commit() (err error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.done {
		return errors.New("outfile: unit already committed or aborted")
	}
	u.done = true
	var live []*File
	for _, f := range u.files {
		if f.done {
			continue
		}
		if !f.staged {
			err = &os.PathError{Op: "commit", Path: f.path, Err: errors.New("file not closed")}
		}
		live = append(live, f)
	}
	defer func() {
		for _, f := range live {
			f.synced() // none in flight when the descriptor closes
			if err != nil {
				os.Remove(f.tmp)
			}
			f.f.Close()
			f.done = true
		}
		if err != nil {
			u.removeMade()
		}
	}()
	if err != nil {
		return err
	}
	// Every file is on the disk before any is renamed into place: wait
	// for the syncs that staging started (all, then the first error in
	// the files' order).
	for _, f := range live {
		if serr := f.synced(); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return err
	}
	var stale []string
	for _, p := range u.stale {
		if !slices.ContainsFunc(live, func(f *File) bool { return SameFile(f.path, p) || filepath.Clean(f.path) == filepath.Clean(p) }) {
			stale = append(stale, p)
		}
	}
	// Keep the old content of every path this commit changes, so a failure
	// half-way can be undone.
	var undo []*replaced
	rollback := func() {
		for i := len(undo) - 1; i >= 0; i-- {
			r := undo[i]
			switch {
			case r.backup == "":
				if r.done {
					os.Remove(r.path)
				}
			case r.moved || r.done:
				rename(r.backup, r.path)
			default:
				os.Remove(r.backup)
			}
		}
	}
	keep := func(path string) (*replaced, error) {
		r := &replaced{path: path}
		if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
			undo = append(undo, r)
			return r, nil
		}
		b, err := backupName(path)
		if err != nil {
			return nil, err
		}
		// A hard link keeps the old file without ever leaving the path
		// empty; where links are not supported, a rename does.
		if os.Link(path, b) != nil {
			if err := rename(path, b); err != nil {
				return nil, err
			}
			r.moved = true
		}
		r.backup = b
		undo = append(undo, r)
		return r, nil
	}
	for _, f := range live {
		r, kerr := keep(f.path)
		if kerr != nil {
			rollback()
			return &os.PathError{Op: "commit", Path: f.path, Err: underlying(kerr)}
		}
		if rerr := rename(f.tmp, f.path); rerr != nil {
			rollback()
			return &os.PathError{Op: "commit", Path: f.path, Err: underlying(rerr)}
		}
		r.done = true
	}
	for _, p := range stale {
		r, kerr := keep(p)
		if kerr != nil {
			rollback()
			return &os.PathError{Op: "remove stale", Path: p, Err: underlying(kerr)}
		}
		if r.backup != "" && !r.moved {
			if rerr := os.Remove(p); rerr != nil {
				rollback()
				return &os.PathError{Op: "remove stale", Path: p, Err: underlying(rerr)}
			}
		}
		r.done = true
	}
	for _, r := range undo {
		if r.backup != "" {
			os.Remove(r.backup)
		}
	}
	var dirs, of []string // each directory once, and a path in it
	seen := map[string]bool{}
	for _, r := range undo {
		if d := filepath.Dir(r.path); !seen[d] {
			seen[d] = true
			dirs, of = append(dirs, d), append(of, r.path)
		}
	}
	if serr := syncAll(len(dirs), func(i int) error {
		if err := syncDir(dirs[i]); err != nil {
			return &os.PathError{Op: "sync directory of", Path: of[i], Err: underlying(err)}
		}
		return nil
	}); serr != nil {
		return serr
	}
	for _, f := range live {
		u.commits = append(u.commits, f.path)
	}
	u.dirs = dirs
	return nil
}

// synced returns the cleaned paths a successful Commit synced: its files
// and their directories.
func (u *Unit) synced() map[string]bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := map[string]bool{}
	for _, p := range u.commits {
		out[filepath.Clean(p)] = true
	}
	for _, d := range u.dirs {
		out[filepath.Clean(d)] = true
	}
	return out
}

// backupName returns an unused name of our prefix beside path.
func backupName(path string) (string, error) {
	f, err := os.CreateTemp(filepath.Dir(path), TempPrefix+"old-*")
	if err != nil {
		return "", err
	}
	name := f.Name()
	f.Close()
	// Only the name is wanted: Link and Rename need it free.
	if err := os.Remove(name); err != nil {
		return "", err
	}
	return name, nil
}
