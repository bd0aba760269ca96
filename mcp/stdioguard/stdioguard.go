package stdioguard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK's stdio transport ends the connection on the first line that is
// not JSON-RPC. lineGuard sits in front of it: a malformed line, a message
// that is not a JSON-RPC object, or an over-long line is answered with a
// JSON-RPC error (parse error, invalid request) on the output and dropped,
// and the session goes on.

// Transport is the SDK's stdio transport over in and out (newline-delimited
// JSON-RPC of at most maxBytes a message) behind the guard: bad lines are
// answered and dropped, the end of input waits for the answers to the
// requests received, and tool calls are passed on one at a time, in the
// order they arrived.
func Transport(in io.ReadCloser, out io.WriteCloser, maxBytes int) *sdk.IOTransport {
	inf := newInFlight()
	lw := &lockedWriter{w: out, inFlight: inf}
	guard := newLineGuard(in, lw, maxBytes)
	guard.inFlight = inf
	return &sdk.IOTransport{Reader: guard, Writer: lw, MaxLineLength: maxBytes + 2}
}

// lockedWriter serializes whole-line writes of the SDK and of lineGuard,
// and tells inFlight which requests have been answered.
type lockedWriter struct {
	mu       sync.Mutex
	w        io.WriteCloser
	inFlight *inFlight
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	n, err := l.w.Write(p)
	l.mu.Unlock()
	if l.inFlight != nil && err == nil {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method *string         `json:"method"`
		}
		if json.Unmarshal(bytes.TrimSpace(p), &m) == nil && m.Method == nil && len(m.ID) > 0 {
			l.inFlight.answered(m.ID)
		}
	}
	return n, err
}

func (l *lockedWriter) Close() error { return l.w.Close() }

type lineGuard struct {
	src      *bufio.Reader
	closer   io.Closer
	out      io.Writer
	max      int
	pending  []byte
	err      error
	inFlight *inFlight // nil: EOF is passed on at once
	drained  bool
}

func newLineGuard(in io.ReadCloser, out io.Writer, max int) *lineGuard {
	return &lineGuard{src: bufio.NewReaderSize(in, 64<<10), closer: in, out: out, max: max}
}

// drainTimeout bounds how long the end of input waits for the answers to
// requests already received: every tool call is answered in virtual time,
// so only a wedged handler comes near it.
const drainTimeout = 10 * time.Second

// inFlight counts the requests passed to the SDK that have no answer yet.
// A client may write its last requests (finish) and close its end at
// once; the SDK ends the connection on EOF and would drop their answers,
// and with them the episode's report. So the guard holds EOF back until
// every received request is answered.
//
// It also keeps tool calls in the order they arrived: the SDK runs calls
// concurrently, so a client that writes a call and finish back to back
// could see finish end the episode before the call is recorded. A tool
// call is passed on only once the calls before it are answered.
type inFlight struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending map[string]int
	calls   map[string]int // the tools/call requests among pending
}

func newInFlight() *inFlight {
	f := &inFlight{pending: map[string]int{}, calls: map[string]int{}}
	f.cond = sync.NewCond(&f.mu)
	return f
}

func (f *inFlight) received(id json.RawMessage, toolCall bool) {
	f.mu.Lock()
	f.pending[string(id)]++
	if toolCall {
		f.calls[string(id)]++
	}
	f.mu.Unlock()
}

func (f *inFlight) answered(id json.RawMessage) {
	f.mu.Lock()
	defer f.mu.Unlock()
	k := string(id)
	if f.pending[k] > 0 {
		f.pending[k]--
		if f.pending[k] == 0 {
			delete(f.pending, k)
		}
		if f.calls[k] > 0 {
			if f.calls[k]--; f.calls[k] == 0 {
				delete(f.calls, k)
			}
		}
		f.cond.Broadcast()
	}
}

// wait returns when nothing is in flight or after timeout.
func (f *inFlight) wait(timeout time.Duration) { f.waitFor(f.pending, timeout) }

// waitCalls returns when no tool call is in flight or after timeout.
func (f *inFlight) waitCalls(timeout time.Duration) { f.waitFor(f.calls, timeout) }

func (f *inFlight) waitFor(m map[string]int, timeout time.Duration) {
	expired := false
	t := time.AfterFunc(timeout, func() {
		f.mu.Lock()
		expired = true
		f.cond.Broadcast()
		f.mu.Unlock()
	})
	defer t.Stop()
	f.mu.Lock()
	for len(m) > 0 && !expired {
		f.cond.Wait()
	}
	f.mu.Unlock()
}

func (g *lineGuard) Close() error { return g.closer.Close() }

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			if !g.drained && g.inFlight != nil {
				g.inFlight.wait(drainTimeout)
			}
			g.drained = true
			return 0, g.err
		}
		line, tooLong, err := g.readLine()
		g.err = err
		switch {
		case tooLong:
			g.reply(nil, -32600, "message exceeds the size limit")
		case len(bytes.TrimSpace(line)) == 0:
		default:
			if id, code, msg, method := checkMessage(line); code != 0 {
				g.reply(id, code, msg)
			} else {
				if method != "" && g.inFlight != nil {
					toolCall := method == "tools/call"
					if toolCall {
						g.inFlight.waitCalls(drainTimeout)
					}
					g.inFlight.received(id, toolCall)
				}
				g.pending = append(line, '\n')
			}
		}
	}
	n := copy(p, g.pending)
	g.pending = g.pending[n:]
	return n, nil
}

// readLine reads one line of at most max bytes; a longer one is skipped
// to its end and reported.
func (g *lineGuard) readLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, e := g.src.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if len(line) > g.max+1 {
				tooLong, line = true, nil
			}
		}
		switch {
		case e == nil:
			return bytes.TrimSuffix(line, []byte{'\n'}), tooLong, nil
		case errors.Is(e, bufio.ErrBufferFull):
			continue
		default:
			return line, tooLong, e
		}
	}
}

// checkMessage accepts a JSON object with jsonrpc "2.0" and a method, or
// a response (id with result or error). It returns the JSON-RPC error to
// answer otherwise; method is the method of a request (method and id),
// which awaits an answer, and "" for anything else.
func checkMessage(line []byte) (id json.RawMessage, code int, msg string, method string) {
	if !json.Valid(line) {
		return nil, -32700, "parse error: not JSON", ""
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, -32600, "invalid request: not a JSON-RPC object", ""
	}
	if m.JSONRPC != "2.0" {
		return m.ID, -32600, `invalid request: jsonrpc must be "2.0"`, ""
	}
	if m.Method == nil && (len(m.ID) == 0 || (len(m.Result) == 0 && len(m.Error) == 0)) {
		return m.ID, -32600, "invalid request: neither a request nor a response", ""
	}
	if m.Method != nil && len(m.ID) > 0 && string(m.ID) != "null" {
		return m.ID, 0, "", *m.Method
	}
	return m.ID, 0, "", ""
}

func (g *lineGuard) reply(id json.RawMessage, code int, msg string) {
	if len(id) == 0 || !json.Valid(id) {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	if err != nil {
		return
	}
	_, _ = g.out.Write(append(b, '\n'))
}
