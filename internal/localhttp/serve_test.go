package localhttp

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServe: a remote address is refused unless allowed; the handler
// answers at the address ready gets until wait returns, and then the
// server is shut down; an error of wait is Serve's.
func TestServe(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })
	never := func(<-chan error) error { t.Fatal("served on a remote address"); return nil }
	if err := Serve(context.Background(), "0.0.0.0:0", false, h, nil, never); err == nil || !strings.HasPrefix(err.Error(), "address ") {
		t.Errorf("remote address: %v", err)
	}
	var addr string
	err := Serve(context.Background(), "127.0.0.1:0", false, h, func(a net.Addr) { addr = a.String() }, func(<-chan error) error {
		res, err := http.Get("http://" + addr + "/")
		if err != nil {
			return err
		}
		defer res.Body.Close()
		if body, _ := io.ReadAll(res.Body); string(body) != "hello" {
			t.Errorf("body %q", body)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get("http://" + addr + "/"); err == nil {
		t.Error("the server answers after Serve returned")
	}
	stop := errors.New("stop")
	if err := Serve(context.Background(), "127.0.0.1:0", false, h, nil, func(<-chan error) error { return stop }); err != stop {
		t.Errorf("wait's error: %v", err)
	}
}

// TestLinger: Linger returns once no session is live, or at its grace.
func TestLinger(t *testing.T) {
	n := 3
	start := time.Now()
	Linger(context.Background(), 10*time.Second, func() int { n--; return n })
	if n != 0 || time.Since(start) > 5*time.Second {
		t.Errorf("live %d after %v", n, time.Since(start))
	}
	start = time.Now()
	Linger(context.Background(), 50*time.Millisecond, func() int { return 1 })
	if d := time.Since(start); d < 50*time.Millisecond || d > 5*time.Second {
		t.Errorf("grace of 50ms took %v", d)
	}
}
