package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// UpstreamSpec says how to reach the upstream server.
type UpstreamSpec struct {
	// Command is the argv of a server spoken to over stdio (its stdin and
	// stdout); empty with URL.
	Command []string
	// URL is a streamable-HTTP endpoint.
	URL string
	// Transport, if set, is the connection itself (an in-process server,
	// for embedding and tests).
	Transport sdk.Transport
	// Env is added to the child's environment (NAME=value).
	Env []string
	// Stderr receives the child's standard error (nil: discarded).
	Stderr io.Writer
	// StartTimeout bounds the start: the child's initialize answer (or
	// the HTTP server's). Zero: 30 s.
	StartTimeout time.Duration
	// Version is the proxy's version, sent as its client version.
	Version string
}

// Upstream is a connected upstream server: one MCP client session that
// every downstream session shares (the upstream's state is shared anyway).
type Upstream struct {
	session   *sdk.ClientSession
	cmd       *exec.Cmd
	info      *sdk.InitializeResult
	Tools     []*sdk.Tool
	Prompts   []*sdk.Prompt
	Resources []*sdk.Resource
	Templates []*sdk.ResourceTemplate

	mu     sync.Mutex
	err    error         // why the connection ended, once it has
	done   chan struct{} // closed when it ends
	closed bool          // Close was called

	// A child's end: exited is closed once it has been waited for, and
	// state is then its exit status.
	exited chan struct{}
	state  *os.ProcessState
	stdin  io.Closer

	rec *Recorder // records every answer (--record)
	rep *replay   // answers from a recording instead (--replay)

	// link is the fast path to an upstream over a byte stream (a command,
	// or an IOTransport): tool calls as JSON text, past the SDK's client.
	link *rawLink

	client *sdk.Client
	roots  rootSet // offered to the upstream (on mu)
	// ev receives what the upstream sends on its own (passthrough.go);
	// until the proxy sets it, notifications are dropped and requests
	// refused.
	ev atomic.Pointer[events]
	// progress routes the upstream's progress notifications, by the
	// proxy's token, to the agent that asked (passthrough.go).
	progress  sync.Map
	progressN atomic.Uint64
}

// UpstreamError is a failure of the upstream server itself (it exited, did
// not start, or does not speak MCP): the command's exit status 1.
type UpstreamError struct{ Err error }

func (e *UpstreamError) Error() string { return "upstream: " + e.Err.Error() }
func (e *UpstreamError) Unwrap() error { return e.Err }

// DefaultStartTimeout bounds an upstream's start.
const DefaultStartTimeout = 30 * time.Second

// protocolVersion is what the proxy asks of the upstream: the newest
// version with an initialize handshake, which every server of the 2025
// protocol revisions answers (a newer client would probe server/discover
// first).
const protocolVersion = "2025-06-18"

// Connect starts (or reaches) the upstream, initializes a session and
// lists its tools, prompts, resources and resource templates. Any failure
// is an *UpstreamError naming what went wrong in one line.
func Connect(ctx context.Context, spec UpstreamSpec) (*Upstream, error) {
	timeout := spec.StartTimeout
	if timeout <= 0 {
		timeout = DefaultStartTimeout
	}
	u := &Upstream{done: make(chan struct{})}
	var t sdk.Transport
	what := spec.URL
	switch {
	case len(spec.Command) > 0:
		what = strings.Join(spec.Command, " ")
		var err error
		if t, err = u.start(spec); err != nil {
			return nil, &UpstreamError{fmt.Errorf("%s: %v", what, err)}
		}
	case spec.Transport != nil:
		t, what = spec.Transport, "the in-process server"
		if st, ok := t.(*sdk.IOTransport); ok {
			u.link = newRawLink(st.Reader, st.Writer)
			u.link.progress = u.routeRawProgress
			t = &sdk.IOTransport{Reader: u.link, Writer: u.link.w, MaxLineLength: st.MaxLineLength}
		}
	case spec.URL != "":
		t = &sdk.StreamableClientTransport{Endpoint: spec.URL, HTTPClient: &http.Client{}, DisableStandaloneSSE: true, MaxRetries: -1}
	default:
		return nil, &UpstreamError{errors.New("no command and no URL")}
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "limbo-proxy", Version: spec.Version}, u.clientOptions())
	u.client = client
	sctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cs, err := connect(sctx, client, t)
	if err != nil {
		timedOut := sctx.Err() != nil && ctx.Err() == nil
		exited := u.hasExited(100 * time.Millisecond)
		u.kill()
		closed := errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE)
		switch {
		case exited && (closed || timedOut):
			return nil, &UpstreamError{fmt.Errorf("%s: exited (%v) before answering initialize", what, u.state)}
		case timedOut:
			return nil, &UpstreamError{fmt.Errorf("%s: no answer to initialize within %v", what, timeout)}
		}
		return nil, &UpstreamError{fmt.Errorf("%s: not an MCP server (initialize failed: %v)", what, oneLine(err))}
	}
	u.session, u.info = cs, cs.InitializeResult()
	go func() {
		reason := u.endReason(cs.Wait())
		u.mu.Lock()
		if !u.closed {
			u.err = reason
		}
		u.mu.Unlock()
		close(u.done)
	}()
	if err := u.list(sctx); err != nil {
		u.Close()
		if sctx.Err() != nil && ctx.Err() == nil {
			return nil, &UpstreamError{fmt.Errorf("%s: no answer to its lists within %v", what, timeout)}
		}
		return nil, &UpstreamError{fmt.Errorf("%s: %v", what, oneLine(err))}
	}
	return u, nil
}

// start starts the child with its stdin and stdout on pipes of its own
// (so that its last answer is read even when it exits at once) in its own
// process group (so that a terminal's interrupt reaches the proxy, which
// then closes the child properly), and waits for it in the background.
func (u *Upstream) start(spec UpstreamSpec) (sdk.Transport, error) {
	cmd := exec.Command(spec.Command[0], spec.Command[1:]...)
	cmd.Stderr = spec.Stderr
	if len(spec.Env) > 0 {
		cmd.Env = append(os.Environ(), spec.Env...)
	}
	ownProcessGroup(cmd)
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd.Stdin, cmd.Stdout = inR, outW
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	u.cmd, u.stdin, u.exited = cmd, inW, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		u.mu.Lock()
		u.state = cmd.ProcessState
		u.mu.Unlock()
		close(u.exited)
	}()
	u.link = newRawLink(outR, inW)
	u.link.progress = u.routeRawProgress
	return &sdk.IOTransport{Reader: u.link, Writer: u.link.w}, nil
}

// hasExited reports whether the child has exited, waiting up to d for it.
func (u *Upstream) hasExited(d time.Duration) bool {
	if u.exited == nil {
		return false
	}
	select {
	case <-u.exited:
		return true
	case <-time.After(d):
		return false
	}
}

// connect runs Connect in a goroutine, so that a server that never
// answers is left behind at the deadline even if the transport blocks.
func connect(ctx context.Context, c *sdk.Client, t sdk.Transport) (*sdk.ClientSession, error) {
	type res struct {
		cs  *sdk.ClientSession
		err error
	}
	ch := make(chan res, 1)
	go func() {
		cs, err := c.Connect(ctx, t, &sdk.ClientSessionOptions{ProtocolVersion: protocolVersion})
		ch <- res{cs, err}
	}()
	select {
	case r := <-ch:
		return r.cs, r.err
	case <-ctx.Done():
		go func() {
			if r := <-ch; r.cs != nil {
				r.cs.Close()
			}
		}()
		return nil, ctx.Err()
	}
}

// list reads what the upstream offers, every page of it.
func (u *Upstream) list(ctx context.Context) error {
	caps := u.info.Capabilities
	if caps == nil {
		caps = &sdk.ServerCapabilities{}
	}
	var err error
	if caps.Tools != nil {
		if u.Tools, err = u.listTools(ctx); err != nil {
			return err
		}
	}
	if caps.Prompts != nil {
		if u.Prompts, err = u.listPrompts(ctx); err != nil {
			return err
		}
	}
	if caps.Resources != nil {
		if u.Resources, u.Templates, err = u.listResources(ctx); err != nil {
			return err
		}
	}
	return nil
}

// listTools reads the upstream's tools, every page.
func (u *Upstream) listTools(ctx context.Context) ([]*sdk.Tool, error) {
	var out []*sdk.Tool
	for t, err := range u.session.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("tools/list: %v", err)
		}
		out = append(out, t)
	}
	return out, nil
}

// listPrompts reads the upstream's prompts, every page.
func (u *Upstream) listPrompts(ctx context.Context) ([]*sdk.Prompt, error) {
	var out []*sdk.Prompt
	for p, err := range u.session.Prompts(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("prompts/list: %v", err)
		}
		out = append(out, p)
	}
	return out, nil
}

// listResources reads the upstream's resources and resource templates,
// every page.
func (u *Upstream) listResources(ctx context.Context) ([]*sdk.Resource, []*sdk.ResourceTemplate, error) {
	var rs []*sdk.Resource
	for r, err := range u.session.Resources(ctx, nil) {
		if err != nil {
			return nil, nil, fmt.Errorf("resources/list: %v", err)
		}
		rs = append(rs, r)
	}
	var ts []*sdk.ResourceTemplate
	for t, err := range u.session.ResourceTemplates(ctx, nil) {
		if err != nil {
			// Servers with resources but no templates may not know the
			// method: no templates.
			break
		}
		ts = append(ts, t)
	}
	return rs, ts, nil
}

// Info is the upstream's initialize result.
func (u *Upstream) Info() *sdk.InitializeResult { return u.info }

// Name is the upstream's implementation name ("" if it gave none).
func (u *Upstream) Name() string {
	if u.info == nil || u.info.ServerInfo == nil {
		return ""
	}
	return u.info.ServerInfo.Name
}

// Done is closed when the connection to the upstream ends.
func (u *Upstream) Done() <-chan struct{} { return u.done }

// Err is why the upstream's connection ended unasked (nil while it is
// up, or after Close).
func (u *Upstream) Err() error {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.err
}

func (u *Upstream) endReason(err error) error {
	// Give a child a moment to be reaped, so the message has its status.
	if u.hasExited(500 * time.Millisecond) {
		u.mu.Lock()
		defer u.mu.Unlock()
		return &UpstreamError{fmt.Errorf("%s exited (%v)", u.cmd.Path, u.state)}
	}
	if err == nil || errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, io.EOF) {
		err = errors.New("the connection closed")
	}
	return &UpstreamError{err}
}

// terminateWait is how long a child has to exit after its stdin is
// closed, and then after SIGTERM.
const terminateWait = 2 * time.Second

// Close ends the session. A child, as the MCP specification asks, gets
// its stdin closed, then SIGTERM, then SIGKILL, each after terminateWait;
// what is left of its process group is killed.
func (u *Upstream) Close() error {
	u.mu.Lock()
	u.closed = true
	u.mu.Unlock()
	var err error
	if u.stdin != nil {
		u.stdin.Close()
		if !u.hasExited(terminateWait) {
			signalProcessGroup(u.cmd, false)
			if !u.hasExited(terminateWait) {
				u.kill()
			}
		}
	}
	if u.session != nil {
		err = u.session.Close()
	}
	u.kill()
	return err
}

// kill kills a child's process group and waits for the child.
func (u *Upstream) kill() {
	if u.cmd == nil {
		return
	}
	signalProcessGroup(u.cmd, true)
	<-u.exited
}

// CallTool forwards one tool call with its arguments as the agent sent
// them (JSON text).
func (u *Upstream) CallTool(ctx context.Context, name string, args json.RawMessage) (*sdk.CallToolResult, error) {
	if u.rep != nil {
		return u.rep.callTool(ctx, name, args)
	}
	return u.callTool(ctx, name, args, "")
}

// callTool forwards a call through the SDK's client, with a progress
// token of the proxy's ("": none).
func (u *Upstream) callTool(ctx context.Context, name string, args json.RawMessage, progress string) (*sdk.CallToolResult, error) {
	var a any = args
	if len(args) == 0 {
		a = map[string]any{}
	}
	params := &sdk.CallToolParams{Name: name, Arguments: a}
	if progress != "" {
		params.Meta = sdk.Meta{"progressToken": progress}
	}
	res, err := u.session.CallTool(ctx, params)
	if u.rec != nil {
		u.rec.call(name, args, res, err)
	}
	return res, err
}

// upReply is the upstream's answer to a forwarded call: the result as
// JSON text when it came by the fast path, or decoded (the SDK's client, a
// replay), or the error.
type upReply struct {
	raw   json.RawMessage
	res   *sdk.CallToolResult
	isErr bool  // the result's isError
	err   error // a JSON-RPC error (*jsonrpc.Error) or a failure
}

// ok reports whether the upstream answered with a result that is not an
// error: the call was executed.
func (r upReply) ok() bool { return r.err == nil && (r.raw != nil || r.res != nil) && !r.isErr }

// call forwards one tool call, with a progress token of the proxy's
// ("": none): by the fast path when there is one and nothing needs the
// typed result (a recording, a replay), else through the SDK's client.
func (u *Upstream) call(ctx context.Context, name string, args json.RawMessage, progress string) upReply {
	if u.link == nil || u.rec != nil || u.rep != nil {
		var res *sdk.CallToolResult
		var err error
		if u.rep != nil {
			res, err = u.rep.callTool(ctx, name, args)
		} else {
			res, err = u.callTool(ctx, name, args, progress)
		}
		r := upReply{res: res, err: err}
		if err == nil && res != nil {
			r.isErr = res.IsError
		}
		return r
	}
	rr := u.link.call(ctx, toolParams(name, args, progress))
	switch {
	case rr.rpcErr != nil:
		return upReply{err: rr.rpcErr}
	case rr.err != nil:
		return upReply{err: rr.err}
	}
	return upReply{raw: rr.result, isErr: resultIsError(rr.result)}
}

// resultIsError reads a result's isError.
func resultIsError(result []byte) bool { return string(member(result, "isError")) == "true" }

// oneLine keeps the first line of an error's text.
func oneLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
