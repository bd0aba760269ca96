package view_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/report/view"
)

// Serve answers on the listener and returns nil once its context ends.
func TestServeUntilDone(t *testing.T) {
	s, err := view.Build([]string{filepath.Join("..", "..", "testdata", "ledger", "sample.jsonl")}, view.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln) }()
	res, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if want, _ := s.File("index.html"); !bytes.Equal(body, want) {
		t.Errorf("index: %d bytes, want %d", len(body), len(want))
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve did not return after cancel")
	}
}
