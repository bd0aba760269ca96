package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// heldName is the file inside a staging directory that its live writer
// holds locked, so that CleanStale can tell a killed writer's leftover from
// a directory still being built.
const heldName = ".limbo-held"

// Dir is an output directory (a report site, a partitioned dataset) built
// in a staging directory beside its final path and swapped into place by
// Commit: readers see the old directory or the new one, never a half-built
// one, and a failed build leaves the old one untouched.
type Dir struct {
	path string // the output directory, as given
	tmp  string // the staging directory
	held *os.File
	made []string // parent directories created, removed on Abort
	done bool
	// owner, for an owned directory (CreateOwnedDir): the manifest is
	// written and the old directory checked again on commit.
	owner *Owner
}

// CreateDir starts the output directory path. Write into Path(); Commit
// replaces whatever is at path (a directory, or nothing) with it.
func CreateDir(path string) (*Dir, error) {
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		return nil, &os.PathError{Op: "create", Path: path, Err: errors.New("exists and is not a directory")}
	}
	// A link to a directory is followed: the directory it names is
	// replaced, not the link (a user who links an output directory means
	// its target).
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
	}
	clean := filepath.Clean(path)
	parent, base := filepath.Split(clean)
	if parent == "" {
		parent = "."
	}
	made, err := mkdirAll(parent)
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: path, Err: underlying(err)}
	}
	CleanStale(parent)
	if len(base) > 100 {
		base = base[:100]
	}
	tmp, err := os.MkdirTemp(parent, TempPrefix+base+".*")
	if err != nil {
		return nil, &os.PathError{Op: "create", Path: path, Err: underlying(err)}
	}
	d := &Dir{path: path, tmp: tmp, made: made}
	if err := os.Chmod(tmp, 0o755); err != nil {
		d.Abort()
		return nil, &os.PathError{Op: "create", Path: path, Err: underlying(err)}
	}
	// The held file gets its name only once locked, so a cleaner in another
	// process never finds it unlocked and takes the directory for stale.
	if d.held, err = os.CreateTemp(tmp, "held-*"); err == nil {
		if err = lockFD(d.held, false); err == nil {
			err = os.Rename(d.held.Name(), filepath.Join(tmp, heldName))
		}
	}
	if err != nil {
		d.Abort()
		return nil, &os.PathError{Op: "create", Path: path, Err: underlying(err)}
	}
	return d, nil
}

// Path is the staging directory to write the output's files into.
func (d *Dir) Path() string { return d.tmp }

// Commit syncs every file of the staging directory, then swaps it into
// place: an existing directory at the output path is moved aside, the new
// one renamed in, the parent synced, and the old one removed. On an error
// the old directory is put back.
func (d *Dir) Commit() error { return d.commit(nil) }

// CommitUnit commits u, a unit of files inside the staging directory,
// then the directory as Commit does, except that the files and
// directories u's commit synced are not synced a second time. On an error
// (u's or the directory's) the directory is aborted.
func (d *Dir) CommitUnit(u *Unit) error {
	if d.done {
		return errors.New("outfile: directory already committed or aborted")
	}
	if err := u.Commit(); err != nil {
		d.Abort()
		return err
	}
	return d.commit(u.synced())
}

// commit is Commit, leaving out of the sync the paths in synced (cleaned).
func (d *Dir) commit(synced map[string]bool) error {
	if d.done {
		return errors.New("outfile: directory already committed or aborted")
	}
	fail := func(err error) error {
		d.Abort()
		return fmt.Errorf("%s: %w", d.path, underlying(err))
	}
	if d.owner != nil {
		if err := writeManifest(d.tmp, *d.owner); err != nil {
			return fail(err)
		}
		delete(synced, filepath.Clean(d.tmp)) // it has a new entry to sync
	}
	if err := syncTree(d.tmp, synced); err != nil {
		return fail(err)
	}
	if d.owner != nil {
		// Files may have appeared while the new directory was built.
		if err := CheckOwned(d.path, *d.owner); err != nil {
			d.Abort()
			return err
		}
	}
	var old string
	if _, err := os.Stat(d.path); err == nil {
		o, err := os.MkdirTemp(filepath.Dir(d.tmp), TempPrefix+"old-*")
		if err != nil {
			return fail(err)
		}
		old = filepath.Join(o, "dir")
		if err := rename(d.path, old); err != nil {
			os.Remove(o)
			return fail(err)
		}
		defer os.RemoveAll(o)
	}
	if err := rename(d.tmp, d.path); err != nil {
		if old != "" {
			os.Rename(old, d.path)
		}
		return fail(err)
	}
	d.done = true
	// The held file moved in with the directory: drop it, then the lock.
	os.Remove(filepath.Join(d.path, heldName))
	d.held.Close()
	d.held = nil
	if err := syncDir(filepath.Dir(d.tmp)); err != nil {
		return fmt.Errorf("%s: %w", d.path, underlying(err))
	}
	return nil
}

// Abort removes the staging directory and the parents CreateDir made.
// It is a no-op after Commit.
func (d *Dir) Abort() {
	if d.done {
		return
	}
	d.done = true
	if d.held != nil {
		d.held.Close()
	}
	os.RemoveAll(d.tmp)
	for i := len(d.made) - 1; i >= 0; i-- {
		os.Remove(d.made[i]) // only if still empty
	}
}

// syncTree fsyncs every regular file and directory below root, all at
// once (syncAll), but those in skip (by cleaned path).
func syncTree(root string, skip map[string]bool) error {
	type entry struct {
		path string
		dir  bool
	}
	var todo []entry
	if err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if (e.IsDir() || e.Type().IsRegular()) && !skip[filepath.Clean(p)] {
			todo = append(todo, entry{p, e.IsDir()})
		}
		return nil
	}); err != nil {
		return err
	}
	return syncAll(len(todo), func(i int) error {
		if todo[i].dir {
			return syncDir(todo[i].path)
		}
		f, err := os.Open(todo[i].path)
		if err != nil {
			return err
		}
		defer f.Close()
		return syncFile(f)
	})
}

// staleDir reports whether p is a staging directory of ours that no live
// writer holds: its held file can be locked (its writer died). A backup
// that a killed commit left (no held file) counts once it is an hour old,
// since a commit in progress holds one only for a moment.
func staleDir(p string) bool {
	f, err := os.Open(filepath.Join(p, heldName))
	if errors.Is(err, fs.ErrNotExist) {
		fi, err := os.Stat(p)
		return err == nil && time.Since(fi.ModTime()) > time.Hour
	}
	if err != nil {
		return false
	}
	defer f.Close()
	return lockFD(f, false) == nil
}
