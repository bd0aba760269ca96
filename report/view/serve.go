package view

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/limbo-toolkit/limbo/internal/localhttp"
)

// Handler serves the site's files over HTTP, the same bytes Write writes,
// under the rules of every local server of the toolkit (localhttp.Guard:
// on a loopback address only a loopback Host; no foreign Origin). The
// data files (data/*.js, every argument the agents sent and the ledgers'
// paths) are scripts a page of any site could include with <script src>,
// so they go only to the site's own pages (localhttp.SameOrigin), and
// every answer asks browsers not to hand it to another origin
// (Cross-Origin-Resource-Policy).
func (s *Site) Handler() http.Handler {
	return localhttp.Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
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
		if strings.HasPrefix(name, "data/") && !localhttp.SameOrigin(r) {
			http.Error(w, "Forbidden: the data files go only to this site's own pages", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", contentType(name))
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cross-Origin-Resource-Policy", "same-origin")
		if r.Method == http.MethodGet {
			w.Write(b)
		}
	}), nil)
}

// ServeAddr checks an address for serving the site (localhttp.CheckAddr):
// a missing host means the loopback interface, and a host that is not a
// loopback address needs allowRemote (the pages show every argument the
// agents sent). It returns the address to listen on; the error is a
// *localhttp.AddrError.
func ServeAddr(addr string, allowRemote bool) (string, error) {
	full := addr
	if strings.HasPrefix(addr, ":") {
		full = "127.0.0.1" + addr
	}
	if err := localhttp.CheckAddr(full, allowRemote); err != nil {
		return "", err
	}
	return full, nil
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
