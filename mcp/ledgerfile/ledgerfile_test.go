package ledgerfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// TestLedgerResume: a torn last line is removed, ids are read back, a
// recorded episode is refused, and a bad line names its line.
func TestLedgerResume(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "l.jsonl")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if err := l.AppendLine(id, []byte(`{"episode_id":"`+id+`"}`)); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.AppendLine("a", []byte(`{"episode_id":"a"}`)); !errors.Is(err, ErrRecorded) {
		t.Errorf("second append of a: %v, want ErrRecorded", err)
	}
	l.Close()
	// A crash mid-write leaves a line without its newline.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"episode_id":"c","task_su`)
	f.Close()
	var warned string
	l, err = Open(path, func(s string) { warned = s })
	if err != nil {
		t.Fatal(err)
	}
	if !l.Has("a") || !l.Has("b") || l.Has("c") || l.Len() != 2 {
		t.Errorf("after reopening: a %v b %v c %v len %d", l.Has("a"), l.Has("b"), l.Has("c"), l.Len())
	}
	if !strings.Contains(warned, "torn") {
		t.Errorf("no warning about the torn line (%q)", warned)
	}
	if err := l.AppendLine("c", []byte(`{"episode_id":"c"}`)); err != nil {
		t.Fatal(err)
	}
	l.Close()
	data, _ := os.ReadFile(path)
	if string(data) != "{\"episode_id\":\"a\"}\n{\"episode_id\":\"b\"}\n{\"episode_id\":\"c\"}\n" {
		t.Errorf("ledger after repair:\n%s", data)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte("{\"episode_id\":\"a\"}\nnot json\n"), 0o644)
	if _, err := Open(bad, nil); err == nil || !strings.Contains(err.Error(), "bad.jsonl:2:") {
		t.Errorf("bad line: %v, want an error at bad.jsonl:2", err)
	}
}

// TestLedgerConcurrentAppends: lines from many goroutines stay whole.
func TestLedgerConcurrentAppends(t *testing.T) {
	path := filepath.Join(t.TempDir(), "l.jsonl")
	l, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	const n = 64
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := strings.Repeat("x", i+1)
			if err := l.AppendLine(id, []byte(`{"episode_id":"`+id+`","pad":"`+strings.Repeat("p", 5000)+`"}`)); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	// Group commit: every append returned after an fsync that covered its
	// line, with at most one fsync per append.
	if l.synced != l.written || l.written != n || l.syncs < 1 || l.syncs > n {
		t.Errorf("synced %d of %d lines with %d fsyncs, want all %d with 1..%d", l.synced, l.written, l.syncs, n, n)
	}
	t.Logf("%d appends, %d fsyncs", n, l.syncs)
	l.Close()
	l, err = Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.Len() != n {
		t.Errorf("%d episodes after concurrent appends, want %d", l.Len(), n)
	}
}
