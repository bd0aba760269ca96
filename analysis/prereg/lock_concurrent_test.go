package prereg

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// Of concurrent Locks of one file, exactly one writes the lock and every
// other refuses (before, each saw no FILE.lock and all of them wrote one:
// 6 of 6 tries from two shells).
func TestLockConcurrent(t *testing.T) {
	for round := range 20 {
		dir := t.TempDir()
		path := filepath.Join(dir, "study.yaml")
		if err := os.WriteFile(path, PaperBytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		names := []string{path, dir + "/./study.yaml"}
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			ok    int
			errs  []string
			start = make(chan struct{})
		)
		for k := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				_, err := Lock(names[k%2], time.Unix(0, 0), "test")
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					ok++
				} else {
					errs = append(errs, err.Error())
				}
			}()
		}
		close(start)
		wg.Wait()
		if ok != 1 {
			t.Fatalf("round %d: %d of 8 concurrent locks succeeded, want 1 (errors: %q)", round, ok, errs)
		}
		for _, e := range errs {
			if !strings.Contains(e, "another process") && !strings.Contains(e, "already exists") {
				t.Errorf("round %d: refusal %q does not say why", round, e)
			}
		}
	}
}

// A lock in progress refuses a second one at once, naming what happens.
func TestLockHeldRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "study.yaml")
	if err := os.WriteFile(path, PaperBytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	held, err := lockFileForTest(path)
	if err != nil {
		t.Fatal(err)
	}
	defer held()
	_, err = Lock(filepath.Join(dir, ".", "study.yaml"), time.Unix(0, 0), "test")
	if err == nil || !strings.Contains(err.Error(), "being locked by another process") {
		t.Fatalf("Lock while another holds the file: %v", err)
	}
	if _, serr := os.Stat(LockPath(path)); !errors.Is(serr, os.ErrNotExist) {
		t.Errorf("a refused Lock wrote %s", LockPath(path))
	}
}
