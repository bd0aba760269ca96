package outfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// TempPrefix starts the name of every temporary file this package creates,
// so that stale ones are recognisably ours and nothing else is removed.
const TempPrefix = ".limbo-tmp-"

// Hooks for tests: the fsync calls, in the order the commit makes them.
var (
	syncFile = func(f *os.File) error { return f.Sync() }
	syncDir  = fsyncDir
	rename   = os.Rename
	// beforeLock runs between creating a temporary file and locking it,
	// where another process's CleanStale may act.
	beforeLock = func(*os.File) {}
)

// File is an output file that appears at its path only when committed.
// Write errors name the output path, never the temporary file.
type File struct {
	path   string // the output path, as given
	tmp    string // the temporary file's path
	f      *os.File
	unit   *Unit // nil for a file committed on its own
	staged bool  // written, waiting for the unit's commit
	done   bool  // committed or aborted
	// syncing delivers the result of the sync a unit's file starts when
	// it is staged; syncErr keeps it once received.
	syncing chan error
	syncErr error
}

// Create creates the output file path: a temporary file in path's
// directory (created if missing) that Close renames into place. It refuses
// a path that is an existing directory.
func Create(path string) (*File, error) {
	f, _, err := create(path)
	return f, err
}

// create is Create that also reports the directories it made.
func create(path string) (*File, []string, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, nil, &os.PathError{Op: "create", Path: path, Err: errors.New("is a directory")}
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	made, err := mkdirAll(dir)
	if err != nil {
		return nil, made, &os.PathError{Op: "create", Path: path, Err: underlying(err)}
	}
	CleanStale(dir)
	// A long base name would make the temporary name exceed NAME_MAX.
	if len(base) > 100 {
		base = base[:100]
	}
	f, err := createLocked(dir, TempPrefix+base+".*")
	if err != nil {
		return nil, made, &os.PathError{Op: "create", Path: path, Err: underlying(err)}
	}
	// CreateTemp makes the file 0600; an output is an ordinary file.
	if err := f.Chmod(0o644); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, made, &os.PathError{Op: "create", Path: path, Err: underlying(err)}
	}
	return &File{path: path, tmp: f.Name(), f: f}, made, nil
}

// Name returns the output path (not the temporary file's).
func (f *File) Name() string { return f.path }

// Write writes p to the temporary file.
func (f *File) Write(p []byte) (int, error) {
	n, err := f.f.Write(p)
	if err != nil {
		err = &os.PathError{Op: "write", Path: f.path, Err: underlying(err)}
	}
	return n, err
}

// ReadAt reads back what was written, before the file is committed: a
// writer that derives part of a file from its earlier bytes (a Parquet
// footer certifying a column's bytes) reads them here.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.f.ReadAt(p, off)
	if err != nil && err != io.EOF {
		err = &os.PathError{Op: "read back", Path: f.path, Err: underlying(err)}
	}
	return n, err
}

// Truncate cuts the temporary file to size bytes; the next Write goes on
// from there (a writer replacing the file's tail).
func (f *File) Truncate(size int64) error {
	err := f.f.Truncate(size)
	if err == nil {
		_, err = f.f.Seek(size, io.SeekStart)
	}
	if err != nil {
		return &os.PathError{Op: "write", Path: f.path, Err: underlying(err)}
	}
	return nil
}

// Size is the number of bytes written (the temporary file's size).
func (f *File) Size() (int64, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return 0, &os.PathError{Op: "stat", Path: f.path, Err: underlying(err)}
	}
	return fi.Size(), nil
}

// Close finishes the file: for a file of its own, fsync, rename into
// place and fsync the directory. A file created by a Unit is staged: the
// unit's Commit syncs it (with the unit's other files at once) and renames
// it. On error the temporary file is removed.
func (f *File) Close() error {
	if f.done || f.staged {
		return &os.PathError{Op: "close", Path: f.path, Err: os.ErrClosed}
	}
	if f.unit != nil {
		// The descriptor stays open: its lock marks the file as live. The
		// sync starts now, in the background, so that it overlaps the
		// writing of the unit's other files; the commit waits for it.
		f.staged = true
		f.syncing = make(chan error, 1)
		go func() {
			f.unit.syncs <- struct{}{}
			defer func() { <-f.unit.syncs }()
			f.syncing <- f.sync()
		}()
		return nil
	}
	if err := f.sync(); err != nil {
		f.Abort()
		return err
	}
	f.done = true
	defer f.f.Close()
	if err := rename(f.tmp, f.path); err != nil {
		os.Remove(f.tmp)
		return &os.PathError{Op: "commit", Path: f.path, Err: underlying(err)}
	}
	if err := syncDir(filepath.Dir(f.path)); err != nil {
		return &os.PathError{Op: "sync directory of", Path: f.path, Err: underlying(err)}
	}
	return nil
}

// sync flushes the file's content to the disk; an error is the write's.
func (f *File) sync() error {
	if err := syncFile(f.f); err != nil {
		return &os.PathError{Op: "write", Path: f.path, Err: underlying(err)}
	}
	return nil
}

// synced waits for the sync that staging started (if any) and returns
// its error.
func (f *File) synced() error {
	if f.syncing != nil {
		f.syncErr = <-f.syncing
		f.syncing = nil
	}
	return f.syncErr
}

// syncAll calls fn(i) for i in [0, n), syncLimit at a time, and returns
// the error of the lowest i that failed. Syncs in flight together share
// the file system's journal commits and the disk's cache flushes, where
// one after another each waits for its own.
func syncAll(n int, fn func(i int) error) error {
	errs := make([]error, n)
	sem := make(chan struct{}, syncLimit)
	var wg sync.WaitGroup
	for i := range n {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			errs[i] = fn(i)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// syncLimit bounds the syncs (and so the descriptors syncTree opens) in
// flight at once.
const syncLimit = 16

// Abort discards the file; it is a no-op after Close or Abort. A file of
// a Unit that is aborted is left out of the unit's commit.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.synced() // not closed under a sync in flight
	f.f.Close()
	os.Remove(f.tmp)
}

// WriteFile writes data to path atomically (Create, Write, Close).
func WriteFile(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// Write creates path atomically with the content fn writes.
func Write(path string, fn func(io.Writer) error) error {
	return fill(Create, path, fn)
}

// fill creates path with create, writes it with fn and closes it (for a
// unit's file: stages it), or aborts it if fn fails.
func fill(create func(string) (*File, error), path string, fn func(io.Writer) error) error {
	f, err := create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Abort()
		return err
	}
	return f.Close()
}

// underlying strips the path that an os error carries, which for a write
// is the temporary file's: the caller names the output instead.
func underlying(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// fsyncDir makes a rename in dir durable. File systems that cannot sync a
// directory (EINVAL) are accepted as they are.
func fsyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	return nil
}

// mkdirAll is os.MkdirAll that returns the directories it created, deepest
// last, so that an abort can remove them again.
func mkdirAll(dir string) ([]string, error) {
	var missing []string
	for d := filepath.Clean(dir); ; {
		if _, err := os.Stat(d); err == nil {
			break
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		missing = append(missing, d)
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	var made []string
	for i := len(missing) - 1; i >= 0; i-- {
		err := os.Mkdir(missing[i], 0o755)
		if errors.Is(err, fs.ErrExist) {
			continue // made meanwhile by someone else: not ours to remove
		}
		if err != nil {
			return made, err
		}
		made = append(made, missing[i])
	}
	return made, nil
}

// createLocked creates a temporary file in dir and takes its lock. Between
// the two, another process's CleanStale can see the file unlocked, take it
// for a dead writer's and remove it (or hold its lock for a moment): so the
// lock waits, and a file no longer at its name is replaced by a new one.
func createLocked(dir, pattern string) (*os.File, error) {
	for range 10 {
		f, err := os.CreateTemp(dir, pattern)
		if err != nil {
			return nil, err
		}
		beforeLock(f)
		if err := lockFD(f, true); err != nil {
			f.Close()
			os.Remove(f.Name())
			return nil, err
		}
		held, herr := f.Stat()
		named, nerr := os.Stat(f.Name())
		if herr == nil && nerr == nil && os.SameFile(held, named) {
			return f, nil
		}
		f.Close() // removed by a cleaner: try a new name
	}
	return nil, errors.New("temporary file removed by another process ten times")
}

var cleaned sync.Map // directory → struct{}: cleaned once per process

// CleanStale removes the temporary files of our prefix in dir that no live
// writer holds (a writer killed with SIGKILL leaves its temporary file; the
// kernel releases its lock). It runs once per directory per process; errors
// are ignored, since a leftover is harmless to correctness. It returns the
// number of files removed.
func CleanStale(dir string) int {
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	if _, loaded := cleaned.LoadOrStore(abs, struct{}{}); loaded {
		return 0
	}
	if !canLock {
		return 0
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		if !strings.HasPrefix(e.Name(), TempPrefix) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if e.IsDir() {
			if staleDir(p) && os.RemoveAll(p) == nil {
				n++
			}
			continue
		}
		if !e.Type().IsRegular() {
			continue
		}
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		// Held by a live writer: leave it.
		if lockFD(f, false) == nil {
			if os.Remove(p) == nil {
				n++
			}
		}
		f.Close()
	}
	return n
}

// SameFile reports whether paths a and b name the same existing file (the
// same device and inode once symlinks are resolved). A path that does not
// exist is the same as nothing.
func SameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	if err != nil {
		return false
	}
	return os.SameFile(fa, fb)
}

// Relations of an output to an input (InputError.Relation).
const (
	// IsInput: the output is the input (the same file however spelled).
	IsInput = "is"
	// InsideInput: the output lies inside the input (a directory or
	// dataset), so that every later read of the input would read it too.
	InsideInput = "inside"
	// ContainsInput: the input lies inside the output (a directory the
	// command replaces), so that writing the output would destroy it.
	ContainsInput = "contains"
	// MatchesInput: the output matches the input's glob pattern, so that
	// every later read of the input would read it too.
	MatchesInput = "matches"
)

// InputError says that an output would overwrite (or remove) an input, or
// be read as part of one.
type InputError struct {
	Output, Input string
	// Relation is IsInput, InsideInput, ContainsInput or MatchesInput;
	// "" means IsInput.
	Relation string
	// Via is the path that made the relation, when it is neither Output
	// nor Input: the output's ancestor that is the input, or the input's
	// ancestor that is the output.
	Via string
}

func (e *InputError) Error() string {
	switch e.Relation {
	case InsideInput:
		return fmt.Sprintf("output %s is inside the input %s; every later read of the input would read it too (write outside the input)", e.Output, e.Input)
	case ContainsInput:
		return fmt.Sprintf("the input %s is inside the output %s; writing the output would destroy it (write to another directory)", e.Input, e.Output)
	case MatchesInput:
		return fmt.Sprintf("output %s matches the input pattern %s; every later read of the input would read it too (write elsewhere)", e.Output, e.Input)
	}
	if filepath.Clean(e.Output) == filepath.Clean(e.Input) {
		return fmt.Sprintf("output %s is the input; it would be destroyed (write to another file)", e.Output)
	}
	return fmt.Sprintf("output %s is the input %s (the same file through a link); it would be destroyed (write to another file)", e.Output, e.Input)
}

// CheckNotInput returns an *InputError if output is related to any of
// inputs by file identity (device and inode, links resolved; see
// SameFile): output is an input; output lies inside an input (one of the
// output's existing ancestors is the input, a directory or dataset); an
// input lies inside output (one of the input's ancestors is output, a
// directory the command replaces); or output matches an input that is a
// glob pattern. Inputs "" and "-" (stdin) are not files. It returns nil
// otherwise.
func CheckNotInput(output string, inputs ...string) error {
	if output == "" || output == "-" {
		return nil
	}
	for _, in := range inputs {
		if in == "" || in == "-" {
			continue
		}
		if err := related(output, in); err != nil {
			return err
		}
	}
	return nil
}

// related is CheckNotInput for one input.
func related(output, in string) error {
	if SameFile(output, in) {
		return &InputError{Output: output, Input: in, Relation: IsInput}
	}
	if isGlob(in) {
		if ok, _ := filepath.Match(filepath.Clean(in), filepath.Clean(output)); ok {
			return &InputError{Output: output, Input: in, Relation: MatchesInput}
		}
		if abs, err := filepath.Abs(output); err == nil {
			if absIn, err := filepath.Abs(in); err == nil {
				if ok, _ := filepath.Match(absIn, abs); ok {
					return &InputError{Output: output, Input: in, Relation: MatchesInput}
				}
			}
		}
		// The pattern's files are each an input.
		matches, _ := filepath.Glob(in)
		for _, m := range matches {
			if err := related(output, m); err != nil {
				var ie *InputError
				if errors.As(err, &ie) {
					ie.Input = in
					ie.Via = m
				}
				return err
			}
		}
		return nil
	}
	fi, err := os.Stat(in)
	if err != nil {
		return nil // an input that does not exist holds nothing
	}
	// The output inside the input: an ancestor of the output is the input.
	if fi.IsDir() {
		for _, a := range ancestors(output) {
			if fa, err := os.Stat(a); err == nil && os.SameFile(fa, fi) {
				return &InputError{Output: output, Input: in, Relation: InsideInput, Via: a}
			}
		}
	}
	// The input inside the output: an ancestor of the input is the output.
	fo, err := os.Stat(output)
	if err != nil || !fo.IsDir() {
		return nil
	}
	for _, a := range ancestors(in) {
		if fa, err := os.Stat(a); err == nil && os.SameFile(fa, fo) {
			return &InputError{Output: output, Input: in, Relation: ContainsInput, Via: a}
		}
	}
	return nil
}

// ancestors returns the directories above path, nearest first, up to the
// root (made absolute, so that a relative path's ancestors include the
// working directory's).
func ancestors(path string) []string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	var out []string
	for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
		out = append(out, d)
		if filepath.Dir(d) == d {
			return out
		}
	}
}

// isGlob reports whether path is a glob pattern rather than a file name.
func isGlob(path string) bool {
	return strings.ContainsAny(path, "*?[")
}

// SameFileError says that two outputs of one command, named A and B as
// in CheckDistinct's map, are the same file Path.
type SameFileError struct{ A, B, Path string }

func (e *SameFileError) Error() string {
	return fmt.Sprintf("%s and %s name the same file %s; one would replace the other", e.A, e.B, e.Path)
}

// CheckDistinct refuses two outputs of one command that are the same file
// however spelled (simulate --out x.jsonl --episodes x.jsonl): one would
// silently replace the other. outputs maps a name of each output (an
// option, as its caller's messages name it) to its path; "" and "-"
// (stdout) are not files. The error is a *SameFileError naming the pair
// first in sorted order.
func CheckDistinct(outputs map[string]string) error {
	names := make([]string, 0, len(outputs))
	for k := range outputs {
		names = append(names, k)
	}
	// Sorted, so that the error names the same pair every run.
	sort.Strings(names)
	for i, a := range names {
		for _, b := range names[i+1:] {
			pa, pb := outputs[a], outputs[b]
			if pa == "" || pb == "" || pa == "-" || pb == "-" {
				continue
			}
			if filepath.Clean(pa) == filepath.Clean(pb) || SameFile(pa, pb) {
				return &SameFileError{A: a, B: b, Path: pa}
			}
		}
	}
	return nil
}
