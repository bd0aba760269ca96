package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"sync"
)

// The SDK's stdio transport ends the connection on the first line that is
// not JSON-RPC. lineGuard sits in front of it: a malformed line, a message
// that is not a JSON-RPC object, or an over-long line is answered with a
// JSON-RPC error (parse error, invalid request) on the output and dropped,
// and the session goes on.

// lockedWriter serializes whole-line writes of the SDK and of lineGuard.
type lockedWriter struct {
	mu sync.Mutex
	w  io.WriteCloser
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return l.w.Close() }

type lineGuard struct {
	src     *bufio.Reader
	closer  io.Closer
	out     io.Writer
	max     int
	pending []byte
	err     error
}

func newLineGuard(in io.ReadCloser, out io.Writer, max int) *lineGuard {
	return &lineGuard{src: bufio.NewReaderSize(in, 64<<10), closer: in, out: out, max: max}
}

func (g *lineGuard) Close() error { return g.closer.Close() }

func (g *lineGuard) Read(p []byte) (int, error) {
	for len(g.pending) == 0 {
		if g.err != nil {
			return 0, g.err
		}
		line, tooLong, err := g.readLine()
		g.err = err
		switch {
		case tooLong:
			g.reply(nil, -32600, "message exceeds the size limit")
		case len(bytes.TrimSpace(line)) == 0:
		default:
			if id, code, msg := checkMessage(line); code != 0 {
				g.reply(id, code, msg)
			} else {
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
// answer otherwise.
func checkMessage(line []byte) (id json.RawMessage, code int, msg string) {
	if !json.Valid(line) {
		return nil, -32700, "parse error: not JSON"
	}
	var m struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, -32600, "invalid request: not a JSON-RPC object"
	}
	if m.JSONRPC != "2.0" {
		return m.ID, -32600, `invalid request: jsonrpc must be "2.0"`
	}
	if m.Method == nil && (len(m.ID) == 0 || (len(m.Result) == 0 && len(m.Error) == 0)) {
		return m.ID, -32600, "invalid request: neither a request nor a response"
	}
	return nil, 0, ""
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
