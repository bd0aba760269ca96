//lint:file-ignore SA1019 roots, sampling and logging are deprecated by the protocol revision 2026-07-28, which the proxy does not speak; the agents and upstreams of the revisions it speaks use them, and the proxy passes them through

package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// What passes between the agent and the upstream besides calls of tools,
// prompts and resources (docs/proxy.md, What passes through):
//
//   - the upstream's list changes: its tools, prompts and resources are
//     listed again and served as they now are (the agents are told);
//   - completion/complete, resources/subscribe and unsubscribe (and the
//     updates of subscribed resources), logging/setLevel (and the log
//     messages, to every session, each filtered at its own level);
//   - the upstream's requests to the agent: sampling/createMessage and
//     elicitation/create go to the agent's session (the one with a tool
//     call in flight, or the only one), refused when its client does not
//     offer them; roots/list is answered with the agent's roots, which the
//     proxy reads when a session starts and when its roots change.
//
// The proxy offers the upstream roots, sampling and elicitation when it
// connects, before any agent has: an agent that does not offer one sees
// the upstream's request refused, as its own client would refuse it.

// events is where an upstream's unasked messages go: the proxy's
// handlers (Proxy.passThrough).
type events struct {
	listChanged     func(list string) // "tools", "prompts" or "resources"
	resourceUpdated func(context.Context, *sdk.ResourceUpdatedNotificationParams)
	log             func(context.Context, *sdk.LoggingMessageParams)
	createMessage   func(context.Context, *sdk.CreateMessageParams) (*sdk.CreateMessageResult, error)
	elicit          func(context.Context, *sdk.ElicitParams) (*sdk.ElicitResult, error)
}

// errNoAgent refuses an upstream's request that no agent can answer.
var errNoAgent = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "limbo proxy: no agent session to pass the request to"}

// serverOptions declare to the agents what the upstream declared (up),
// with its lists' changes followed, and pass through what goes with it.
func (p *Proxy) serverOptions(up *sdk.ServerCapabilities, opts *sdk.ServerOptions) {
	if up == nil {
		up = &sdk.ServerCapabilities{}
	}
	caps := &sdk.ServerCapabilities{}
	if up.Tools != nil || len(p.up.Tools) > 0 || p.opts.Finish {
		caps.Tools = &sdk.ToolCapabilities{ListChanged: true}
	}
	if up.Prompts != nil {
		caps.Prompts = &sdk.PromptCapabilities{ListChanged: true}
	}
	if up.Resources != nil {
		caps.Resources = &sdk.ResourceCapabilities{ListChanged: true, Subscribe: up.Resources.Subscribe}
	}
	if up.Logging != nil {
		caps.Logging = &sdk.LoggingCapabilities{}
	}
	if up.Completions != nil {
		caps.Completions = &sdk.CompletionCapabilities{}
		opts.CompletionHandler = func(ctx context.Context, req *sdk.CompleteRequest) (*sdk.CompleteResult, error) {
			return p.up.Complete(ctx, req.Params)
		}
	}
	if caps.Resources != nil && caps.Resources.Subscribe {
		opts.SubscribeHandler, opts.UnsubscribeHandler = p.subscribe, p.unsubscribe
	}
	opts.Capabilities = caps
	opts.InitializedHandler = func(_ context.Context, req *sdk.InitializedRequest) { go p.syncRoots(req.Session) }
	opts.RootsListChangedHandler = func(_ context.Context, req *sdk.RootsListChangedRequest) { go p.syncRoots(req.Session) }
}

// forwardLogLevel passes the level an agent sets on to the upstream (the
// last one set holds there; each session's messages are filtered at its
// own).
func (p *Proxy) forwardLogLevel(ctx context.Context, req sdk.Request) {
	params, ok := req.GetParams().(*sdk.SetLoggingLevelParams)
	if !ok || params == nil {
		return
	}
	if err := p.up.SetLoggingLevel(ctx, params); err != nil {
		p.logf("passing on the log level %s: %v", params.Level, err)
	}
}

// rootSet is the roots the proxy offers the upstream, by URI.
type rootSet map[string]*sdk.Root

// clientOptions are the proxy's client options towards the upstream: it
// offers the agent's roots, sampling and elicitation, and passes on what
// the upstream sends unasked.
func (u *Upstream) clientOptions() *sdk.ClientOptions {
	ev := func() *events { return u.ev.Load() }
	changed := func(list string) {
		if e := ev(); e != nil && e.listChanged != nil {
			e.listChanged(list)
		}
	}
	return &sdk.ClientOptions{
		Capabilities:               &sdk.ClientCapabilities{RootsV2: &sdk.RootCapabilities{ListChanged: true}},
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { changed("tools") },
		PromptListChangedHandler:   func(context.Context, *sdk.PromptListChangedRequest) { changed("prompts") },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { changed("resources") },
		ResourceUpdatedHandler: func(ctx context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
			if e := ev(); e != nil && e.resourceUpdated != nil {
				e.resourceUpdated(ctx, r.Params)
			}
		},
		LoggingMessageHandler: func(ctx context.Context, r *sdk.LoggingMessageRequest) {
			if e := ev(); e != nil && e.log != nil {
				e.log(ctx, r.Params)
			}
		},
		CreateMessageHandler: func(ctx context.Context, r *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			if e := ev(); e != nil && e.createMessage != nil {
				return e.createMessage(ctx, r.Params)
			}
			return nil, errNoAgent
		},
		ProgressNotificationHandler: func(ctx context.Context, r *sdk.ProgressNotificationClientRequest) {
			u.routeProgress(ctx, r.Params)
		},
		ElicitationHandler: func(ctx context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			if e := ev(); e != nil && e.elicit != nil {
				return e.elicit(ctx, r.Params)
			}
			return nil, errNoAgent
		},
	}
}

// progressPrefix begins the progress tokens the proxy gives the upstream:
// each forwarded call whose agent asked for progress has its own (agents'
// tokens may collide across sessions).
const progressPrefix = "limbo-progress#"

// trackProgress routes the upstream's progress notifications under a new
// token of the proxy's to f, until untrackProgress.
func (u *Upstream) trackProgress(f func(context.Context, *sdk.ProgressNotificationParams)) string {
	tok := progressPrefix + strconv.FormatUint(u.progressN.Add(1), 10)
	u.progress.Store(tok, f)
	return tok
}

func (u *Upstream) untrackProgress(tok string) { u.progress.Delete(tok) }

// routeProgress passes a progress notification (its params) under one of
// the proxy's tokens to its agent, and reports whether the token was one.
func (u *Upstream) routeProgress(ctx context.Context, params *sdk.ProgressNotificationParams) bool {
	tok, ok := params.ProgressToken.(string)
	if !ok {
		return false
	}
	f, ok := u.progress.Load(tok)
	if ok {
		f.(func(context.Context, *sdk.ProgressNotificationParams))(ctx, params)
	}
	return ok
}

// routeRawProgress is routeProgress for the fast path's link, which reads
// the notification's params as JSON text.
func (u *Upstream) routeRawProgress(params []byte) bool {
	var p sdk.ProgressNotificationParams
	if json.Unmarshal(params, &p) != nil {
		return false
	}
	return u.routeProgress(context.Background(), &p)
}

// errReplayed: a replay has no upstream to ask.
var errReplayed = errors.New("limbo proxy: a replay has no upstream to ask")

// Complete forwards a completion request.
func (u *Upstream) Complete(ctx context.Context, p *sdk.CompleteParams) (*sdk.CompleteResult, error) {
	if u.session == nil {
		return nil, errReplayed
	}
	return u.session.Complete(ctx, p)
}

// Subscribe forwards a subscription to a resource's updates.
func (u *Upstream) Subscribe(ctx context.Context, p *sdk.SubscribeParams) error {
	if u.session == nil {
		return errReplayed
	}
	return u.session.Subscribe(ctx, p)
}

// Unsubscribe forwards the end of a subscription.
func (u *Upstream) Unsubscribe(ctx context.Context, p *sdk.UnsubscribeParams) error {
	if u.session == nil {
		return errReplayed
	}
	return u.session.Unsubscribe(ctx, p)
}

// SetLoggingLevel forwards the level of the log messages wanted.
func (u *Upstream) SetLoggingLevel(ctx context.Context, p *sdk.SetLoggingLevelParams) error {
	if u.session == nil {
		return errReplayed
	}
	return u.session.SetLoggingLevel(ctx, p)
}

// setRoots makes the roots the proxy offers the upstream these (the
// agent's); the upstream is told when they change.
func (u *Upstream) setRoots(roots []*sdk.Root) {
	if u.client == nil {
		return
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	want := rootSet{}
	for _, r := range roots {
		want[r.URI] = r
	}
	var gone []string
	for uri := range u.roots {
		if _, ok := want[uri]; !ok {
			gone = append(gone, uri)
		}
	}
	var added []*sdk.Root
	for uri, r := range want {
		if old, ok := u.roots[uri]; !ok || !sameJSON(old, r) {
			added = append(added, r)
		}
	}
	slices.Sort(gone)
	slices.SortFunc(added, func(a, b *sdk.Root) int { return strings.Compare(a.URI, b.URI) })
	if len(gone) > 0 {
		u.client.RemoveRoots(gone...)
	}
	if len(added) > 0 {
		u.client.AddRoots(added...)
	}
	u.roots = want
}

// passThrough routes the upstream's unasked messages to the agents.
func (p *Proxy) passThrough() {
	p.up.ev.Store(&events{
		listChanged: p.listChanged,
		resourceUpdated: func(ctx context.Context, params *sdk.ResourceUpdatedNotificationParams) {
			if err := p.srv.ResourceUpdated(ctx, params); err != nil {
				p.logf("passing on an update of %s: %v", params.URI, err)
			}
		},
		log: func(ctx context.Context, params *sdk.LoggingMessageParams) {
			for _, ss := range p.boundSessions() {
				_ = ss.Log(ctx, params) // filtered at the level the session's client set
			}
		},
		createMessage: func(ctx context.Context, params *sdk.CreateMessageParams) (*sdk.CreateMessageResult, error) {
			ss, err := p.agentFor("sampling", func(c *sdk.ClientCapabilities) bool { return c.Sampling != nil })
			if err != nil {
				return nil, err
			}
			return ss.CreateMessage(ctx, params)
		},
		elicit: func(ctx context.Context, params *sdk.ElicitParams) (*sdk.ElicitResult, error) {
			ss, err := p.agentFor("elicitation", func(c *sdk.ClientCapabilities) bool { return c.Elicitation != nil })
			if err != nil {
				return nil, err
			}
			return ss.Elicit(ctx, params)
		},
	})
}

// listChanged follows a change of one of the upstream's lists, off the
// SDK's reading goroutine (listing again is a request whose answer that
// goroutine reads), one list at a time; a change that comes while its
// list is being listed is followed once more after.
func (p *Proxy) listChanged(list string) {
	p.relistMu.Lock()
	defer p.relistMu.Unlock()
	if p.relist == nil {
		p.relist = map[string]bool{}
	}
	p.relist[list] = true
	if p.relisting {
		return
	}
	p.relisting = true
	go func() {
		for {
			p.relistMu.Lock()
			next := ""
			for _, l := range []string{"tools", "prompts", "resources"} {
				if p.relist[l] {
					next = l
					break
				}
			}
			delete(p.relist, next)
			if next == "" {
				p.relisting = false
			}
			p.relistMu.Unlock()
			if next == "" {
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), p.opts.CallTimeout)
			switch next {
			case "tools":
				p.refreshTools(ctx)
			case "prompts":
				p.refreshPrompts(ctx)
			case "resources":
				p.refreshResources(ctx)
			}
			cancel()
		}
	}()
}

// boundSessions are the sessions bound to an episode.
func (p *Proxy) boundSessions() []*sdk.ServerSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]*sdk.ServerSession, 0, len(p.sessions))
	for ss := range p.sessions {
		out = append(out, ss)
	}
	return out
}

// agentFor is the session an upstream's request goes to: the one with a
// tool call in flight, else the only one. Its client must offer the
// feature.
func (p *Proxy) agentFor(feature string, offers func(*sdk.ClientCapabilities) bool) (*sdk.ServerSession, error) {
	p.mu.Lock()
	var busy, all []*sdk.ServerSession
	for ss, s := range p.sessions {
		all = append(all, ss)
		if s.inFlight() > 0 {
			busy = append(busy, ss)
		}
	}
	p.mu.Unlock()
	var ss *sdk.ServerSession
	switch {
	case len(busy) == 1:
		ss = busy[0]
	case len(busy) == 0 && len(all) == 1:
		ss = all[0]
	case len(all) == 0:
		return nil, errNoAgent
	default:
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: fmt.Sprintf("limbo proxy: %d agent sessions could have asked for %s; the proxy cannot tell which", max(len(busy), len(all)), feature)}
	}
	if ip := ss.InitializeParams(); ip == nil || ip.Capabilities == nil || !offers(ip.Capabilities) {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "the agent's client does not offer " + feature}
	}
	return ss, nil
}

// syncRoots reads a session's roots (its client's answer to roots/list)
// and offers them to the upstream. Only a client that declares roots with
// listChanged is asked (the SDK's server cannot tell "roots": {} from no
// roots); a failed answer leaves the roots offered as they are.
func (p *Proxy) syncRoots(ss *sdk.ServerSession) {
	if ip := ss.InitializeParams(); ip == nil || ip.Capabilities == nil || !ip.Capabilities.Roots.ListChanged {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := ss.ListRoots(ctx, nil)
	if err != nil || res == nil {
		return
	}
	p.up.setRoots(res.Roots)
}

// subscriptions counts the sessions subscribed to each resource, so that
// the upstream is asked once and told when the last one leaves.
type subscriptions struct {
	mu sync.Mutex
	n  map[string]int
}

func (p *Proxy) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	p.subs.mu.Lock()
	defer p.subs.mu.Unlock()
	if p.subs.n == nil {
		p.subs.n = map[string]int{}
	}
	if p.subs.n[req.Params.URI] == 0 {
		if err := p.up.Subscribe(ctx, req.Params); err != nil {
			return err
		}
	}
	p.subs.n[req.Params.URI]++
	return nil
}

func (p *Proxy) unsubscribe(ctx context.Context, req *sdk.UnsubscribeRequest) error {
	p.subs.mu.Lock()
	defer p.subs.mu.Unlock()
	switch p.subs.n[req.Params.URI] {
	case 0:
		return nil
	case 1:
		if err := p.up.Unsubscribe(ctx, req.Params); err != nil {
			return err
		}
		delete(p.subs.n, req.Params.URI)
	default:
		p.subs.n[req.Params.URI]--
	}
	return nil
}

// headerOf is an HTTP request's header (nil over stdio).
func headerOf(req *sdk.CallToolRequest) http.Header {
	if req.Extra != nil {
		return req.Extra.Header
	}
	return nil
}
