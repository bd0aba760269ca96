package proxy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/internal/readlimit"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/outfile"
)

// A recording holds what an upstream said in a proxy run (--record), so
// that the run can be served again without it (--replay): its initialize
// result and lists, then every answer it gave, in order, as JSON lines:
//
//	{"upstream": {"initialize": {...}, "tools": [...], "prompts": [...], "resources": [...], "templates": [...]}}
//	{"call": {"tool": "insert", "args": {...}, "result": {...}}}
//	{"call": {"tool": "insert", "args": {...}, "error": {"code": -32602, "message": "..."}}}
//	{"call": {"tool": "insert", "args": {...}, "failure": "the connection closed"}}
//	{"prompt": {"name": "p", "args": {...}, "result": {...}}}
//	{"resource": {"uri": "u", "result": {...}}}
//
// A replay answers each call with the next recorded answer to the same
// tool and arguments (the late and redelivered copies are calls too), so
// the same calls get the same answers, whatever the faults do.
type recordLine struct {
	Upstream *recordHeader `json:"upstream,omitempty"`
	Call     *recordCall   `json:"call,omitempty"`
	Prompt   *recordPrompt `json:"prompt,omitempty"`
	Resource *recordRes    `json:"resource,omitempty"`
}

type recordHeader struct {
	Initialize *sdk.InitializeResult   `json:"initialize"`
	Tools      []*sdk.Tool             `json:"tools"`
	Prompts    []*sdk.Prompt           `json:"prompts"`
	Resources  []*sdk.Resource         `json:"resources"`
	Templates  []*sdk.ResourceTemplate `json:"templates"`
}

type recordCall struct {
	Tool    string              `json:"tool"`
	Args    json.RawMessage     `json:"args"`
	Result  *sdk.CallToolResult `json:"result,omitempty"`
	Error   *jsonrpc.Error      `json:"error,omitempty"`
	Failure string              `json:"failure,omitempty"`
}

type recordPrompt struct {
	Name   string               `json:"name"`
	Args   map[string]string    `json:"args,omitempty"`
	Result *sdk.GetPromptResult `json:"result,omitempty"`
	Error  *jsonrpc.Error       `json:"error,omitempty"`
}

type recordRes struct {
	URI    string                  `json:"uri"`
	Result *sdk.ReadResourceResult `json:"result,omitempty"`
	Error  *jsonrpc.Error          `json:"error,omitempty"`
}

// Recorder writes a recording; the file appears when Close commits it
// (outfile), so an interrupted run leaves none.
type Recorder struct {
	mu  sync.Mutex
	f   *outfile.File
	w   *bufio.Writer
	err error
}

// CreateRecording starts the recording at path with the upstream's
// initialize result and lists, and records every answer it gives from now
// on (Upstream.Record).
func CreateRecording(path string, u *Upstream) (*Recorder, error) {
	f, err := outfile.Create(path)
	if err != nil {
		return nil, err
	}
	r := &Recorder{f: f, w: bufio.NewWriter(f)}
	r.write(recordLine{Upstream: &recordHeader{Initialize: u.info, Tools: u.Tools, Prompts: u.Prompts, Resources: u.Resources, Templates: u.Templates}})
	if r.err != nil {
		f.Abort()
		return nil, r.err
	}
	u.rec = r
	return r, nil
}

func (r *Recorder) write(l recordLine) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	b, err := json.Marshal(l)
	if err == nil {
		_, err = r.w.Write(append(b, '\n'))
	}
	r.err = err
}

// Close commits the recording.
func (r *Recorder) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err == nil {
		r.err = r.w.Flush()
	}
	if r.err != nil {
		r.f.Abort()
		return r.err
	}
	return r.f.Close()
}

// rpcError is err as the JSON-RPC error the upstream answered, if it was
// one.
func rpcError(err error) *jsonrpc.Error {
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return we
	}
	return nil
}

func (r *Recorder) call(tool string, args json.RawMessage, res *sdk.CallToolResult, err error) {
	c := &recordCall{Tool: tool, Args: canonicalArgs(args), Result: res}
	if err != nil {
		if c.Error = rpcError(err); c.Error == nil {
			c.Failure = oneLine(err)
		}
	}
	r.write(recordLine{Call: c})
}

// canonicalArgs is a call's arguments with sorted keys and no spaces, so
// that the same arguments find their answer whatever the client's
// spelling.
func canonicalArgs(args json.RawMessage) json.RawMessage {
	m, err := decodeObject(args)
	if err != nil {
		return json.RawMessage(compactJSON(args))
	}
	b, _ := json.Marshal(m)
	return b
}

// ReplayMiss says what a replay does with a call the recording does not
// hold.
type ReplayMiss string

// Replay misses.
const (
	MissError ReplayMiss = "error" // answer a JSON-RPC error naming the call
	MissLive  ReplayMiss = "live"  // forward it to the live upstream
)

// replay answers from a recording.
type replay struct {
	path      string
	miss      ReplayMiss
	live      *Upstream // MissLive's upstream
	mu        sync.Mutex
	calls     map[string][]*recordCall // tool \x00 args → answers not yet given
	prompts   map[string][]*recordPrompt
	resources map[string][]*recordRes
	missed    []string // the calls it had no answer for
}

// ReplayError is a replay's call that the recording does not hold.
type ReplayError struct {
	Path, Tool string
	Args       json.RawMessage
}

func (e *ReplayError) Error() string {
	return fmt.Sprintf("%s: no recorded answer for %s %s", e.Path, e.Tool, e.Args)
}

// OpenReplay makes an upstream of the recording at path: its lists and
// answers are the recorded ones, and nothing reaches a server; a call it
// does not hold is answered per miss (live: forwarded to live, which
// must then be set).
func OpenReplay(path string, miss ReplayMiss, live *Upstream) (*Upstream, error) {
	data, err := readlimit.ReadFile(path, "a recording", 1<<30)
	if err != nil {
		return nil, err
	}
	return parseReplay(path, data, miss, live)
}

// parseReplay reads a recording's lines.
func parseReplay(path string, data []byte, miss ReplayMiss, live *Upstream) (*Upstream, error) {
	rp := &replay{path: path, miss: miss, live: live, calls: map[string][]*recordCall{}, prompts: map[string][]*recordPrompt{}, resources: map[string][]*recordRes{}}
	u := &Upstream{done: make(chan struct{}), rep: rp}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<28)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var l recordLine
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, ledger.Problem{File: path, Line: n, Msg: "not a recording line: " + err.Error()}
		}
		switch {
		case l.Upstream != nil:
			if n != 1 || l.Upstream.Initialize == nil {
				return nil, ledger.Problem{File: path, Line: n, Field: "upstream", Msg: "the upstream's header is the first line, once, with its initialize result"}
			}
			h := l.Upstream
			u.info, u.Tools, u.Prompts, u.Resources, u.Templates = h.Initialize, h.Tools, h.Prompts, h.Resources, h.Templates
		case u.info == nil:
			return nil, ledger.Problem{File: path, Line: n, Field: "upstream", Msg: "missing: a recording starts with the upstream's header"}
		case l.Call != nil:
			k := l.Call.Tool + "\x00" + string(canonicalArgs(l.Call.Args))
			rp.calls[k] = append(rp.calls[k], l.Call)
		case l.Prompt != nil:
			k := promptKey(l.Prompt.Name, l.Prompt.Args)
			rp.prompts[k] = append(rp.prompts[k], l.Prompt)
		case l.Resource != nil:
			rp.resources[l.Resource.URI] = append(rp.resources[l.Resource.URI], l.Resource)
		default:
			return nil, ledger.Problem{File: path, Line: n, Msg: "an empty recording line"}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, ledger.Problem{File: path, Msg: err.Error()}
	}
	if u.info == nil {
		return nil, ledger.Problem{File: path, Msg: "empty recording"}
	}
	if miss == MissLive && live == nil {
		return nil, errors.New("proxy: a replay that goes live on a miss needs a live upstream")
	}
	if live != nil {
		u.done = live.done
	}
	return u, nil
}

func promptKey(name string, args map[string]string) string {
	b, _ := json.Marshal(args)
	return name + "\x00" + string(b)
}

// callTool answers a call from the recording.
func (rp *replay) callTool(ctx context.Context, tool string, args json.RawMessage) (*sdk.CallToolResult, error) {
	k := tool + "\x00" + string(canonicalArgs(args))
	rp.mu.Lock()
	q := rp.calls[k]
	if len(q) == 0 {
		rp.missed = append(rp.missed, tool+" "+string(canonicalArgs(args)))
		rp.mu.Unlock()
		if rp.miss == MissLive {
			return rp.live.CallTool(ctx, tool, args)
		}
		return nil, &ReplayError{Path: rp.path, Tool: tool, Args: canonicalArgs(args)}
	}
	c := q[0]
	rp.calls[k] = q[1:]
	rp.mu.Unlock()
	switch {
	case c.Error != nil:
		return nil, c.Error
	case c.Failure != "":
		return nil, errors.New(c.Failure)
	}
	return c.Result, nil
}

// Missed lists the calls a replay had no recorded answer for.
func (u *Upstream) Missed() []string {
	if u.rep == nil {
		return nil
	}
	u.rep.mu.Lock()
	defer u.rep.mu.Unlock()
	return append([]string(nil), u.rep.missed...)
}

// GetPrompt forwards (or replays, and records) a prompt request.
func (u *Upstream) GetPrompt(ctx context.Context, p *sdk.GetPromptParams) (*sdk.GetPromptResult, error) {
	if rp := u.rep; rp != nil {
		k := promptKey(p.Name, p.Arguments)
		rp.mu.Lock()
		defer rp.mu.Unlock()
		if q := rp.prompts[k]; len(q) > 0 {
			rp.prompts[k] = q[1:]
			if q[0].Error != nil {
				return nil, q[0].Error
			}
			return q[0].Result, nil
		}
		if rp.miss == MissLive {
			return rp.live.GetPrompt(ctx, p)
		}
		return nil, fmt.Errorf("%s: no recorded answer for the prompt %s", rp.path, p.Name)
	}
	res, err := u.session.GetPrompt(ctx, p)
	if u.rec != nil {
		u.rec.write(recordLine{Prompt: &recordPrompt{Name: p.Name, Args: p.Arguments, Result: res, Error: rpcError(err)}})
	}
	return res, err
}

// ReadResource forwards (or replays, and records) a resource read.
func (u *Upstream) ReadResource(ctx context.Context, p *sdk.ReadResourceParams) (*sdk.ReadResourceResult, error) {
	if rp := u.rep; rp != nil {
		rp.mu.Lock()
		defer rp.mu.Unlock()
		if q := rp.resources[p.URI]; len(q) > 0 {
			rp.resources[p.URI] = q[1:]
			if q[0].Error != nil {
				return nil, q[0].Error
			}
			return q[0].Result, nil
		}
		if rp.miss == MissLive {
			return rp.live.ReadResource(ctx, p)
		}
		return nil, fmt.Errorf("%s: no recorded answer for the resource %s", rp.path, p.URI)
	}
	res, err := u.session.ReadResource(ctx, p)
	if u.rec != nil {
		u.rec.write(recordLine{Resource: &recordRes{URI: p.URI, Result: res, Error: rpcError(err)}})
	}
	return res, err
}
