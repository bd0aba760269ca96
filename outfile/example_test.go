package outfile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/limbo-toolkit/limbo/outfile"
)

// A command's outputs as one unit: the episode table and its siblings
// appear together, and a sibling this run no longer writes is removed.
func ExampleUnit() {
	dir, _ := os.MkdirTemp("", "outfile-example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "e.effects.parquet"), []byte("stale"), 0o644)

	u := outfile.NewUnit(filepath.Join(dir, "in.jsonl"))
	defer u.Abort() // no-op after Commit
	u.WriteFile(filepath.Join(dir, "e.parquet"), []byte("episodes"))
	u.WriteFile(filepath.Join(dir, "e.calls.parquet"), []byte("calls"))
	u.Remove(filepath.Join(dir, "e.effects.parquet"))
	if err := u.Commit(); err != nil {
		fmt.Println(err)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		fmt.Println(e.Name())
	}
	// Output:
	// e.calls.parquet
	// e.parquet
}

// An exclusive lock on a ledger that a long run appends to: a second
// process is told who holds it.
func ExampleTryLock() {
	dir, _ := os.MkdirTemp("", "outfile-example")
	defer os.RemoveAll(dir)
	ledger := filepath.Join(dir, "L.jsonl")

	l, err := outfile.TryLock(ledger, "limbo-analyze drive, pid 4711")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer l.Unlock()
	if _, err := outfile.TryLock(ledger, ""); err != nil {
		fmt.Println(filepath.Base(err.(*outfile.LockedError).Path), "held by:", err.(*outfile.LockedError).Holder)
	}
	// Output:
	// L.jsonl held by: limbo-analyze drive, pid 4711
}
