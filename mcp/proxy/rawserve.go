package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fast path from the agent, over stdio. The SDK's server, like its
// client, decodes each message several times with a 32 KiB buffer each,
// and a tool's result is typed content it encodes again. A rawServer sits
// between the agent's byte stream and the SDK's server: once the session
// is initialized, a tools/call of one of the upstream's tools is taken out
// of the stream and answered by the proxy itself (the same session.run the
// SDK's tool handler calls), the upstream's result written back as the
// JSON text it came as; every other message (initialize, the lists,
// finish, notifications) goes to the SDK as it came, in order.
//
// What the SDK's server does with a tools/call that the fast path does
// not: it looks the tool up (the fast path takes only tools it knows and
// leaves the rest to the SDK, which refuses an unknown one) and answers;
// it does not validate arguments against the input schema for tools
// added as the proxy adds them, so neither does the fast path.

// rawServer is the agent's stream shared by the SDK's server and the
// proxy's fast path. Read is called by the SDK's reading goroutine only.
type rawServer struct {
	p   *Proxy
	ctx context.Context
	rd  *bufio.Reader
	src io.Closer
	w   io.Writer // the transport's writer: whole messages, serialized

	ss    atomic.Pointer[sdk.ServerSession]
	ready atomic.Bool // notifications/initialized has gone to the SDK

	pend []byte // owed to the SDK
	long []byte // a line longer than the reader's buffer
	err  error

	calls sync.WaitGroup // fast calls being answered
}

func newRawServer(ctx context.Context, p *Proxy, src io.ReadCloser, w io.Writer) *rawServer {
	return &rawServer{p: p, ctx: ctx, rd: bufio.NewReaderSize(src, 64<<10), src: src, w: w}
}

// Read gives the SDK the stream less the calls the fast path answers.
func (r *rawServer) Read(p []byte) (int, error) {
	for len(r.pend) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		line, err := r.readLine()
		r.err = err
		if len(line) > 0 && !r.take(line) {
			r.pend = line
		}
	}
	n := copy(p, r.pend)
	r.pend = r.pend[n:]
	return n, nil
}

func (r *rawServer) Close() error { return r.src.Close() }

// readLine reads up to and with the next newline (or the end). The line
// is valid until the next call.
func (r *rawServer) readLine() ([]byte, error) {
	r.long = r.long[:0]
	for {
		chunk, err := r.rd.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			if len(r.long) == 0 {
				return chunk, err
			}
			return append(r.long, chunk...), err
		}
		r.long = append(r.long, chunk...)
	}
}

// take answers a tools/call line on the fast path, and reports whether it
// did.
func (r *rawServer) take(line []byte) bool {
	if !r.ready.Load() {
		if bytes.Contains(line, []byte(`"notifications/initialized"`)) && json.Valid(line) && methodIs(member(line, "method"), "notifications/initialized") {
			r.ready.Store(true)
		}
		return false
	}
	ss := r.ss.Load()
	if ss == nil || !bytes.Contains(line, []byte(`"tools/call"`)) || !json.Valid(line) {
		return false
	}
	var id, method, params []byte
	members(line, func(k, v []byte) bool {
		switch {
		case keyIs(k, "id"):
			id = v
		case keyIs(k, "method"):
			method = v
		case keyIs(k, "params"):
			params = v
		}
		return true
	})
	if isNull(id) || !methodIs(method, "tools/call") {
		return false
	}
	var name string
	if v := member(params, "name"); len(v) == 0 || v[0] != '"' || json.Unmarshal(v, &name) != nil {
		return false
	}
	structured, known := r.p.fastTool(name)
	s := r.p.sessionOf(ss)
	if !known || s == nil {
		return false // the SDK answers: an unknown tool, finish, a session without an episode
	}
	// The line's buffer is reused: the call keeps copies.
	id = bytes.Clone(id)
	args := bytes.Clone(member(params, "arguments"))
	var progress any
	if tok := member(member(params, "_meta"), "progressToken"); !isNull(tok) {
		_ = json.Unmarshal(tok, &progress)
	}
	r.calls.Add(1)
	r.p.fastCalls.Add(1)
	go func() {
		defer r.calls.Done()
		a := s.run(r.ctx, name, args, structured, origin{ss: ss, progress: progress})
		_, _ = r.w.Write(response(id, a))
	}()
	return true
}

// methodIs reports whether a message's method member spells m.
func methodIs(v []byte, m string) bool {
	if len(v) == 0 || v[0] != '"' {
		return false
	}
	if len(v) == len(m)+2 && string(v[1:len(v)-1]) == m {
		return true
	}
	var s string
	return bytes.IndexByte(v, '\\') >= 0 && json.Unmarshal(v, &s) == nil && s == m
}

// response is the JSON-RPC response line to the request id: the answer's
// result, or its error, as the SDK's server writes them.
func response(id []byte, a Answer) []byte {
	var body []byte
	var err error
	if a.Err == nil {
		body, err = a.resultJSON()
		if err == nil && bytes.ContainsAny(body, "\r\n") {
			var c bytes.Buffer
			if err = json.Compact(&c, body); err == nil {
				body = c.Bytes()
			}
		}
		if err != nil {
			a.Err = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the result does not encode: " + err.Error()}
		}
	}
	msg := make([]byte, 0, len(body)+len(id)+40)
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = append(msg, id...)
	if a.Err != nil {
		var we *jsonrpc.Error
		if !errors.As(a.Err, &we) {
			we = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: a.Err.Error()}
		}
		b, _ := json.Marshal(we)
		msg = append(append(msg, `,"error":`...), b...)
	} else {
		msg = append(append(msg, `,"result":`...), body...)
	}
	return append(msg, "}\n"...)
}
