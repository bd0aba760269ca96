package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDriveLockAcrossNames runs two real drive processes on one ledger
// under two names: while the first holds a.jsonl, a drive into b.jsonl (a
// symlink to it) or c.jsonl (a hard link) stops at once and names the
// holder where it can (before, both ran every episode into one file); once
// the first is killed with SIGKILL, the kernel has released its lock.
func TestDriveLockAcrossNames(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the full binary")
	}
	bin := builtBinary(t)
	dir := t.TempDir()
	a := filepath.Join(dir, "a.jsonl")
	if err := os.WriteFile(a, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b := filepath.Join(dir, "b.jsonl")
	if err := os.Symlink("a.jsonl", b); err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(dir, "c.jsonl")
	if err := os.Link(a, c); err != nil {
		t.Fatal(err)
	}
	drive := func(out string) *exec.Cmd {
		return exec.Command(bin, "drive", "--out", out, "--harness", "sleep 2", "--grace", "100ms", "--server", "/bin/true")
	}
	first := drive(a)
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	defer first.Process.Kill()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if rec, err := os.ReadFile(a + ".lock"); err == nil && bytes.Contains(rec, []byte("pid "+strconv.Itoa(first.Process.Pid))) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first drive never took its lock")
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, tt := range []struct{ out, want string }{
		{b, "held by pid " + strconv.Itoa(first.Process.Pid)},
		{c, "is in use by another process"},
	} {
		var stderr bytes.Buffer
		second := drive(tt.out)
		second.Stderr = &stderr
		err := second.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitFailure || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("drive --out %s while a.jsonl is driven: %v, stderr %q; want exit 1 naming %q", filepath.Base(tt.out), err, stderr.String(), tt.want)
		}
	}
	if err := first.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	first.Wait()
	var stderr bytes.Buffer
	second := exec.Command(bin, "drive", "--out", b, "--harness", "exit 3", "--grace", "100ms", "--server", "/bin/true")
	second.Stderr = &stderr
	second.Run()
	if strings.Contains(stderr.String(), "in use") || !strings.Contains(stderr.String(), "exit status 3") {
		t.Errorf("drive after the holder was killed: stderr %q, want it to run (its harness exits 3)", stderr.String())
	}
}
