package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/internal/localhttp"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/finish"
	"github.com/limbo-toolkit/limbo/mcp/stdioguard"
)

// Options configure a Server.
type Options struct {
	Limits    Limits
	NewCaller CallerFactory // nil: ConditionCaller
	// Raw writes the calls, effects and final report into each ledger
	// line beside the graded fields.
	Raw bool
	// Version is reported to clients as the server implementation version.
	Version string
	// Log receives one line per ended episode and other notices; nil
	// discards them. It must never be the stdio transport's output.
	Log io.Writer
	// IdleTimeout closes an HTTP session that sent nothing for this long
	// (its episode ends as a disconnect). Zero: 10 minutes.
	IdleTimeout time.Duration
	// MaxMessageBytes bounds one JSON-RPC message (stdio line or HTTP
	// body). Zero: 1 MiB.
	MaxMessageBytes int
	// OnResult, if set, is called with every recorded episode.
	OnResult func(*Result)
	// ReclaimAfter: when a new HTTP session finds no pending episode, it
	// takes over the episode of a session that has made no tool call and
	// sent nothing for at least this long (zero: at once). Harnesses
	// check a server by initializing and leaving without DELETE (claude
	// mcp list); such a session must not hold its episode until the idle
	// timeout while the real run is refused.
	ReclaimAfter time.Duration
	// FinishGrace is how long ServeHTTP keeps answering after the last
	// episode is recorded, so that clients can close their sessions
	// (DELETE) cleanly. Zero: 3 seconds.
	FinishGrace time.Duration
	// AllowedOrigins are the browser origins (scheme://host[:port])
	// accepted besides loopback ones. A request with any other Origin
	// header is refused with 403, as the MCP specification asks of local
	// servers against DNS rebinding.
	AllowedOrigins []string
	// BodyTimeout bounds the time to receive one HTTP request body, so a
	// client that trickles its body cannot hold a connection for ever.
	// Zero: 30 seconds.
	BodyTimeout time.Duration
}

// Server serves a plan's pending episodes, one per MCP session, and
// records them in a ledger.
type Server struct {
	plan   *Plan
	ledger *Ledger
	opts   Options

	mu      sync.Mutex
	queue   []int // pending plan indices, in plan order
	active  int
	failed  int
	done    chan struct{} // closed when nothing is pending or active
	closed  bool
	lastErr error
	pool    map[string][]*episodeServer
	live    map[*episodeServer]bool // servers bound to a session
}

// NewServer returns a server for the plan's episodes that the ledger does
// not hold yet.
func NewServer(plan *Plan, l *Ledger, opts Options) *Server {
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = 10 * time.Minute
	}
	if opts.MaxMessageBytes <= 0 {
		opts.MaxMessageBytes = 1 << 20
	}
	if opts.NewCaller == nil {
		opts.NewCaller = ConditionCaller
	}
	if opts.BodyTimeout <= 0 {
		opts.BodyTimeout = 30 * time.Second
	}
	if opts.FinishGrace <= 0 {
		opts.FinishGrace = 3 * time.Second
	}
	s := &Server{plan: plan, ledger: l, opts: opts, done: make(chan struct{}), pool: map[string][]*episodeServer{}, live: map[*episodeServer]bool{}}
	for i := range plan.Episodes {
		if !l.Has(plan.Episodes[i].EpisodeID) {
			s.queue = append(s.queue, i)
		}
	}
	s.checkDoneLocked()
	return s
}

// Pending is the number of episodes not yet served.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Next returns the next pending episode and its index, without taking it.
func (s *Server) Next() (*Episode, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return nil, -1, false
	}
	i := s.queue[0]
	return &s.plan.Episodes[i], i, true
}

// Done is closed when every planned episode is recorded (or failed) and
// no session is active.
func (s *Server) Done() <-chan struct{} { return s.done }

// Err is the last recording error, if any.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastErr
}

func (s *Server) checkDoneLocked() {
	if !s.closed && len(s.queue) == 0 && s.active == 0 {
		s.closed = true
		close(s.done)
	}
}

func (s *Server) take() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.queue) == 0 {
		return -1, false
	}
	i := s.queue[0]
	s.queue = s.queue[1:]
	s.active++
	return i, true
}

// release ends an active episode; requeue puts it back at the front (a
// session that never did anything).
func (s *Server) release(idx int, requeue bool, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active--
	if requeue {
		s.queue = append([]int{idx}, s.queue...)
	}
	if err != nil {
		s.failed++
		s.lastErr = err
	}
	s.checkDoneLocked()
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Log != nil {
		fmt.Fprintf(s.opts.Log, format+"\n", args...)
	}
}

// record is a run's end hook: append the graded episode, or requeue an
// idle session's episode.
func (s *Server) record(r *run, res *Result) {
	if res == nil {
		s.logf("limbo mcp: episode %s: session ended before any tool call; not recorded", r.ep.EpisodeID)
		s.release(r.idx, true, nil)
		return
	}
	err := res.Err
	if err == nil {
		var line []byte
		line, err = encodeServedLine(r.ep, res.Graded, res.Raw, s.opts.Raw)
		if err == nil {
			err = s.ledger.AppendLine(res.Graded.EpisodeID, line)
		}
	}
	if err != nil {
		s.logf("limbo mcp: episode %s: %v", r.ep.EpisodeID, err)
		s.release(r.idx, false, err)
		return
	}
	s.logf("limbo mcp: episode %s ended (%s): %d calls, task_success=%t duplicated=%t eos=%t",
		res.Graded.EpisodeID, res.Reason, res.Graded.ToolCalls, res.Graded.TaskSuccess, res.Graded.Duplicated, res.Graded.EOS)
	if s.opts.OnResult != nil {
		s.opts.OnResult(res)
	}
	s.release(r.idx, false, nil)
}

// legacyVersions are the protocol versions with an initialize handshake:
// each MCP session then is one episode. Newer sessionless clients fall
// back to them.
func legacyVersions() []string {
	var vs []string
	for _, v := range sdk.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			vs = append(vs, v)
		}
	}
	return vs
}

// Instruction is the task text offered to the agent for a planned
// episode (Prompt).
func Instruction(p *Plan, idx int) string {
	return Prompt(&p.Episodes[idx], p.Task(idx))
}

// newRun starts the world of plan entry idx.
func (s *Server) newRun(idx int) (*run, error) {
	r, err := newRun(idx, &s.plan.Episodes[idx], s.plan.Task(idx), s.opts.Limits, s.opts.NewCaller)
	if err != nil {
		return nil, err
	}
	r.onEnd = s.record
	return r, nil
}

// TaskURI is the resource holding the task instruction.
const TaskURI = "limbo://task"

// episodeServer is an SDK server with one episode's tools: the sandbox
// tools of a contract and oracle set, finish, the task prompt and
// resource. It serves one session at a time; between sessions it goes
// back to a pool, since building one (its tool schemas) costs more than a
// whole short episode.
type episodeServer struct {
	srv   *sdk.Server
	shape string

	mu       sync.Mutex
	cur      *run
	session  *sdk.ServerSession // the session of cur, once initialized
	lastSeen time.Time          // the session's last request
}

// current returns the run of the session a request came in, or nil when
// the request is not from the episode's session (it ended).
func (es *episodeServer) current(ss *sdk.ServerSession) *run {
	es.mu.Lock()
	defer es.mu.Unlock()
	if es.cur == nil || es.session == nil || es.session != ss {
		return nil
	}
	return es.cur
}

func (es *episodeServer) attached() bool {
	es.mu.Lock()
	defer es.mu.Unlock()
	return es.session != nil
}

// shapeOf keys the servers that expose the same tools.
func shapeOf(ep *Episode) string {
	return ep.Contract + "|" + strings.Join(ep.Oracles, ",") + "|" + strconv.FormatBool(ep.Annotations)
}

const sessionEnded = "the session's episode has ended; no further calls are accepted"

// episodeServerFor returns a server, from the pool or new, bound to run r.
func (s *Server) episodeServerFor(r *run) *episodeServer {
	shape := shapeOf(r.ep)
	s.mu.Lock()
	var es *episodeServer
	if p := s.pool[shape]; len(p) > 0 {
		es = p[len(p)-1]
		s.pool[shape] = p[:len(p)-1]
	}
	s.mu.Unlock()
	if es == nil {
		es = s.newEpisodeServer(shape, r)
	}
	es.mu.Lock()
	es.cur, es.session = r, nil
	es.mu.Unlock()
	return es
}

// recycle returns a server whose session is over to the pool.
func (s *Server) recycle(es *episodeServer) {
	es.mu.Lock()
	es.cur, es.session = nil, nil
	es.mu.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.live, es)
	if len(s.pool[es.shape]) < maxPooled {
		s.pool[es.shape] = append(s.pool[es.shape], es)
	}
}

// liveSessions is the number of sessions bound to an episode server.
func (s *Server) liveSessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.live)
}

// reclaim takes the episode of the longest-quiet session that has made no
// tool call (and has been quiet for ReclaimAfter), closes that session and
// returns the episode's plan index. The episode stays counted as active:
// it passes from one session to the other.
func (s *Server) reclaim() (int, bool) {
	s.mu.Lock()
	cands := make([]*episodeServer, 0, len(s.live))
	for es := range s.live {
		cands = append(cands, es)
	}
	s.mu.Unlock()
	seen := func(es *episodeServer) time.Time {
		es.mu.Lock()
		defer es.mu.Unlock()
		return es.lastSeen
	}
	slices.SortFunc(cands, func(a, b *episodeServer) int { return seen(a).Compare(seen(b)) })
	for _, es := range cands {
		es.mu.Lock()
		r, ss := es.cur, es.session
		if r == nil || ss == nil || time.Since(es.lastSeen) < s.opts.ReclaimAfter || !r.reclaim() {
			es.mu.Unlock()
			continue
		}
		es.cur = nil // the old session's requests now get sessionEnded
		es.mu.Unlock()
		s.logf("limbo mcp: episode %s: handed to a new session (the session holding it made no tool call)", r.ep.EpisodeID)
		go ss.Close()
		return r.idx, true
	}
	return -1, false
}

// maxPooled bounds the idle servers kept per shape.
const maxPooled = 64

// newEpisodeServer builds a server for the tools of r's world (which
// depend only on the shape).
func (s *Server) newEpisodeServer(shape string, r *run) *episodeServer {
	es := &episodeServer{shape: shape}
	srv := sdk.NewServer(&sdk.Implementation{Name: "limbo-sandbox", Version: s.opts.Version}, &sdk.ServerOptions{
		// The lists never change during a session: no listChanged.
		Capabilities: &sdk.ServerCapabilities{
			Tools: &sdk.ToolCapabilities{}, Prompts: &sdk.PromptCapabilities{}, Resources: &sdk.ResourceCapabilities{},
		},
		SupportedProtocolVersions: legacyVersions(),
	})
	for _, spec := range r.world.Tools() {
		name := spec.Name
		tool := &sdk.Tool{Name: name, Description: spec.Description, InputSchema: schemaJSON(r.ep.Contract, spec)}
		if r.ep.Annotations {
			tool.Annotations = ToolAnnotations(spec)
		}
		srv.AddTool(tool,
			func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				cur := es.current(req.Session)
				if cur == nil {
					return textResult(sessionEnded, true), nil
				}
				resp, endedMsg, err := cur.call(name, req.Params.Arguments)
				return toolResult(resp, endedMsg, err)
			})
	}
	srv.AddTool(finish.Tool(r.ep.Annotations),
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			cur := es.current(req.Session)
			if cur == nil {
				return textResult(sessionEnded, true), nil
			}
			msg, complaint, err := cur.finish(req.Params.Arguments)
			if err != nil {
				return nil, invalidParams(err.Error())
			}
			if complaint != "" {
				return textResult(complaint, true), nil
			}
			// Structured as the sandbox tools' results are.
			return finish.Result(msg), nil
		})
	srv.AddPrompt(&sdk.Prompt{Name: "task", Description: "The task to carry out with this server's tools."},
		func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
			cur := es.current(req.Session)
			if cur == nil {
				return nil, errors.New(sessionEnded)
			}
			return &sdk.GetPromptResult{
				Description: "LIMBO task " + cur.task.ID,
				Messages:    []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: cur.instruction()}}},
			}, nil
		})
	srv.AddResource(&sdk.Resource{URI: TaskURI, Name: "task", MIMEType: "text/plain", Description: "The task to carry out with this server's tools."},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			cur := es.current(req.Session)
			if cur == nil {
				return nil, errors.New(sessionEnded)
			}
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{
				URI: TaskURI, MIMEType: "text/plain", Text: cur.instruction(), Meta: sdk.Meta{"limbo/task": cur.task.ID},
			}}}, nil
		})
	// On initialize: bind the session to the episode, give the task as
	// the server instructions, and end the episode when the session ends.
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			ss, _ := req.GetSession().(*sdk.ServerSession)
			if method != "initialize" {
				es.mu.Lock()
				if ss != nil && es.session == ss {
					es.lastSeen = time.Now()
				}
				es.mu.Unlock()
				return next(ctx, method, req)
			}
			es.mu.Lock()
			cur := es.cur
			first := cur != nil && es.session == nil && ss != nil
			if first {
				es.session = ss
				es.lastSeen = time.Now()
			}
			es.mu.Unlock()
			if first {
				s.mu.Lock()
				s.live[es] = true
				s.mu.Unlock()
			}
			res, err := next(ctx, method, req)
			if ir, ok := res.(*sdk.InitializeResult); ok && cur != nil {
				ir.Instructions = cur.instruction()
				// The task id, as the task resource's _meta gives it, so a
				// client that reads the instructions needs no further
				// round trip to know its task.
				if ir.Meta == nil {
					ir.Meta = sdk.Meta{}
				}
				ir.Meta["limbo/task"] = cur.task.ID
			}
			if first {
				go func() {
					_ = ss.Wait()
					cur.disconnect()
					s.recycle(es)
				}()
			}
			return res, err
		}
	})
	es.srv = srv
	return es
}

func textResult(text string, isErr bool) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: isErr}
}

func invalidParams(msg string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// toolResult renders a sandbox call for the agent: the Response as JSON
// text and structured content, marked as an error unless the outcome is ok.
func toolResult(resp *Response, endedMsg string, err error) (*sdk.CallToolResult, error) {
	if err != nil {
		var pe *protocolError
		if errors.As(err, &pe) {
			return nil, invalidParams(pe.msg)
		}
		return nil, err
	}
	if resp == nil {
		return textResult(endedMsg, true), nil
	}
	text, err := json.Marshal(resp)
	if err != nil {
		// A result the sandbox built that JSON cannot carry (NaN): report
		// it rather than fail the session.
		return textResult(fmt.Sprintf(`{"outcome":%q,"error":"result not representable in JSON"}`, resp.Outcome), true), nil
	}
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: string(text)}},
		StructuredContent: json.RawMessage(text),
		IsError:           resp.Outcome != ledger.OutcomeOK,
	}, nil
}

// ErrNothingPending is returned when every planned episode is recorded.
var ErrNothingPending = errors.New("every episode of the plan is already in the ledger")

// ServeStdio serves the next pending episode over one connection (stdin
// and stdout of the process: newline-delimited JSON-RPC) until the client
// disconnects, and records it. It returns the plan index served.
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) (int, error) {
	idx, ok := s.take()
	if !ok {
		return -1, ErrNothingPending
	}
	r, err := s.newRun(idx)
	if err != nil {
		s.release(idx, false, err)
		return idx, err
	}
	es := s.episodeServerFor(r)
	runErr := es.srv.Run(ctx, stdioguard.Transport(in, out, s.opts.MaxMessageBytes))
	r.disconnect()
	if err := s.Err(); err != nil {
		return idx, err
	}
	if runErr != nil && !errors.Is(runErr, context.Canceled) && !errors.Is(runErr, io.EOF) && !errors.Is(runErr, sdk.ErrConnectionClosed) {
		return idx, runErr
	}
	return idx, nil
}

// sessionHeader is the streamable HTTP session header.
const sessionHeader = "Mcp-Session-Id"

type episodeServerKey struct{}

// Handler is the streamable HTTP handler: a POST that opens a session
// (initialize) takes the next pending episode; the other requests go to
// their session. When the plan is exhausted, new sessions are refused.
func (s *Server) Handler() http.Handler {
	base := sdk.NewServer(&sdk.Implementation{Name: "limbo-sandbox", Version: s.opts.Version}, &sdk.ServerOptions{
		Capabilities:              &sdk.ServerCapabilities{},
		SupportedProtocolVersions: legacyVersions(),
	})
	h := sdk.NewStreamableHTTPHandler(func(req *http.Request) *sdk.Server {
		if es, ok := req.Context().Value(episodeServerKey{}).(*sdk.Server); ok {
			return es
		}
		return base
	}, &sdk.StreamableHTTPOptions{
		SessionTimeout: s.opts.IdleTimeout,
		// Plain JSON answers: every call is request-response, and it spares
		// the SSE framing.
		JSONResponse:        true,
		MaxRequestBodyBytes: int64(s.opts.MaxMessageBytes),
	})
	// The Host and Origin rules of every local server of the toolkit
	// (localhttp.Guard), against DNS rebinding and cross-site calls, as
	// the MCP specification asks of local servers.
	return localhttp.Guard(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost {
			h.ServeHTTP(w, req)
			return
		}
		// The body has opts.BodyTimeout to arrive whole (localhttp.ReadBody).
		body, ok := localhttp.ReadBody(w, req, int64(s.opts.MaxMessageBytes), s.opts.BodyTimeout)
		if !ok {
			return
		}
		if req.Header.Get(sessionHeader) != "" {
			h.ServeHTTP(w, req)
			return
		}
		var head struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &head) != nil || head.Method == sessionlessDiscover {
			// Not a single message (the SDK answers a parse error), or a
			// newer client's discovery, which the SDK refuses so that the
			// client falls back to initialize.
			h.ServeHTTP(w, req)
			return
		}
		if head.Method != "initialize" {
			// The specification: a server that requires sessions answers a
			// request without one, other than initialize, with 400.
			localhttp.WriteRPCError(w, http.StatusBadRequest, head.ID, "limbo: no "+sessionHeader+" header: initialize a session first")
			return
		}
		idx, ok := s.take()
		if !ok {
			idx, ok = s.reclaim()
		}
		if !ok {
			localhttp.WriteRPCError(w, http.StatusServiceUnavailable, head.ID, "limbo: every episode of the plan is served; no new session")
			return
		}
		r, err := s.newRun(idx)
		if err != nil {
			s.logf("limbo mcp: %v", err)
			s.release(idx, false, err)
			localhttp.WriteRPCError(w, http.StatusInternalServerError, head.ID, "limbo: "+err.Error())
			return
		}
		es := s.episodeServerFor(r)
		h.ServeHTTP(w, req.WithContext(context.WithValue(req.Context(), episodeServerKey{}, es.srv)))
		if !es.attached() {
			// The session never formed (bad headers, bad initialize): the
			// episode goes back to the queue untouched.
			s.recycle(es)
			s.release(idx, true, nil)
		}
	}), s.opts.AllowedOrigins)
}

// sessionlessDiscover is the first request of clients of the sessionless
// protocol versions.
const sessionlessDiscover = "server/discover"

// IsLoopback reports whether addr (host:port) names a loopback host.
func IsLoopback(addr string) bool { return localhttp.IsLoopback(addr) }

// ServeHTTP listens on addr and serves until ctx is done or every planned
// episode is recorded. Unless allowRemote, addr must be a loopback
// address. ready, if set, gets the bound address (for port 0).
func (s *Server) ServeHTTP(ctx context.Context, addr string, allowRemote bool, ready func(net.Addr)) error {
	// Bodies must arrive within opts.BodyTimeout (set per request by the
	// handler, which lifts it before answering so that SSE streams live on).
	err := localhttp.Serve(ctx, addr, allowRemote, s.Handler(), ready, func(served <-chan error) error {
		select {
		case <-ctx.Done():
		case <-s.Done():
			localhttp.Linger(ctx, s.opts.FinishGrace, s.liveSessions)
		case err := <-served:
			return err
		}
		return nil
	})
	if err != nil {
		return err
	}
	return s.Err()
}

// Failed is the number of episodes that could not be recorded.
func (s *Server) Failed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}
