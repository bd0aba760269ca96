// Package localhttp holds the rules of the toolkit's local HTTP servers
// (serve's streamable MCP endpoint and view's site): which addresses they
// may listen on, and which requests they answer.
//
// Both listen on the loopback interface by default, which keeps other
// machines out but not the web pages a local browser has open. Against DNS
// rebinding (a foreign name that resolves to 127.0.0.1, so that a page of
// that name reads this server as its own origin), a server on a loopback
// address answers only requests whose Host header names a loopback host.
// Against a page of another site calling the server from the browser, a
// request that carries an Origin header must come from a loopback origin
// or one the user allowed. SameOrigin further tells a request of the
// server's own pages from a cross-site subresource load, such as a
// <script src> of another site, which carries no Origin header.
package localhttp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
)

// IsLoopbackHost reports whether host (no port; an IPv6 address with or
// without brackets) names this machine's loopback interface: "localhost"
// or a loopback IP address.
func IsLoopbackHost(host string) bool {
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// IsLoopback reports whether addr, a HOST:PORT or a bare host (as in a
// Host header without a port), names a loopback host.
func IsLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = addr
	}
	return IsLoopbackHost(host)
}

// AddrError is a listen address that CheckAddr refuses; Reason says why,
// in words a command can put after the flag's name.
type AddrError struct {
	Addr   string
	Reason string
	// NotLoopback: the address is well formed, but its host is not a
	// loopback one (a command may suggest how to allow it).
	NotLoopback bool
}

func (e *AddrError) Error() string { return fmt.Sprintf("%q: %s", e.Addr, e.Reason) }

// CheckAddr checks a listen address: HOST:PORT with a port from 0 to
// 65535 (0: any free port), and, unless allowRemote, a loopback host (an
// empty host listens on every interface, so it is not one). The error is
// an *AddrError saying which part is wrong.
func CheckAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		reason := "want HOST:PORT, e.g. 127.0.0.1:8080"
		var ae *net.AddrError
		if errors.As(err, &ae) && ae.Err == "missing port in address" {
			reason = "the port is missing: want HOST:PORT, e.g. 127.0.0.1:8080"
		}
		return &AddrError{Addr: addr, Reason: reason}
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || port == "" || n > 65535 {
		return &AddrError{Addr: addr, Reason: fmt.Sprintf("port %q is not a number from 0 to 65535", port)}
	}
	if !allowRemote && !IsLoopbackHost(host) {
		what := host + " is not a loopback address (127.0.0.1, ::1, localhost)"
		if host == "" {
			what = "an empty host listens on every interface, not a loopback address (127.0.0.1, ::1, localhost)"
		}
		return &AddrError{Addr: addr, Reason: what, NotLoopback: true}
	}
	return nil
}

// CheckListen is CheckAddr in the words of a configuration whose fields
// Addr and AllowRemote hold the address and the permission (serve's, the
// proxy's): "{Addr} <what CheckAddr says>" for a malformed address, and
// "{Addr} ADDR is not a loopback address; pass {AllowRemote} to bind it"
// for a remote one, as fieldtext errors that a command renames to its
// flags.
func CheckListen(addr string, allowRemote bool) error {
	err := CheckAddr(addr, allowRemote)
	var ae *AddrError
	switch {
	case errors.As(err, &ae) && ae.NotLoopback:
		return fieldtext.New("Addr", "{Addr} %s is not a loopback address; pass {AllowRemote} to bind it", addr)
	case err != nil:
		return fieldtext.New("Addr", "{Addr} %w", err)
	}
	return nil
}

// CheckOrigin checks an origin a user allows: what a browser sends in its
// Origin header, scheme://host[:port] with scheme http or https, in lower
// case, with nothing after the host and port (OriginAllowed compares it
// exactly, so anything else would match no request). The error says what
// is wrong, in words a command can put after the flag and the value.
func CheckOrigin(origin string) error {
	switch {
	case origin == "":
		return errors.New("empty; want scheme://host[:port], e.g. https://inspector.example")
	case origin == "*" || strings.Contains(origin, "*"):
		return errors.New("a wildcard matches nothing: list each origin, scheme://host[:port]")
	case !strings.Contains(origin, "://"):
		return errors.New("no scheme: want scheme://host[:port], e.g. https://" + origin)
	}
	u, err := url.Parse(origin)
	switch {
	case err != nil:
		return fmt.Errorf("not an origin (%v): want scheme://host[:port]", err)
	case u.Scheme != "http" && u.Scheme != "https" && !strings.EqualFold(u.Scheme, "http") && !strings.EqualFold(u.Scheme, "https"):
		return fmt.Errorf("scheme %q: want http or https", u.Scheme)
	case u.User != nil:
		return errors.New("a user name has no place in an origin: want scheme://host[:port]")
	case u.Hostname() == "":
		return errors.New("no host: want scheme://host[:port]")
	case u.Port() != "":
		if n, err := strconv.ParseUint(u.Port(), 10, 16); err != nil || n == 0 {
			return fmt.Errorf("port %q is not a number from 1 to 65535", u.Port())
		}
	}
	switch {
	case u.Path != "" || u.RawPath != "":
		return fmt.Errorf("a path (%q) is never part of an origin: want %s://%s", u.Path, u.Scheme, u.Host)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "":
		return fmt.Errorf("a query or fragment is never part of an origin: want %s://%s", u.Scheme, u.Host)
	case origin != strings.ToLower(origin):
		return fmt.Errorf("browsers send origins in lower case: want %s", strings.ToLower(origin))
	}
	return nil
}

// OriginAllowed accepts a loopback origin (a page served from this
// machine) or one listed in allowed (scheme://host[:port], exactly). An
// opaque origin ("null": a sandboxed frame, a file: page) is refused.
func OriginAllowed(origin string, allowed []string) bool {
	if slices.Contains(allowed, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return IsLoopbackHost(u.Hostname())
}

// HostAllowed reports whether r may be answered by its Host header: a
// request that arrived on a loopback address must name a loopback host
// (anything else is DNS rebinding, or a proxy that should not be there);
// on another address (a server started to be reached from elsewhere) any
// Host is answered.
func HostAllowed(r *http.Request) bool {
	local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	if !ok || local == nil || !IsLoopback(local.String()) {
		return true
	}
	return IsLoopback(r.Host)
}

// Guard answers a request only if HostAllowed and, when it carries an
// Origin header, OriginAllowed with allowedOrigins; anything else gets 403
// Forbidden with the reason, and never reaches h.
func Guard(h http.Handler, allowedOrigins []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !HostAllowed(r) {
			http.Error(w, fmt.Sprintf("Forbidden: invalid Host header %q", r.Host), http.StatusForbidden)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !OriginAllowed(o, allowedOrigins) {
			http.Error(w, fmt.Sprintf("Forbidden: origin %q is not allowed", o), http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// SameOrigin reports whether r comes from a page of this server itself or
// from the user (an address typed or a bookmark), and not from a page of
// another origin, such as a <script src> that another site (or another
// server on this machine) includes, which sends no Origin header. Browsers
// say so in Sec-Fetch-Site: "same-origin" and "none" pass, "same-site" and
// "cross-site" do not. Without it (an older browser, curl) a Referer, if
// any, must be of the request's own origin.
func SameOrigin(r *http.Request) bool {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" {
		return site == "same-origin" || site == "none"
	}
	ref := r.Header.Get("Referer")
	if ref == "" {
		return true
	}
	u, err := url.Parse(ref)
	return err == nil && u.Scheme == "http" && strings.EqualFold(u.Host, r.Host) && r.TLS == nil ||
		err == nil && u.Scheme == "https" && strings.EqualFold(u.Host, r.Host) && r.TLS != nil
}

// ReadBody reads a request's body whole: it has timeout to arrive (a
// client that trickles it must not hold a connection, and a goroutine,
// for ever) and at most max bytes. On failure the request is answered
// (413 or 400, the connection closed: the server would otherwise wait for
// the rest of the body) and ok is false. The deadline is lifted before it
// returns the body, so the answer may be streamed; req.Body is replaced
// by the bytes read, for the handler after it.
func ReadBody(w http.ResponseWriter, req *http.Request, max int64, timeout time.Duration) (body []byte, ok bool) {
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(timeout))
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, max))
	if err != nil {
		w.Header().Set("Connection", "close")
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, "request body too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "request body unreadable: "+err.Error(), http.StatusBadRequest)
		}
		return nil, false
	}
	_ = rc.SetReadDeadline(time.Time{})
	req.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

// WriteRPCError answers an HTTP request with status and a JSON-RPC error
// (internal error, -32603) to the request id (null when unknown), for a
// request an MCP server refuses before its SDK sees it.
func WriteRPCError(w http.ResponseWriter, status int, id json.RawMessage, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0",
		"id":      id,
		"error":   map[string]any{"code": -32603, "message": msg},
	})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
