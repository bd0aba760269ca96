package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Owned directories. A tool that replaces an output directory whole (a
// report, a viewer site) would delete whatever a user put beside its
// files. An owned directory carries a manifest, ManifestName, listing
// every file the tool wrote into it (slash-separated paths relative to
// the directory); a later run replaces the directory only when it holds
// nothing else, at any depth, and otherwise refuses with a ForeignError
// naming what it would lose. A directory an earlier version wrote without
// a manifest is replaced only when every file in it is one the tool
// writes (Owner.Legacy).

// ManifestName is the manifest of an owned directory.
const ManifestName = ".limbo-manifest"

// manifestHeader starts a manifest; the tool's name follows it, then
// manifestHeaderEnd.
const (
	manifestHeader    = "# files written by "
	manifestHeaderEnd = "; a re-run replaces these"
)

// Owner describes the tool that owns a directory.
type Owner struct {
	// Tool names the tool in the manifest and in messages
	// ("limbo-analyze report").
	Tool string
	// Legacy reports whether rel (slash-separated, relative to the
	// directory) is a file the tool writes, for a directory without a
	// manifest.
	Legacy func(rel string) bool
}

// ForeignError refuses an owned directory that holds files its tool did
// not write.
type ForeignError struct {
	Dir   string
	Tool  string
	Files []string // relative, slash-separated, sorted
}

func (e *ForeignError) Error() string {
	more := ""
	if len(e.Files) > 1 {
		more = fmt.Sprintf(" (and %d more: %s)", len(e.Files)-1, strings.Join(e.Files[1:min(len(e.Files), 4)], ", "))
		if len(e.Files) > 4 {
			more = strings.TrimSuffix(more, ")") + ", …)"
		}
	}
	return fmt.Sprintf("%s holds %s%s, which %s did not write; it replaces only its own files: move that away, or write to a new or empty directory",
		e.Dir, e.Files[0], more, e.Tool)
}

// CheckOwned returns a *ForeignError when the existing directory dir holds
// files o's tool did not write (by its manifest, or o.Legacy without one),
// nil when it holds none or does not exist.
func CheckOwned(dir string, o Owner) error {
	foreign, err := foreignFiles(dir, o)
	if err != nil {
		return err
	}
	if len(foreign) > 0 {
		return &ForeignError{Dir: filepath.Clean(dir), Tool: o.Tool, Files: foreign}
	}
	return nil
}

// foreignFiles lists what dir holds that o's tool did not write: files
// (of any kind but directories) not in its manifest, and directories
// holding none of its files; our temporary entries do not count.
func foreignFiles(dir string, o Owner) ([]string, error) {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		return nil, &os.PathError{Op: "write", Path: dir, Err: errors.New("exists and is not a directory")}
	}
	listed, tool, hasManifest, err := readManifest(dir)
	if err != nil {
		return nil, err
	}
	if hasManifest && tool != o.Tool {
		listed = nil // another tool's directory: none of its files is this one's
	}
	ours := func(rel string) bool {
		if hasManifest {
			return listed[rel]
		}
		return o.Legacy != nil && o.Legacy(rel)
	}
	// The directories that hold (or lead to) a file of ours.
	holds := map[string]bool{}
	var foreign, dirs []string
	err = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == dir {
			return nil
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(e.Name(), TempPrefix) || rel == ManifestName || rel == heldName {
			if e.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if e.IsDir() {
			dirs = append(dirs, rel)
			return nil
		}
		if !ours(rel) {
			foreign = append(foreign, rel)
			return nil
		}
		for d := path(rel); d != "."; d = path(d) {
			holds[d] = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if !holds[d] && !slices.ContainsFunc(foreign, func(f string) bool { return strings.HasPrefix(f, d+"/") }) {
			foreign = append(foreign, d+"/")
		}
	}
	slices.Sort(foreign)
	return foreign, nil
}

// path is the slash-separated parent of rel ("." at the top).
func path(rel string) string {
	if i := strings.LastIndexByte(rel, '/'); i >= 0 {
		return rel[:i]
	}
	return "."
}

// readManifest reads the manifest of dir: the files it lists, the tool
// its header names, and whether there is one.
func readManifest(dir string) (listed map[string]bool, tool string, ok bool, err error) {
	f, err := os.Open(filepath.Join(dir, ManifestName))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", false, nil
	}
	if err != nil {
		return nil, "", false, err
	}
	defer f.Close()
	listed = map[string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	first := true
	for sc.Scan() {
		l := sc.Text()
		if first {
			first = false
			if t, ok := strings.CutPrefix(l, manifestHeader); ok {
				tool, _, _ = strings.Cut(t, manifestHeaderEnd)
				continue
			}
		}
		if l != "" && !strings.HasPrefix(l, "#") {
			listed[l] = true
		}
	}
	if err := sc.Err(); err != nil {
		return nil, "", false, fmt.Errorf("%s: %w", filepath.Join(dir, ManifestName), err)
	}
	return listed, tool, true, nil
}

// writeManifest writes the manifest of the staging directory stage: every
// file in it, sorted.
func writeManifest(stage string, o Owner) error {
	var files []string
	err := filepath.WalkDir(stage, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(stage, p)
		rel = filepath.ToSlash(rel)
		if rel != heldName && rel != ManifestName && !strings.HasPrefix(e.Name(), TempPrefix) {
			files = append(files, rel)
		}
		return nil
	})
	if err != nil {
		return err
	}
	slices.Sort(files)
	var b strings.Builder
	b.WriteString(manifestHeader + o.Tool + manifestHeaderEnd + " and refuses the directory if it holds anything else\n")
	for _, f := range files {
		b.WriteString(f)
		b.WriteByte('\n')
	}
	return os.WriteFile(filepath.Join(stage, ManifestName), []byte(b.String()), 0o644)
}

// CreateOwnedDir is CreateDir for a directory o's tool owns: it refuses
// (ForeignError) an existing path holding files the tool did not write,
// and Commit checks again just before the swap and writes the manifest.
func CreateOwnedDir(path string, o Owner) (*Dir, error) {
	if err := CheckOwned(path, o); err != nil {
		return nil, err
	}
	d, err := CreateDir(path)
	if err != nil {
		return nil, err
	}
	d.owner = &o
	return d, nil
}
