package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/finish"
	"github.com/limbo-toolkit/limbo/mcp/ledgerfile"
)

// Options configure a Proxy.
type Options struct {
	Upstream *Upstream
	// Contract is the tools' contract, resolved against the upstream's
	// tools (Contract.Resolve).
	Contract *Contract
	// Plan lists the episodes, one per session in order; the ledger's
	// recorded ones are skipped. Without a plan every session is an
	// episode of Single, at the first repetition the ledger lacks from
	// Single.Rep on.
	Plan   []Episode
	Single Episode
	// HTTP: the sessions come over streamable HTTP (the transport faults
	// can be injected); otherwise one session comes over stdio.
	HTTP bool
	// Ledger receives one raw line per episode; nil records nothing.
	Ledger *ledgerfile.Ledger
	// Finish offers the finish tool, through which the agent reports its
	// status and uncertainties (the episode then ends).
	Finish bool
	// Service labels the ledger's service column; "" takes the
	// upstream's name.
	Service string
	// Seed seeds the tail delays (TailDelay) and is recorded.
	Seed uint64
	// LateDelay is timeout_late's delay (default 90 s), TailScale scales
	// the drawn tail delays (default 1), RedeliveryDelay is the time
	// between a redelivered call and its copy (zero: 3 s; negative: at
	// once).
	LateDelay       time.Duration
	TailScale       float64
	RedeliveryDelay time.Duration
	// ClientTimeoutS is the timeout a timeout's message names (default
	// 30 s; the proxy answers at once, as serve does).
	ClientTimeoutS float64
	// CallTimeout bounds one forwarded call (default 10 minutes).
	CallTimeout time.Duration
	// Guard, if set, stands in front of the fault injection on every
	// non-idempotent write (GuardOptions).
	Guard *GuardOptions
	// Middleware, if set, wraps the call path in front of the guard and
	// the fault injection.
	Middleware Middleware
	// Contract label of the episodes (native; keys-everywhere for a guard
	// that gives every write a key).
	ContractLabel string
	// Log gets a line per ended episode and notices; nil discards.
	Log io.Writer
	// OnEpisode, if set, is called with every recorded episode.
	OnEpisode func(*ledger.RawEpisode, ledger.Episode)
	// Version is the proxy's version.
	Version string
	// MaxArgBytes bounds one call's arguments (default 1 MiB).
	MaxArgBytes int
}

// Defaults.
const (
	DefaultLateDelay       = 90 * time.Second // docs/simulation.md, Fault modes: timeout_late executes 90 s after send
	DefaultRedeliveryDelay = 3 * time.Second  // the sandbox's redelivery delay
	DefaultCallTimeout     = 10 * time.Minute
)

// Proxy serves the upstream's tools, prompts and resources to agents, one
// episode per MCP session, with the faults of its episodes and a ledger.
type Proxy struct {
	opts Options
	up   *Upstream
	srv  *sdk.Server

	mu       sync.Mutex
	ended    *sync.Cond                      // on mu: an episode ended (active fell)
	queue    []int                           // pending plan indices
	active   int                             // episodes taken and not ended
	nextRep  int                             // without a plan: the next repetition to try
	sessions map[*sdk.ServerSession]*session // bound sessions
	lost     *session                        // a session_lost episode awaiting its continuation
	failed   error                           // the first recording error
	done     chan struct{}                   // closed when the plan is done
	closed   bool
	// transport faults the HTTP layer applies, by request token
	transport map[string]transportFault

	middleware Middleware // the guard's and Options.Middleware, composed

	state     atomic.Pointer[toolState] // the upstream's tools as now listed
	fastCalls atomic.Int64              // calls answered by the fast path

	// The upstream's prompts, resources and templates as served (the
	// refreshes, which replace them, run one at a time).
	prompts   []*sdk.Prompt
	resources []*sdk.Resource
	templates []*sdk.ResourceTemplate
	relistMu  sync.Mutex
	relist    map[string]bool // lists changed and not yet listed again
	relisting bool
	subs      subscriptions
}

// New builds the proxy's server over the upstream.
func New(opts Options) (*Proxy, error) {
	if opts.Upstream == nil || opts.Contract == nil {
		return nil, errors.New("proxy: New needs an upstream and a resolved contract")
	}
	if opts.LateDelay <= 0 {
		opts.LateDelay = DefaultLateDelay
	}
	switch {
	case opts.RedeliveryDelay == 0:
		opts.RedeliveryDelay = DefaultRedeliveryDelay
	case opts.RedeliveryDelay < 0:
		opts.RedeliveryDelay = 0
	}
	if opts.TailScale <= 0 {
		opts.TailScale = 1
	}
	if opts.ClientTimeoutS <= 0 {
		opts.ClientTimeoutS = DefaultClientTimeoutS
	}
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = DefaultCallTimeout
	}
	if opts.MaxArgBytes <= 0 {
		opts.MaxArgBytes = 1 << 20
	}
	if opts.ContractLabel == "" {
		opts.ContractLabel = ledger.ContractNative
		if opts.Guard != nil && opts.Guard.Config.Policy == guard.Keys {
			// Every non-idempotent write takes a key: the keys-everywhere
			// contract.
			opts.ContractLabel = ledger.ContractKeysEverywhere
		}
	}
	if opts.Service == "" {
		opts.Service = opts.Upstream.Name()
	}
	if opts.Service == "" {
		opts.Service = "upstream"
	}
	if opts.Finish {
		for _, t := range opts.Upstream.Tools {
			if t.Name == finish.Name {
				return nil, errors.New("the upstream has a tool named finish already: the proxy cannot offer its own")
			}
		}
	}
	p := &Proxy{opts: opts, up: opts.Upstream, sessions: map[*sdk.ServerSession]*session{}, done: make(chan struct{}), transport: map[string]transportFault{}}
	p.ended = sync.NewCond(&p.mu)
	p.state.Store(p.newToolState(opts.Upstream.Tools, opts.Contract, nil))
	if gopts := opts.Guard; gopts != nil {
		mw, err := p.guardMiddleware(gopts)
		if err != nil {
			return nil, err
		}
		p.middleware = mw
	}
	if mw := opts.Middleware; mw != nil {
		// It reads Answer.Result: the answers it gets are decoded.
		if inner := p.middleware; inner != nil {
			p.middleware = func(next Handler) Handler { return mw(typedAnswers(inner(next))) }
		} else {
			p.middleware = func(next Handler) Handler { return mw(typedAnswers(next)) }
		}
	}
	if opts.Plan != nil {
		if err := checkTools(opts.Plan, opts.Contract); err != nil {
			return nil, err
		}
		for i := range opts.Plan {
			if opts.Ledger == nil || !opts.Ledger.Has(opts.Plan[i].EpisodeID) {
				p.queue = append(p.queue, i)
			}
		}
	} else {
		if err := checkTools([]Episode{opts.Single}, opts.Contract); err != nil {
			return nil, errors.Unwrap(err)
		}
		p.nextRep = max(opts.Single.Rep, 0)
	}
	p.build()
	p.passThrough()
	p.checkDone()
	return p, nil
}

// Pending is the number of planned episodes not yet served (-1 without
// a plan).
func (p *Proxy) Pending() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.opts.Plan == nil {
		return -1
	}
	return len(p.queue)
}

// Done is closed when every planned episode is recorded and no session is
// active (never without a plan).
func (p *Proxy) Done() <-chan struct{} { return p.done }

// Err is the first recording error, if any.
func (p *Proxy) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed
}

func (p *Proxy) checkDone() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.closed && p.opts.Plan != nil && len(p.queue) == 0 && p.active == 0 && p.lost == nil {
		p.closed = true
		close(p.done)
	}
}

func (p *Proxy) logf(format string, a ...any) {
	if p.opts.Log != nil {
		fmt.Fprintf(p.opts.Log, "limbo-analyze proxy: "+format+"\n", a...)
	}
}

// ErrNothingPending: every planned episode is in the ledger.
var ErrNothingPending = errors.New("every episode of the plan is already in the ledger")

// take returns the next episode: the next pending plan entry, or the
// single world at its next free repetition.
func (p *Proxy) take() (Episode, int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.opts.Plan != nil {
		if len(p.queue) == 0 {
			return Episode{}, -1, false
		}
		i := p.queue[0]
		p.queue = p.queue[1:]
		p.active++
		return p.opts.Plan[i], i, true
	}
	e := p.opts.Single
	for {
		e.Rep = p.nextRep
		p.nextRep++
		e.EpisodeID = e.Key(p.opts.ContractLabel)
		if p.opts.Ledger == nil || !p.opts.Ledger.Has(e.EpisodeID) {
			break
		}
	}
	p.active++
	return e, -1, true
}

// release ends a taken episode; an idle one (no tool call) is put back.
func (p *Proxy) release(s *session, requeue bool, err error) {
	p.mu.Lock()
	p.active--
	if requeue {
		if s.planIndex >= 0 {
			p.queue = append([]int{s.planIndex}, p.queue...)
		} else if s.ep.Rep < p.nextRep {
			p.nextRep = s.ep.Rep
		}
	}
	if err != nil && p.failed == nil {
		p.failed = err
	}
	p.ended.Broadcast()
	p.mu.Unlock()
	p.checkDone()
}

// build makes the SDK server that every session shares: the upstream's
// tools (schemas, annotations, output schemas as listed), prompts,
// resources and templates, each forwarded, and finish; what else passes
// through (passthrough.go) is declared as the upstream declares it.
func (p *Proxy) build() {
	info := p.up.Info()
	impl := &sdk.Implementation{Name: "limbo-proxy", Version: p.opts.Version}
	if info.ServerInfo != nil {
		// The agent sees the upstream's name: the proxy is transparent.
		si := *info.ServerInfo
		impl = &si
	}
	opts := &sdk.ServerOptions{
		Instructions:              info.Instructions,
		SupportedProtocolVersions: legacyVersions(),
	}
	p.serverOptions(info.Capabilities, opts)
	srv := sdk.NewServer(impl, opts)
	p.srv = srv
	st := p.tools()
	for _, t := range st.tools {
		p.addTool(t, st)
	}
	if p.opts.Finish {
		srv.AddTool(finish.Tool(false), func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			s := p.sessionOf(req.Session)
			if s == nil {
				return textResult("the session has no episode (it ended)", true), nil
			}
			rep, complaint, err := finish.Parse(req.Params.Arguments, p.opts.MaxArgBytes)
			if err != nil {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
			}
			if complaint != "" {
				return textResult(complaint, true), nil
			}
			if msg, ok := s.end(endFinish, &rep); !ok {
				return textResult(msg, true), nil
			}
			return finish.Result(finish.Accepted), nil
		})
	}
	p.prompts, p.resources, p.templates = p.up.Prompts, p.up.Resources, p.up.Templates
	for _, pr := range p.prompts {
		p.addPrompt(pr)
	}
	for _, r := range p.resources {
		srv.AddResource(r, p.readResource)
	}
	for _, t := range p.templates {
		srv.AddResourceTemplate(t, p.readResource)
	}
	// On initialize: bind the session to an episode, and end the episode
	// when the session ends. A log level the agent sets is the
	// upstream's too.
	srv.AddReceivingMiddleware(func(next sdk.MethodHandler) sdk.MethodHandler {
		return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
			if method == "logging/setLevel" {
				p.forwardLogLevel(ctx, req)
			}
			if method != "initialize" {
				return next(ctx, method, req)
			}
			ss, _ := req.GetSession().(*sdk.ServerSession)
			s, err := p.bind(ss)
			if err != nil {
				return nil, err
			}
			res, err := next(ctx, method, req)
			if s != nil && ss != nil {
				go func() {
					_ = ss.Wait()
					p.unbind(ss, s)
				}()
			}
			return res, err
		}
	})
}

// legacyVersions are the protocol versions with an initialize handshake,
// on which one session is one episode.
func legacyVersions() []string {
	var vs []string
	for _, v := range sdk.SupportedProtocolVersions() {
		if v < "2026-07-28" {
			vs = append(vs, v)
		}
	}
	return vs
}

// errNoEpisode refuses a session when the plan is done.
var errNoEpisode = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "limbo proxy: every episode of the plan is served; no new session"}

// bind gives a new session its episode: the continuation of an episode
// whose session was lost, or the next one.
func (p *Proxy) bind(ss *sdk.ServerSession) (*session, error) {
	if ss == nil {
		return nil, nil
	}
	p.mu.Lock()
	if s := p.lost; s != nil {
		p.lost = nil
		p.sessions[ss] = s
		p.mu.Unlock()
		s.resume(ss)
		p.logf("episode %s: continued in a new session (the harness reconnected after session_lost)", s.ep.EpisodeID)
		return s, nil
	}
	if s := p.sessions[ss]; s != nil {
		p.mu.Unlock()
		return s, nil
	}
	p.mu.Unlock()
	ep, idx, ok := p.take()
	if !ok {
		return nil, errNoEpisode
	}
	s := p.newSession(ep, idx, ss)
	p.mu.Lock()
	p.sessions[ss] = s
	p.mu.Unlock()
	return s, nil
}

// unbind ends the episode of a session that ended, unless its session
// was lost on purpose (session_lost): then the episode waits for the
// harness to reconnect, for as long as a session may idle.
func (p *Proxy) unbind(ss *sdk.ServerSession, s *session) {
	p.mu.Lock()
	delete(p.sessions, ss)
	if s.awaitingResume() {
		p.lost = s
		p.mu.Unlock()
		time.AfterFunc(resumeWait, func() {
			p.mu.Lock()
			stillLost := p.lost == s
			if stillLost {
				p.lost = nil
			}
			p.mu.Unlock()
			if stillLost {
				s.end(endDisconnect, nil)
				p.checkDone()
			}
		})
		return
	}
	p.mu.Unlock()
	s.end(endDisconnect, nil)
}

// resumeWait is how long an episode whose session was lost waits for the
// harness's new session.
var resumeWait = time.Minute

func (p *Proxy) sessionOf(ss *sdk.ServerSession) *session {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sessions[ss]
}

// Server is the SDK server (for an in-process transport).
func (p *Proxy) Server() *sdk.Server { return p.srv }

// ServeStdio serves one session over the transport (the process's stdio
// behind stdioguard) until the client disconnects, and records its
// episode. With a plan whose episodes are all recorded it returns
// ErrNothingPending at once.
func (p *Proxy) ServeStdio(ctx context.Context, t sdk.Transport) error {
	if p.Pending() == 0 {
		return ErrNothingPending
	}
	var fast *rawServer
	if it, ok := t.(*sdk.IOTransport); ok {
		// A byte stream: the tool calls take the fast path (rawserve.go).
		fast = newRawServer(ctx, p, it.Reader, it.Writer)
		t = &sdk.IOTransport{Reader: fast, Writer: it.Writer, MaxLineLength: it.MaxLineLength}
	}
	ss, err := p.srv.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	if fast != nil {
		fast.ss.Store(ss)
	}
	wait := make(chan error, 1)
	go func() { wait <- ss.Wait() }()
	select {
	case err = <-wait:
	case <-ctx.Done():
		ss.Close()
		err = <-wait
	case <-p.up.Done():
		// The upstream died: the session's episode is recorded as it
		// stands, and the proxy fails.
		ss.Close()
		<-wait
		p.endAll(endUpstream)
		if uerr := p.up.Err(); uerr != nil {
			return uerr
		}
		return nil
	}
	// The episode ends with the session (unbind); wait for its line.
	p.mu.Lock()
	s := p.sessions[ss]
	p.mu.Unlock()
	if s != nil {
		s.end(endDisconnect, nil)
	}
	p.waitEnded()
	if err != nil && !peerGone(err) {
		return err
	}
	return p.Err()
}

// peerGone reports an error that says the client closed the session (its
// end of the stream, while the proxy was still writing to it: a request
// of its own, such as roots/list, or a log message).
func peerGone(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, sdk.ErrConnectionClosed) || errors.Is(err, context.Canceled) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE)
}

// waitEnded waits for the episodes taken to be recorded.
func (p *Proxy) waitEnded() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.active > 0 {
		p.ended.Wait()
	}
}

// endAll ends every live episode (the upstream failed, or the proxy is
// stopping).
func (p *Proxy) endAll(reason string) {
	p.mu.Lock()
	var live []*session
	seen := map[*session]bool{}
	for _, s := range p.sessions {
		if !seen[s] {
			seen[s] = true
			live = append(live, s)
		}
	}
	if p.lost != nil && !seen[p.lost] {
		live = append(live, p.lost)
		p.lost = nil
	}
	p.mu.Unlock()
	for _, s := range live {
		s.end(reason, nil)
	}
	p.checkDone()
}

func textResult(text string, isErr bool) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: text}}, IsError: isErr}
}

// encodeLine is the ledger line of an episode: the graded design and
// outcome fields with the calls, effects, final report and rules, then the
// extra fields (the upstream's name), sorted, as serve writes its lines.
func encodeLine(raw *ledger.RawEpisode, graded ledger.Episode) ([]byte, error) {
	r := *raw
	r.Episode = graded
	b, err := json.Marshal(&r)
	if err != nil || len(raw.Extra) == 0 || len(b) < 2 {
		return b, err
	}
	b = b[:len(b)-1]
	for _, k := range slices.Sorted(maps.Keys(raw.Extra)) {
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(raw.Extra[k])
		b = append(append(append(append(b, ','), kb...), ':'), vb...)
	}
	return append(b, '}'), nil
}
