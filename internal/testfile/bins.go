package testfile

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// Bins are Go binaries a package's process-level tests build once, with
// one go build, into a temporary directory that TestMain removes after
// m.Run (Remove).
type Bins struct {
	Prefix string   // of the temporary directory's name
	Pkgs   []string // the packages to build, relative to the package under test

	once sync.Once
	dir  string
	err  error
}

// Dir builds the binaries the first time it is called and returns their
// directory (each named after its package's directory); a failed build
// fails t, every time.
func (b *Bins) Dir(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		if b.dir, b.err = os.MkdirTemp("", b.Prefix); b.err != nil {
			return
		}
		// One go build for all: the link steps run in parallel.
		args := append([]string{"build", "-o", b.dir + string(filepath.Separator)}, b.Pkgs...)
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", strings.Join(b.Pkgs, " "), err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.dir
}

// Remove removes the directory, if Dir made one.
func (b *Bins) Remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}
