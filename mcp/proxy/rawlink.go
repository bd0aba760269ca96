package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fast path to the upstream. The SDK's client decodes every message it
// reads three times over (as a batch, as a message, its method) and a tool
// result once more into typed content, each decode allocating a 32 KiB
// buffer: on a forwarded call that is most of the proxy's CPU. A rawLink
// sits between the upstream's byte stream (stdio) and the SDK's client: the
// proxy writes its tools/call requests onto the stream itself, under ids of
// its own, and the link takes their responses out of the stream before
// the SDK reads it, as JSON text; everything else (the initialize
// handshake, the lists, the upstream's own requests and notifications,
// the SDK client's calls) passes through to the SDK untouched, in order.

// rawIDPrefix begins the id of every request the link sends. The SDK's
// client numbers its requests; a string id of this form is never its.
const rawIDPrefix = "limbo-proxy#"

// maxRawValue bounds the message the link holds while it looks for its
// end; a longer one is passed on to the SDK as it comes (which bounds its
// frames itself).
const maxRawValue = 64 << 20

// rawReply is the upstream's answer to a request the link sent: the
// result's JSON text, or its JSON-RPC error, or why there is none.
type rawReply struct {
	result json.RawMessage
	rpcErr *jsonrpc.Error
	err    error
}

// syncWriter serializes whole writes to w of several goroutines: the
// SDK's and the link's messages, the proxy's and the upstream's stderr
// lines. Close closes w if it is an io.Closer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) Close() error {
	if c, ok := s.w.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// rawLink is the upstream's stream shared by the SDK's client and the
// proxy's fast path. Read is called by the SDK's reading goroutine only.
type rawLink struct {
	src io.ReadCloser
	w   *syncWriter

	// The reader's state: buf[r:pass] is owed to the SDK; buf[pass:]
	// holds the next message, scanned up to scan.
	buf            []byte
	r, pass, scan  int
	inValue, inStr bool
	esc, passing   bool
	depth          int
	rerr           error

	mu      sync.Mutex
	next    uint64
	waiting map[uint64]chan rawReply
	dead    error // why the stream ended, once it has

	// progress routes a progress notification under one of the proxy's
	// tokens (its params) and reports whether it did; it runs on the
	// reading goroutine, so that the notification reaches the agent before
	// the answer that follows it.
	progress func(params []byte) bool
}

func newRawLink(src io.ReadCloser, w io.WriteCloser) *rawLink {
	return &rawLink{src: src, w: &syncWriter{w: w}, buf: make([]byte, 0, 64<<10), waiting: map[uint64]chan rawReply{}}
}

// Read gives the SDK the stream less the responses to the link's requests.
func (l *rawLink) Read(p []byte) (int, error) {
	for {
		if l.r < l.pass {
			n := copy(p, l.buf[l.r:l.pass])
			l.r += n
			return n, nil
		}
		if end, whole, ok := l.nextValue(); ok {
			if whole && l.take(l.buf[l.pass:end]) {
				l.r = end
			}
			l.pass = end
			continue
		}
		if l.rerr != nil {
			if l.pass < len(l.buf) {
				// What is left of an unfinished message goes to the
				// SDK, which reports it as it would have.
				l.pass = len(l.buf)
				continue
			}
			l.fail(l.rerr)
			return 0, l.rerr
		}
		l.fill()
	}
}

// nextValue scans buf for the end of the message that follows pass: a
// JSON object or array, or (anything else) the rest of its line. whole
// says the segment up to end is the message entire (with the space before
// it), which take may keep; a message too long to hold is passed on in
// pieces as it comes.
func (l *rawLink) nextValue() (end int, whole, ok bool) {
	b := l.buf
	if !l.inValue {
		i := skipSpace(b, max(l.scan, l.pass))
		l.scan = i
		if i >= len(b) {
			return 0, false, false
		}
		if c := b[i]; c != '{' && c != '[' {
			// Not a JSON-RPC message: the SDK makes of it what it does.
			if j := bytes.IndexByte(b[i:], '\n'); j >= 0 {
				l.scan = i + j + 1
				return l.scan, false, true
			}
			l.scan = len(b)
			return len(b), false, true
		}
		l.inValue, l.inStr, l.esc, l.depth = true, false, false, 0
	}
	for j := l.scan; j < len(b); j++ {
		c := b[j]
		if l.inStr {
			switch {
			case l.esc:
				l.esc = false
			case c == '\\':
				l.esc = true
			case c == '"':
				l.inStr = false
			}
			continue
		}
		switch c {
		case '"':
			l.inStr = true
		case '{', '[':
			l.depth++
		case '}', ']':
			if l.depth--; l.depth == 0 {
				l.inValue = false
				l.scan = j + 1
				whole = !l.passing
				l.passing = false
				return l.scan, whole, true
			}
		}
	}
	l.scan = len(b)
	if l.passing || len(b)-l.pass > maxRawValue {
		// Too long to hold: passed on as it comes, never taken.
		l.passing = true
		return len(b), false, true
	}
	return 0, false, false
}

// fill reads more of the stream, after dropping what was read.
func (l *rawLink) fill() {
	if l.r > 0 {
		n := copy(l.buf, l.buf[l.r:])
		l.buf = l.buf[:n]
		l.pass -= l.r
		l.scan -= l.r
		l.r = 0
	}
	if cap(l.buf)-len(l.buf) < 4096 {
		nb := make([]byte, len(l.buf), 2*cap(l.buf))
		copy(nb, l.buf)
		l.buf = nb
	}
	n, err := l.src.Read(l.buf[len(l.buf):cap(l.buf)])
	l.buf = l.buf[:len(l.buf)+n]
	l.rerr = err
}

// take delivers a response to one of the link's requests to its caller
// and reports whether it did; anything else is left to the SDK.
func (l *rawLink) take(seg []byte) bool {
	v := seg[skipSpace(seg, 0):]
	if len(v) == 0 || v[0] != '{' {
		return false
	}
	if l.progress != nil && bytes.Contains(v, []byte(`"`+progressPrefix)) && json.Valid(v) &&
		methodIs(member(v, "method"), "notifications/progress") && isNull(member(v, "id")) {
		return l.progress(member(v, "params"))
	}
	if !bytes.Contains(v, []byte(`"`+rawIDPrefix)) || !json.Valid(v) {
		return false
	}
	var id, result, rerr []byte
	isResponse := true
	members(v, func(k, val []byte) bool {
		switch {
		case keyIs(k, "id"):
			id = val
		case keyIs(k, "method"):
			isResponse = false
		case keyIs(k, "result"):
			result = val
		case keyIs(k, "error"):
			rerr = val
		}
		return true
	})
	// The id comes back as it was sent: "limbo-proxy#N", no escapes.
	digits, ok := bytes.CutPrefix(id, []byte(`"`+rawIDPrefix))
	if !isResponse || !ok || len(digits) < 2 || digits[len(digits)-1] != '"' {
		return false
	}
	n, err := strconv.ParseUint(string(digits[:len(digits)-1]), 10, 64)
	if err != nil {
		return false
	}
	l.mu.Lock()
	ch := l.waiting[n]
	delete(l.waiting, n)
	l.mu.Unlock()
	if ch == nil {
		return true // the answer to a call given up on: nobody else's
	}
	var rep rawReply
	switch {
	case !isNull(rerr):
		var we jsonrpc.Error
		if err := json.Unmarshal(rerr, &we); err != nil {
			rep.err = fmt.Errorf("calling \"tools/call\": malformed error: %v", err)
		} else {
			rep.rpcErr = &we
		}
	case len(result) == 0:
		rep.err = errors.New(`calling "tools/call": a response with neither result nor error`)
	default:
		// The buffer is reused: the caller gets its own copy, on one
		// line (a message may come pretty-printed).
		if bytes.ContainsAny(result, "\r\n") {
			var c bytes.Buffer
			_ = json.Compact(&c, result)
			rep.result = c.Bytes()
		} else {
			rep.result = bytes.Clone(result)
		}
	}
	ch <- rep
	return true
}

// fail ends every waiting call with the stream's end.
func (l *rawLink) fail(err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.dead == nil {
		l.dead = fmt.Errorf("calling \"tools/call\": %w: %v", sdk.ErrConnectionClosed, err)
	}
	for n, ch := range l.waiting {
		ch <- rawReply{err: l.dead}
		delete(l.waiting, n)
	}
}

// Close closes the stream (the SDK's client closes its reader).
func (l *rawLink) Close() error {
	err := l.src.Close()
	l.fail(io.ErrClosedPipe)
	return err
}

// cancelTimeout bounds the write of a cancellation.
const cancelTimeout = 5 * time.Second

// call sends a tools/call request with the given params (JSON text) and
// waits for its answer or the end of ctx (then it tells the upstream the
// request is cancelled, as the SDK's client does).
func (l *rawLink) call(ctx context.Context, params []byte) rawReply {
	ch := make(chan rawReply, 1)
	l.mu.Lock()
	if l.dead != nil {
		l.mu.Unlock()
		return rawReply{err: l.dead}
	}
	l.next++
	n := l.next
	l.waiting[n] = ch
	l.mu.Unlock()
	msg := make([]byte, 0, len(params)+80)
	msg = append(msg, `{"jsonrpc":"2.0","id":"`+rawIDPrefix...)
	msg = strconv.AppendUint(msg, n, 10)
	msg = append(msg, `","method":"tools/call","params":`...)
	msg = append(msg, params...)
	msg = append(msg, "}\n"...)
	if _, err := l.w.Write(msg); err != nil {
		l.forget(n)
		return rawReply{err: fmt.Errorf("calling \"tools/call\": %w: %v", sdk.ErrConnectionClosed, err)}
	}
	select {
	case r := <-ch:
		return r
	case <-ctx.Done():
		l.forget(n)
		go func() {
			note := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"%s%d","reason":%q}}`+"\n", rawIDPrefix, n, ctx.Err().Error())
			done := make(chan struct{})
			go func() { _, _ = l.w.Write(note); close(done) }()
			select {
			case <-done:
			case <-time.After(cancelTimeout):
			}
		}()
		return rawReply{err: ctx.Err()}
	}
}

func (l *rawLink) forget(n uint64) {
	l.mu.Lock()
	delete(l.waiting, n)
	l.mu.Unlock()
}

// toolParams is a tools/call request's params: the tool's name, its
// arguments (JSON text, an object; none is {}) and a progress token of
// the proxy's ("": none).
func toolParams(name string, args json.RawMessage, progress string) []byte {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	q := quote(name)
	b := make([]byte, 0, len(q)+len(args)+len(progress)+48)
	b = append(b, `{"name":`...)
	b = append(b, q...)
	b = append(b, `,"arguments":`...)
	b = append(b, args...)
	if progress != "" {
		b = append(b, `,"_meta":{"progressToken":`...)
		b = append(b, quote(progress)...)
		b = append(b, '}')
	}
	return append(b, '}')
}

// quote is a string as a JSON string: as it is between quotes when it
// needs no escape (a tool's name), else as encoding/json writes it.
func quote(s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return q
		}
	}
	b := make([]byte, 0, len(s)+2)
	return append(append(append(b, '"'), s...), '"')
}
