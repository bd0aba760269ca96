package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/internal/localhttp"
	"github.com/limbo-toolkit/limbo/ledger"
)

// HTTPOptions configure the streamable HTTP server.
type HTTPOptions struct {
	// IdleTimeout closes a session that sent nothing for this long (its
	// episode ends as a disconnect). Zero: 10 minutes.
	IdleTimeout time.Duration
	// BodyTimeout bounds the time to receive one request body. Zero: 30 s.
	BodyTimeout time.Duration
	// MaxMessageBytes bounds one request body. Zero: 1 MiB.
	MaxMessageBytes int
	// AllowedOrigins are browser origins accepted besides loopback ones
	// (localhttp.Guard).
	AllowedOrigins []string
	// FinishGrace is how long the server keeps answering after the plan's
	// last episode is recorded. Zero: 3 s.
	FinishGrace time.Duration
}

func (o HTTPOptions) withDefaults() HTTPOptions {
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = 10 * time.Minute
	}
	if o.BodyTimeout <= 0 {
		o.BodyTimeout = 30 * time.Second
	}
	if o.MaxMessageBytes <= 0 {
		o.MaxMessageBytes = 1 << 20
	}
	if o.FinishGrace <= 0 {
		o.FinishGrace = 3 * time.Second
	}
	return o
}

// transportFault is a transport fault the HTTP layer applies to the
// answer of one request: the connection cut (stream_drop), or the session
// closed and the request answered 404 (session_lost).
type transportFault struct {
	mode string
	ss   *sdk.ServerSession
}

// tokenHeader carries the proxy's number of a tools/call request from the
// HTTP layer to the tool handler (RequestExtra.Header), so the handler can
// ask for a transport fault on that request's answer. A client's own
// value is overwritten.
const tokenHeader = "X-Limbo-Proxy-Request"

// applyTransport asks the HTTP layer to apply the call's transport fault
// to its answer.
func (p *Proxy) applyTransport(c *Call, _ *session) {
	tok := c.from.header.Get(tokenHeader)
	if tok == "" {
		return
	}
	p.mu.Lock()
	p.transport[tok] = transportFault{mode: c.fault, ss: c.from.ss}
	p.mu.Unlock()
}

const sessionHeader = "Mcp-Session-Id"

// Handler is the streamable HTTP handler: each session (initialize
// without a session header) takes an episode; the tools/call answers pass
// through the transport faults. JSON answers, not SSE: every call is one
// request and one response, so cutting a response loses exactly it.
func (p *Proxy) Handler(o HTTPOptions) http.Handler {
	o = o.withDefaults()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return p.srv }, &sdk.StreamableHTTPOptions{
		SessionTimeout:      o.IdleTimeout,
		JSONResponse:        true,
		MaxRequestBodyBytes: int64(o.MaxMessageBytes),
	})
	var n atomic.Uint64
	return localhttp.Guard(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		req.Header.Del(tokenHeader)
		if req.Method != http.MethodPost {
			h.ServeHTTP(w, req)
			return
		}
		body, ok := localhttp.ReadBody(w, req, int64(o.MaxMessageBytes), o.BodyTimeout)
		if !ok {
			return
		}
		var head struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &head)
		if req.Header.Get(sessionHeader) == "" && head.Method == "initialize" && !p.canTake() {
			localhttp.WriteRPCError(w, http.StatusServiceUnavailable, head.ID, "limbo proxy: every episode of the plan is served; no new session")
			return
		}
		if head.Method != "tools/call" || req.Header.Get(sessionHeader) == "" {
			h.ServeHTTP(w, req)
			return
		}
		tok := strconv.FormatUint(n.Add(1), 10)
		req.Header.Set(tokenHeader, tok)
		buf := &bufferedResponse{header: http.Header{}}
		h.ServeHTTP(buf, req)
		p.mu.Lock()
		tf, faulted := p.transport[tok]
		delete(p.transport, tok)
		p.mu.Unlock()
		switch {
		case !faulted:
			buf.copyTo(w)
		case tf.mode == ledger.FaultStreamDrop:
			// The connection is cut before the answer: net/http closes it
			// without a response.
			panic(http.ErrAbortHandler)
		default: // session_lost
			if tf.ss != nil {
				tf.ss.Close()
			}
			http.Error(w, "session not found", http.StatusNotFound)
		}
	}), o.AllowedOrigins)
}

// canTake reports whether a new session would get an episode.
func (p *Proxy) canTake() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.opts.Plan == nil || len(p.queue) > 0 || p.lost != nil
}

// bufferedResponse holds a response until the transport faults decide
// what becomes of it.
type bufferedResponse struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (b *bufferedResponse) Header() http.Header { return b.header }

func (b *bufferedResponse) WriteHeader(status int) {
	if b.status == 0 {
		b.status = status
	}
}

func (b *bufferedResponse) Write(p []byte) (int, error) {
	if b.status == 0 {
		b.status = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *bufferedResponse) copyTo(w http.ResponseWriter) {
	for k, v := range b.header {
		w.Header()[k] = v
	}
	if b.status == 0 {
		b.status = http.StatusOK
	}
	w.WriteHeader(b.status)
	_, _ = w.Write(b.body.Bytes())
}

// ServeHTTP listens on addr (loopback unless allowRemote) and serves until
// ctx is done, the plan's episodes are all recorded, or the upstream
// fails. ready, if set, gets the bound address.
func (p *Proxy) ServeHTTP(ctx context.Context, addr string, allowRemote bool, o HTTPOptions, ready func(net.Addr)) error {
	o = o.withDefaults()
	var upErr error
	err := localhttp.Serve(ctx, addr, allowRemote, p.Handler(o), ready, func(served <-chan error) error {
		select {
		case <-ctx.Done():
		case <-p.Done():
			localhttp.Linger(ctx, o.FinishGrace, p.liveSessions)
		case <-p.up.Done():
			upErr = p.up.Err()
		case err := <-served:
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	// Sessions still open end as disconnects and are recorded.
	p.endAll(endDisconnect)
	p.waitEnded()
	if upErr != nil {
		return upErr
	}
	return p.Err()
}

// liveSessions is the number of sessions bound to an episode.
func (p *Proxy) liveSessions() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.sessions)
}
