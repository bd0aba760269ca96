package view

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"
)

// Handler serves the site's files over HTTP, the same bytes Write writes.
func (s *Site) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		name := strings.TrimPrefix(r.URL.Path, "/")
		if name == "" {
			name = "index.html"
		}
		b, ok := s.files[name]
		if !ok || name == markerFile {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", contentType(name))
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.Header().Set("X-Content-Type-Options", "nosniff")
		if r.Method == http.MethodGet {
			w.Write(b)
		}
	})
}

// ServeAddr checks an address for --serve: a missing host means the
// loopback interface, and a host that is not a loopback address needs
// allowRemote (the pages show every argument the agents sent).
func ServeAddr(addr string, allowRemote bool) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--serve %q: want HOST:PORT, e.g. 127.0.0.1:8080", addr)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if !allowRemote {
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return "", fmt.Errorf("--serve %q: %s is not a loopback address; add --allow-remote to serve beyond this machine", addr, host)
		}
	}
	return net.JoinHostPort(host, port), nil
}

// Serve serves the site on ln until ctx is done, then shuts the server
// down, giving open requests five seconds. A closed server is not an
// error.
func (s *Site) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	stopped := make(chan struct{})
	defer close(stopped)
	go func() {
		select {
		case <-ctx.Done():
		case <-stopped: // Serve failed on its own: nothing to shut down
			return
		}
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
