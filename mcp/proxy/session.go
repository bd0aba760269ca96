package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/internal/jsonptr"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Call is one tool call on its way from the agent to the upstream, as the
// middleware seam (a guard) sees it.
type Call struct {
	EpisodeID string
	Seq       int64
	Tool      string
	Args      json.RawMessage // as the agent sent them
	Rule      ledger.ToolRule // the tool's contract
	Key       string          // the value of the call's key argument (the contract's, or the keys guard's), if any

	// upstreamArgs are the arguments forwarded: Args less a key argument
	// the keys guard added (the upstream does not know it).
	upstreamArgs json.RawMessage

	fault string // the fault mode applied to it ("" or none: none)
	from  origin
}

// origin is where a call came from: the agent's session, the HTTP
// request's header (transport faults), the agent's progress token.
type origin struct {
	header   http.Header
	ss       *sdk.ServerSession
	progress any // nil: the agent wants no progress notifications
}

// Answer is what a call gets.
type Answer struct {
	Result  *sdk.CallToolResult // the agent's result, or nil with Err
	Err     error               // a JSON-RPC error passed to the agent
	Outcome string              // the ledger's outcome of the call
	// Replayed: answered without reaching the upstream (a guard's replay
	// of a completed key), recorded as an absorbed effect.
	Replayed bool

	// raw is the result as JSON text, as the upstream sent it (the fast
	// path), when Result is nil; rawErr is its isError. Options.Middleware
	// sees Result set: the proxy decodes raw for it.
	raw    json.RawMessage
	rawErr bool
}

// hasResult reports whether the answer carries a result.
func (a *Answer) hasResult() bool { return a.Result != nil || a.raw != nil }

// isError is the result's isError.
func (a *Answer) isError() bool {
	if a.Result != nil {
		return a.Result.IsError
	}
	return a.rawErr
}

// typed decodes a result that came as JSON text (for the SDK's server,
// and for Options.Middleware).
func (a *Answer) typed() error {
	if a.Result != nil || a.raw == nil {
		return nil
	}
	var res sdk.CallToolResult
	if err := json.Unmarshal(a.raw, &res); err != nil {
		return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the upstream's result does not decode: " + err.Error()}
	}
	a.Result, a.raw = &res, nil
	return nil
}

// resultJSON is the result as JSON text: as the upstream sent it, or
// encoded as the SDK's server encodes it.
func (a *Answer) resultJSON() (json.RawMessage, error) {
	if a.raw != nil {
		return a.raw, nil
	}
	res := a.Result
	if res.Content == nil {
		cp := *res
		cp.Content = []sdk.Content{} // as the SDK's server: no null
		res = &cp
	}
	return json.Marshal(res)
}

// typedAnswers makes the answers of a handler carry decoded results, for
// a middleware that reads Answer.Result.
func typedAnswers(next Handler) Handler {
	return func(ctx context.Context, c *Call) Answer {
		a := next(ctx, c)
		if err := a.typed(); err != nil {
			return Answer{Err: err, Outcome: ledger.OutcomeHTTP500}
		}
		return a
	}
}

// Handler answers a call.
type Handler func(ctx context.Context, c *Call) Answer

// Middleware wraps the handler that injects the faults and forwards to
// the upstream: the seam where a guard stands between the agent and the
// commit boundary.
type Middleware func(next Handler) Handler

// Episode end reasons.
const (
	endFinish     = "finish"
	endDisconnect = "disconnect"
	endUpstream   = "upstream failed"
)

// session is one episode in progress.
type session struct {
	p         *Proxy
	ep        Episode
	planIndex int
	start     time.Time
	delay     time.Duration // the late delay of a late mode
	handler   Handler

	mu        sync.Mutex
	calls     []ledger.Call
	effects   []execution // graded at the end (effects)
	perTool   map[string]int
	focalTool string
	focalSeq  int64
	focalIDs  []string
	fired     bool
	lost      bool // the session was lost on purpose; the episode goes on
	ended     bool
	reason    string
	requests  int
	busy      int // tool calls in flight

	pending sync.WaitGroup // late and redelivered copies not yet delivered
	flush   chan struct{}  // closed at the end: pending copies go at once
	done    chan struct{}  // closed when the episode is recorded
}

func (p *Proxy) newSession(ep Episode, idx int, ss *sdk.ServerSession) *session {
	s := &session{p: p, ep: ep, planIndex: idx, start: time.Now(), perTool: map[string]int{},
		flush: make(chan struct{}), done: make(chan struct{}), focalTool: ep.Tool}
	switch ep.FaultMode {
	case ledger.FaultTimeoutLate:
		s.delay = p.opts.LateDelay
		if ep.DelayS > 0 {
			s.delay = seconds(ep.DelayS)
		}
	case ledger.FaultTimeoutLateTail:
		s.delay = time.Duration(float64(TailDelay(p.opts.Seed, ep.PairKey())) * p.opts.TailScale)
		if ep.DelayS > 0 {
			s.delay = seconds(ep.DelayS)
		}
	}
	s.handler = s.forward
	if p.middleware != nil {
		s.handler = p.middleware(s.handler)
	}
	return s
}

func seconds(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// since is the episode's clock: real seconds since the session began.
// Rounded to the microsecond: finer digits are noise.
func (s *session) since() float64 {
	return math.Round(time.Since(s.start).Seconds()*1e6) / 1e6
}

func (s *session) endedMsg() string {
	return fmt.Sprintf("the episode has ended (%s); no further calls are accepted", s.reason)
}

// call is a tool call through the SDK's server: run, with the result
// decoded.
func (s *session) call(ctx context.Context, tool string, raw json.RawMessage, structured bool, from origin) (*sdk.CallToolResult, error) {
	a := s.run(ctx, tool, raw, structured, from)
	if a.Err != nil {
		return nil, a.Err
	}
	if err := a.typed(); err != nil {
		return nil, err
	}
	return a.Result, nil
}

// run records one tool call of the agent, decides whether it is the
// focal call, and passes it through the middleware to the fault injection
// and the upstream. The answer's result may be JSON text (Answer.raw).
func (s *session) run(ctx context.Context, tool string, raw json.RawMessage, structured bool, from origin) Answer {
	if len(raw) > s.p.opts.MaxArgBytes {
		return Answer{Err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("arguments of %d bytes exceed the limit of %d", len(raw), s.p.opts.MaxArgBytes)}}
	}
	compactB, err := compactObject(raw)
	if err != nil {
		return Answer{Err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}}
	}
	compact := string(compactB)
	st := s.p.tools()
	spec := st.contract.Tools[tool]
	rule := st.rules.Tools[tool]
	key := ""
	if karg := rule.Key; karg != "" {
		if v := member(compactB, karg); len(v) > 0 && v[0] == '"' {
			_ = json.Unmarshal(v, &key)
		}
	}
	upArgs := json.RawMessage(compactB)
	if st.keyAdded[tool] && member(compactB, KeyArg) != nil {
		// The keys guard's own argument: the upstream does not know it.
		args, _ := decodeObject(compactB)
		delete(args, KeyArg)
		upArgs, _ = json.Marshal(args)
	}
	s.mu.Lock()
	if s.ended {
		defer s.mu.Unlock()
		return Answer{Result: textResult(s.endedMsg(), true)}
	}
	s.requests++
	s.busy++
	seq := int64(len(s.calls) + 1)
	t0 := s.since()
	s.perTool[tool]++
	mode := ""
	focal := false
	switch {
	case s.ep.Tool != "":
		focal = tool == s.ep.Tool && s.perTool[tool] == s.ep.Occurrence
	case s.focalSeq == 0 && spec.Kind == ledger.KindWrite:
		// Under none without a tool, the session's first write is focal.
		focal, s.focalTool = true, tool
	}
	if focal {
		s.focalSeq = seq
		s.focalIDs, _ = st.rules.Identities(tool, compact)
		mode = s.ep.FaultMode
		if mode == ledger.FaultNone || mode == ledger.FaultTimeoutPre || mode == ledger.FaultHTTP500Pre {
			s.fired = true // applied as the call came in; nothing upstream to wait for
		}
	}
	idx := len(s.calls)
	s.calls = append(s.calls, ledger.Call{Seq: seq, TS: t0, Tool: tool, Args: compact, IdempotencyKey: key})
	s.mu.Unlock()

	c := &Call{EpisodeID: s.ep.EpisodeID, Seq: seq, Tool: tool, Args: json.RawMessage(compactB), Rule: rule, Key: key, upstreamArgs: upArgs, fault: mode, from: from}
	a := s.handler(ctx, c)
	if a.hasResult() && a.isError() && a.Outcome == "" {
		a.Outcome = ledger.OutcomeHTTP400
	}
	if a.Outcome == "" {
		a.Outcome = ledger.OutcomeOK
	}
	if a.Result != nil && !structured {
		// A fault's answer carries structured content only where the
		// tool declares no output schema.
		if r := a.Result; r.IsError && r.StructuredContent != nil && isFaultText(r) {
			cp := *r
			cp.StructuredContent = nil
			a.Result = &cp
		}
	}
	s.mu.Lock()
	s.busy--
	s.calls[idx].Outcome = a.Outcome
	s.calls[idx].LatencyS = math.Round((s.since()-t0)*1e6) / 1e6
	if a.Replayed && rule.Kind == ledger.KindWrite {
		s.recordLocked(c, ledger.SourceAgent, t0, true, -1)
	}
	s.mu.Unlock()
	return a
}

// isFaultText tells a fault's answer (faultResult) from an upstream's.
func isFaultText(r *sdk.CallToolResult) bool {
	if len(r.Content) != 1 {
		return false
	}
	t, ok := r.Content[0].(*sdk.TextContent)
	return ok && bytes.HasPrefix([]byte(t.Text), []byte(`{"outcome":`))
}

// forward is the innermost handler: the fault of the call at the commit
// boundary, and the upstream.
func (s *session) forward(ctx context.Context, c *Call) Answer {
	now := s.since()
	timeout := func() Answer {
		return Answer{Result: faultResult(ledger.OutcomeTimeout, timeoutMsg(s.p.opts.ClientTimeoutS), s.since(), true), Outcome: ledger.OutcomeTimeout}
	}
	http500 := func() Answer {
		return Answer{Result: faultResult(ledger.OutcomeHTTP500, msg500, s.since(), true), Outcome: ledger.OutcomeHTTP500}
	}
	switch c.fault {
	case ledger.FaultTimeoutPre:
		return timeout()
	case ledger.FaultHTTP500Pre:
		return http500()
	case ledger.FaultTimeoutLate, ledger.FaultTimeoutLateTail:
		// Fired as the timeout is answered: the agent saw the fault, and
		// the request goes on to the upstream whatever it then makes of
		// it (a conditional write refuses a copy its retry overtook).
		s.setFired(true)
		s.later(c, s.delay, ledger.SourceLate, now, c.upstreamArgs, func(bool) {})
		return timeout()
	case ledger.FaultPartialBatch:
		args, n, ok := s.prefix(c)
		if !ok {
			break // no batch to cut: forwarded whole, the fault not fired
		}
		r := s.upstream(c, args, true)
		if ok := s.executed(c, r, ledger.SourcePartial, now, n); ok {
			s.setFired(true)
			return http500()
		}
		return s.answer(r)
	}
	r := s.upstream(c, c.upstreamArgs, true)
	ok := s.executed(c, r, ledger.SourceAgent, now, -1)
	switch c.fault {
	case ledger.FaultTimeoutPost:
		if ok {
			s.setFired(true)
			return timeout()
		}
	case ledger.FaultHTTP500Post:
		if ok {
			s.setFired(true)
			return http500()
		}
	case ledger.FaultRedelivery:
		if ok {
			// The transport delivers the request again; the agent sees
			// one answer.
			s.later(c, s.p.opts.RedeliveryDelay, ledger.SourceRedelivery, now, c.upstreamArgs, func(bool) { s.setFired(true) })
		}
	case ledger.FaultSessionLost, ledger.FaultStreamDrop:
		if ok {
			s.setFired(true)
			if c.fault == ledger.FaultSessionLost {
				s.mu.Lock()
				s.lost = true
				s.mu.Unlock()
			}
			s.p.applyTransport(c, s)
			// The answer never reaches the agent, which sees what the
			// catalogue says (no response: a timeout).
			a := s.answer(r)
			m, _ := ledger.FaultByName(c.fault)
			a.Outcome = m.Observed
			return a
		}
	}
	return s.answer(r)
}

// inFlight is the number of the session's tool calls in flight.
func (s *session) inFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy
}

func (s *session) setFired(ok bool) {
	if !ok {
		return
	}
	s.mu.Lock()
	s.fired = true
	s.mu.Unlock()
}

// upstream forwards a call with these arguments, bounded by the call
// timeout; it does not end with the agent's request (a late or dropped
// answer still commits). The upstream's progress notifications reach the
// agent when it asked for them and awaits this answer (live).
func (s *session) upstream(c *Call, args json.RawMessage, live bool) upReply {
	ctx, cancel := context.WithTimeout(context.Background(), s.p.opts.CallTimeout)
	defer cancel()
	token := ""
	if live && c.from.progress != nil && c.from.ss != nil {
		ss, theirs := c.from.ss, c.from.progress
		token = s.p.up.trackProgress(func(ctx context.Context, p *sdk.ProgressNotificationParams) {
			cp := *p
			cp.ProgressToken = theirs
			_ = ss.NotifyProgress(ctx, &cp)
		})
		defer s.p.up.untrackProgress(token)
	}
	return s.p.up.call(ctx, c.Tool, args, token)
}

// answer is the agent's answer to a forwarded call: the upstream's
// result, its JSON-RPC error, or for a failed upstream an HTTP 500.
func (s *session) answer(r upReply) Answer {
	outcome := ledger.OutcomeOK
	if r.isErr {
		outcome = ledger.OutcomeHTTP400
	}
	err := r.err
	switch {
	case err == nil && r.raw != nil:
		return Answer{raw: r.raw, rawErr: r.isErr, Outcome: outcome}
	case err == nil && r.res != nil:
		return Answer{Result: r.res, Outcome: outcome}
	case err == nil:
		err = errors.New("no result")
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) {
		return Answer{Err: we, Outcome: ledger.OutcomeHTTP400}
	}
	return Answer{Result: faultResult(ledger.OutcomeHTTP500, "upstream failed: "+oneLine(err), s.since(), true), Outcome: ledger.OutcomeHTTP500}
}

// executed records the effects of a forwarded write that the upstream
// carried out (answered without error): one, or one per forwarded batch
// item (items < 0: the batch whole). It reports whether it was executed.
func (s *session) executed(c *Call, r upReply, source string, issued float64, items int) bool {
	if !r.ok() {
		return false
	}
	if c.Rule.Kind != ledger.KindWrite {
		return true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.recordLocked(c, source, issued, false, items)
	return true
}

// execution is one execution of a write by the upstream, as it happened;
// its effects (one per batch item) are worked out when the episode is
// recorded, off the call path.
type execution struct {
	c                 *Call
	source            string
	issued, committed float64
	absorbed          bool
	limit             int      // the first limit items (< 0: all)
	focalIDs          []string // the focal call's effects as known when it ran
}

// recordLocked notes one execution of c: one effect per batch item (the
// first limit of them; limit < 0: all), or one.
func (s *session) recordLocked(c *Call, source string, issued float64, absorbed bool, limit int) {
	s.effects = append(s.effects, execution{c: c, source: source, issued: issued, committed: s.since(), absorbed: absorbed, limit: limit, focalIDs: s.focalIDs})
}

// effectsOf are the ledger's effects of the executions, in order: each
// one's logical effects, numbered by attempt.
func (p *Proxy) effectsOf(execs []execution) []ledger.Effect {
	type ided struct {
		ids   []string
		batch bool
	}
	byCall := map[*Call]ided{}
	attempts := map[string]int64{}
	var out []ledger.Effect
	for _, x := range execs {
		c := x.c
		e, seen := byCall[c]
		if !seen {
			e.ids, _ = p.rules().Identities(c.Tool, string(c.Args))
			if len(e.ids) == 0 {
				e.ids = []string{""}
			}
			e.batch = c.Rule.Batch != "" && isBatchCall(c)
			byCall[c] = e
		}
		for i, id := range e.ids {
			if x.limit >= 0 && i >= x.limit {
				break
			}
			res := ""
			if e.batch {
				res = strconv.Itoa(i)
			}
			attempts[id]++
			out = append(out, ledger.Effect{
				Seq: c.Seq, Service: p.opts.Service, Tool: c.Tool, ResourceID: res, IdempotencyKey: c.Key,
				Attempt: attempts[id], IssuedAtS: x.issued, CommittedAtS: x.committed, Source: x.source, Absorbed: x.absorbed, Focal: slices.Contains(x.focalIDs, id),
			})
		}
	}
	return out
}

// isBatchCall reports whether the call's arguments hold the batch's array.
func isBatchCall(c *Call) bool {
	p, err := jsonptr.Parse(c.Rule.Batch)
	if err != nil {
		return false
	}
	args, _ := decodeObject(c.Args)
	v, ok := p.Get(args)
	_, isArr := v.([]any)
	return ok && isArr
}

// prefix is partial_batch's arguments: the batch's first ⌈n/2⌉ items (the
// sandbox's non-atomic batch). ok is false when there is no batch to cut.
func (s *session) prefix(c *Call) (json.RawMessage, int, bool) {
	p, err := jsonptr.Parse(c.Rule.Batch)
	if err != nil || c.Rule.Batch == "" {
		return nil, 0, false
	}
	args, err := decodeObject(c.upstreamArgs)
	if err != nil {
		return nil, 0, false
	}
	v, ok := p.Get(args)
	items, isArr := v.([]any)
	if !ok || !isArr || len(items) == 0 {
		return nil, 0, false
	}
	k := (len(items) + 1) / 2
	cut, ok := p.With(args, items[:k])
	if !ok {
		return nil, 0, false
	}
	b, err := json.Marshal(cut)
	if err != nil {
		return nil, 0, false
	}
	return b, k, true
}

// later delivers a copy of the call after d (at once when the episode
// ends first: the agent can no longer see when it lands), records its
// effect with the source, and tells done whether it executed.
func (s *session) later(c *Call, d time.Duration, source string, issued float64, args json.RawMessage, done func(ok bool)) {
	s.pending.Add(1)
	go func() {
		defer s.pending.Done()
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-s.flush:
			t.Stop()
		}
		r := s.upstream(c, args, false)
		ok := s.executed(c, r, source, issued, -1)
		if source == ledger.SourceRedelivery {
			ok = r.err == nil // the copy was delivered, whatever the upstream made of it
		}
		done(ok)
	}()
}

// decodeObject decodes a call's arguments: a JSON object, or nothing.
func decodeObject(raw json.RawMessage) (map[string]any, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return map[string]any{}, nil
	}
	if t[0] != '{' {
		return nil, errors.New("arguments must be a JSON object")
	}
	var m map[string]any
	if err := json.Unmarshal(t, &m); err != nil {
		return nil, fmt.Errorf("invalid arguments: %v", err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// compactObject is a call's arguments as JSON text without insignificant
// space: a JSON object ("{}" for none or null), or an error.
func compactObject(raw json.RawMessage) ([]byte, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return []byte("{}"), nil
	}
	if t[0] != '{' {
		return nil, errors.New("arguments must be a JSON object")
	}
	var b bytes.Buffer
	b.Grow(len(t))
	if err := json.Compact(&b, t); err != nil {
		return nil, fmt.Errorf("invalid arguments: %v", err)
	}
	return b.Bytes(), nil
}

// compactJSON is the arguments' JSON text without insignificant space
// ("{}" for none).
func compactJSON(raw json.RawMessage) string {
	var b bytes.Buffer
	if len(bytes.TrimSpace(raw)) == 0 || json.Compact(&b, raw) != nil {
		return "{}"
	}
	return b.String()
}

// awaitingResume reports whether the session was lost on purpose and the
// episode waits for the harness's next session.
func (s *session) awaitingResume() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lost && !s.ended
}

// resume continues the episode in a new session.
func (s *session) resume(*sdk.ServerSession) {
	s.mu.Lock()
	s.lost = false
	s.mu.Unlock()
}

// end closes the episode once: pending copies are delivered, the verify
// read-backs made, and the raw line graded and appended to the ledger
// (synced). It returns when the line is recorded, with ok false (and
// the reason) when the episode had already ended.
func (s *session) end(reason string, rep *ledger.FinalReport) (string, bool) {
	s.mu.Lock()
	if s.ended {
		msg := s.endedMsg()
		s.mu.Unlock()
		<-s.done
		return msg, false
	}
	s.ended, s.reason = true, reason
	idle := s.requests == 0 && reason != endFinish
	s.mu.Unlock()
	close(s.flush)
	s.pending.Wait()
	defer close(s.done)
	if idle {
		// A session that left without a tool call (a harness's check of
		// the server) is not an episode: it stays pending.
		s.p.logf("episode %s: session ended before any tool call; not recorded", s.ep.EpisodeID)
		s.p.release(s, true, nil)
		return "", true
	}
	err := s.record(reason, rep)
	if err != nil {
		s.p.logf("episode %s: %v", s.ep.EpisodeID, err)
	}
	s.p.release(s, false, err)
	return "", true
}
