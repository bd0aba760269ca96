package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// The lock belongs to the file, not to its name: a symlink or a hard link
// to a locked ledger finds it locked, and a symlink finds the holder's
// record (issue: `drive --out a.jsonl` and `drive --out b.jsonl` with b a
// symlink to a both ran every episode).
func TestLockFollowsIdentity(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform")
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(a, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sym := filepath.Join(dir, "b.jsonl")
	if err := os.Symlink("a.jsonl", sym); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(sub, "c.jsonl")
	if err := os.Link(a, hard); err != nil {
		t.Fatal(err)
	}
	symDir := filepath.Join(dir, "linkdir")
	if err := os.Symlink(".", symDir); err != nil {
		t.Fatal(err)
	}
	for _, first := range []string{a, sym, hard} {
		l, err := TryLock(first, "the first drive")
		if err != nil {
			t.Fatalf("lock %s: %v", first, err)
		}
		tests := []struct {
			name, path string
			holder     bool // the holder's record is found
		}{
			{"same path", a, first != hard},
			{"symlink", sym, first != hard},
			{"symlinked directory", filepath.Join(symDir, "a.jsonl"), first != hard},
			{"hard link", hard, first == hard},
			{"unclean path", dir + "/./sub/../a.jsonl", first != hard},
		}
		for _, tt := range tests {
			l2, err := TryLock(tt.path, "")
			var le *LockedError
			if !errors.As(err, &le) {
				l2.Unlock()
				t.Errorf("held through %s, locked through %s (%s): %v, want a LockedError", first, tt.path, tt.name, err)
				continue
			}
			if tt.holder && le.Holder != "the first drive" {
				t.Errorf("held through %s, locked through %s (%s): holder %q, want the first drive's record", first, tt.path, tt.name, le.Holder)
			}
			if !tt.holder && !strings.Contains(err.Error(), "hard link") {
				t.Errorf("held through %s, locked through %s (%s): %q does not say the holder may use another name", first, tt.path, tt.name, err)
			}
		}
		if err := l.Unlock(); err != nil {
			t.Fatal(err)
		}
	}
	// Released: every name locks again, and nothing but the ledger is left.
	for _, p := range []string{sym, hard} {
		l, err := TryLock(p, "")
		if err != nil {
			t.Fatalf("lock %s after unlock: %v", p, err)
		}
		l.Unlock()
	}
	for _, p := range []string{LockPath(a), LockPath(sym), LockPath(hard)} {
		if _, err := os.Lstat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("holder record %s left after Unlock", p)
		}
	}
	if fi, err := os.Stat(a); err != nil || fi.Size() != 0 {
		t.Errorf("the existing (empty) ledger was removed or changed: %v", err)
	}
}

// Of goroutines locking one file at once through its names, exactly one
// gets the lock (flock is per open file, so they exclude each other as
// processes do).
func TestLockOneOfMany(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform")
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	names := []string{a, filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "c.jsonl")}
	for round := range 20 {
		os.Remove(names[1])
		os.Remove(names[2])
		os.Remove(a)
		if err := os.WriteFile(a, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(a, names[1]); err != nil {
			t.Fatal(err)
		}
		if err := os.Link(a, names[2]); err != nil {
			t.Fatal(err)
		}
		var (
			wg    sync.WaitGroup
			mu    sync.Mutex
			held  []*Lock
			start = make(chan struct{})
		)
		for k := range 12 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				l, err := TryLock(names[k%len(names)], "")
				if err == nil {
					mu.Lock()
					held = append(held, l)
					mu.Unlock()
				} else if !errors.Is(err, ErrLocked) {
					t.Error(err)
				}
			}()
		}
		close(start)
		wg.Wait()
		if len(held) != 1 {
			t.Fatalf("round %d: %d of 12 concurrent locks of one file succeeded, want 1", round, len(held))
		}
		held[0].Unlock()
	}
}

// A file TryLock creates to lock it is removed by Unlock if nothing was
// written to it; TryLockFile locks only an existing file and writes no
// record.
func TestLockCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "new", "x.jsonl")
	l, err := TryLock(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Unlock left the file it created empty: %v", err)
	}
	l, err = TryLock(p, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	if b, err := os.ReadFile(p); err != nil || string(b) != "{}\n" {
		t.Errorf("Unlock removed or changed a written file: %q %v", b, err)
	}

	missing := filepath.Join(dir, "prereg.yaml")
	if _, err := TryLockFile(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("TryLockFile of a missing file: %v, want not-exist", err)
	}
	if _, err := os.Stat(missing); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("TryLockFile created the file")
	}
	if err := os.WriteFile(missing, []byte("hypotheses: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err = TryLockFile(missing)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if _, err := os.Stat(LockPath(missing)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("TryLockFile wrote a holder record at %s", LockPath(missing))
	}
	if _, err := TryLockFile(missing); !errors.Is(err, ErrLocked) {
		t.Errorf("second TryLockFile: %v, want ErrLocked", err)
	}
}

// A FIFO at the path does not hang the lock (it is opened without
// waiting for a writer).
func TestLockFIFONoHang(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform")
	}
	p := filepath.Join(t.TempDir(), "fifo.jsonl")
	if err := exec.Command("mkfifo", p).Run(); err != nil {
		t.Skip("mkfifo:", err)
	}
	done := make(chan error, 1)
	go func() {
		l, err := TryLock(p, "")
		if err == nil {
			l.Unlock()
		}
		done <- err
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("TryLock of a FIFO hung")
	}
}

const lockChildEnv = "LIMBO_OUTFILE_LOCK_CHILD"

// TestLockChild is the child process of TestLockReleasedWhenKilled: it
// takes the lock named in the environment, says so, and waits to be
// killed.
func TestLockChild(t *testing.T) {
	p := os.Getenv(lockChildEnv)
	if p == "" {
		t.Skip("child process of TestLockReleasedWhenKilled")
	}
	l, err := TryLock(p, fmt.Sprintf("child pid %d", os.Getpid()))
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(3)
	}
	fmt.Println("locked")
	time.Sleep(time.Minute)
	l.Unlock()
	os.Exit(4)
}

// A holder killed with SIGKILL runs no Unlock; the kernel releases its
// flock, so the next run takes the lock at once (the stale record is
// overwritten).
func TestLockReleasedWhenKilled(t *testing.T) {
	if !canLock {
		t.Skip("no flock on this platform")
	}
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(a, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sym := filepath.Join(dir, "b.jsonl")
	if err := os.Symlink(a, sym); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockChild$")
	cmd.Env = append(os.Environ(), lockChildEnv+"="+a)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || line != "locked\n" {
		t.Fatalf("child: %q, %v", line, err)
	}
	_, err = TryLock(sym, "")
	var le *LockedError
	if !errors.As(err, &le) || le.Holder != fmt.Sprintf("child pid %d", cmd.Process.Pid) {
		t.Fatalf("lock held by a live child: %v, want a LockedError naming the child", err)
	}
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	l, err := TryLock(sym, "after the kill")
	if err != nil {
		t.Fatalf("lock after the holder was killed: %v", err)
	}
	defer l.Unlock()
	if got := readRecord(LockPath(a)); got != "after the kill" {
		t.Errorf("holder record %q, want the new holder's", got)
	}
}
