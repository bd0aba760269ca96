package view_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/report/view"
)

func sampleSite(t *testing.T) *view.Site {
	t.Helper()
	s, err := view.Build([]string{filepath.Join("..", "..", "testdata", "ledger", "sample.jsonl")}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// WriteNote writes the site and describes what it wrote.
func TestWriteNote(t *testing.T) {
	s := sampleSite(t)
	dir := filepath.Join(t.TempDir(), "site")
	note, err := s.WriteNote(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "index.html")); err != nil {
		t.Fatal(err)
	}
	m := s.Data.Meta
	want := fmt.Sprintf("wrote %d episodes (%d with timelines) to %s: %d files, ", m.Shown, m.Timeline, dir, len(s.Files()))
	if !strings.HasPrefix(note, want) || !strings.HasSuffix(note, "; open "+dir+"/index.html") {
		t.Errorf("note %q, want it to start %q and name index.html", note, want)
	}
	if _, err := s.WriteNote(filepath.Join(dir, "index.html")); err == nil {
		t.Error("writing a site over a file: no error")
	}
}

// ListenAndServe reports the address it listens on and serves there until
// its context ends; an address it cannot listen on is an error.
func TestListenAndServe(t *testing.T) {
	s := sampleSite(t)
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() { done <- s.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) { addrs <- a }) }()
	a := <-addrs
	res, err := http.Get("http://" + a.String() + "/index.html")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("GET index.html: %s", res.Status)
	}
	if err := s.ListenAndServe(ctx, a.String(), nil); err == nil {
		t.Error("a second listener on the same address: no error")
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ListenAndServe: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ListenAndServe did not return after cancel")
	}
}
