package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/finish"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// Caller is the door through which the server reaches an episode's world:
// the *sandbox.World itself, or middleware wrapping it (the guard).
type Caller interface {
	Call(tool string, args map[string]any) sandbox.Observation
	Now() float64
	Advance(dt float64)
}

// CallerFactory builds the caller of one episode over its world. It is the
// one place where server middleware (the guard) is put in front of the
// sandbox.
type CallerFactory func(w *sandbox.World, ep *Episode, task *sandbox.Task) (Caller, error)

// ConditionCaller is the default CallerFactory: the world behind the
// condition's server-side middleware, the same code the simulator stacks
// (agent.Condition.Wrap): the guard for condition guard, the transparent
// client retries for sdk-retry. The guard flag puts the guard in front of
// the world under any other condition. Free-text conditions add nothing.
func ConditionCaller(w *sandbox.World, ep *Episode, task *sandbox.Task) (Caller, error) {
	var c agent.Caller = w
	cond, err := agent.ParseCondition(ep.Condition)
	if ep.Guard && (err != nil || cond.Kind != agent.KindGuard) {
		c = agent.NewGuard(c, task.ID, ep.Contract)
	}
	if err == nil {
		c = cond.Wrap(c, task.ID, ep.Contract)
	}
	return c, nil
}

// DirectCaller is the CallerFactory without middleware: the agent talks
// to the world itself whatever the plan says.
func DirectCaller(w *sandbox.World, _ *Episode, _ *sandbox.Task) (Caller, error) {
	return w, nil
}

// Limits bound one session. Zero values take the defaults below.
type Limits struct {
	ThinkS      float64 // virtual seconds added before every tool call (the model's turn)
	MaxCalls    int     // tool calls per episode, finish excluded
	MaxTimeS    float64 // virtual-time budget of an episode
	MaxArgBytes int     // bytes of one call's JSON arguments
}

// Default limits. Think time: the middle of the 5–15 s model turn of
// docs/simulation.md, Time model. The time budget covers the longest late commit (2 h)
// and an hour of waiting.
const (
	DefaultThinkS      = 10
	DefaultMaxCalls    = 200
	DefaultMaxTimeS    = 4 * 3600
	DefaultMaxArgBytes = 64 << 10
)

func (l Limits) withDefaults() Limits {
	if l.MaxCalls <= 0 {
		l.MaxCalls = DefaultMaxCalls
	}
	if l.MaxTimeS <= 0 {
		l.MaxTimeS = DefaultMaxTimeS
	}
	if l.MaxArgBytes <= 0 {
		l.MaxArgBytes = DefaultMaxArgBytes
	}
	if l.ThinkS < 0 || math.IsNaN(l.ThinkS) {
		l.ThinkS = 0
	}
	return l
}

// Ended episode reasons.
const (
	EndFinish     = "finish"
	EndDisconnect = "disconnect"
	EndCallBudget = "call budget"
	EndTimeBudget = "time budget"
)

// Result is an ended episode: the raw episode from the sandbox, its
// grade, and why it ended.
type Result struct {
	Index  int // index in the plan
	Raw    *ledger.RawEpisode
	Graded ledger.Episode
	Reason string
	Err    error // grading failed
}

// run is one episode in progress. Calls are serialized: the world is not
// safe for concurrent use, and an agent's concurrent calls are ordered as
// they arrive.
type run struct {
	idx    int
	ep     *Episode
	task   *sandbox.Task
	world  *sandbox.World
	caller Caller
	limits Limits
	// tools maps the exposed sandbox tool names, so that a call that was
	// never offered is rejected before it reaches the world.
	tools map[string]bool

	mu       sync.Mutex
	requests int // tool calls received, rejected ones included
	ended    bool
	reason   string
	onEnd    func(*run, *Result) // called once, under mu
}

func newRun(idx int, ep *Episode, task *sandbox.Task, limits Limits, factory CallerFactory) (*run, error) {
	w, err := sandbox.NewWorld(ep.Spec(task))
	if err != nil {
		return nil, fmt.Errorf("episode %s: %w", ep.EpisodeID, err)
	}
	if w == nil {
		return nil, fmt.Errorf("episode %s: sandbox returned no world", ep.EpisodeID)
	}
	if factory == nil {
		factory = ConditionCaller
	}
	c, err := factory(w, ep, task)
	if err != nil {
		return nil, fmt.Errorf("episode %s: %w", ep.EpisodeID, err)
	}
	r := &run{idx: idx, ep: ep, task: task, world: w, caller: c, limits: limits.withDefaults(), tools: map[string]bool{}}
	for _, t := range w.Tools() {
		r.tools[t.Name] = true
	}
	return r, nil
}

// Response is what a sandbox tool call returns to the agent, as JSON text
// and as structured content: the outcome (ok, timeout, http500, ...), the
// result on success or the error message, Retry-After for a 429, and the
// virtual clock after the call.
type Response struct {
	Outcome     string         `json:"outcome"`
	Result      map[string]any `json:"result,omitempty"`
	Error       string         `json:"error,omitempty"`
	RetryAfterS float64        `json:"retry_after_s,omitempty"`
	ClockS      float64        `json:"clock_s"`
}

// Observation converts the response back into the sandbox's form (latency
// is not shown to agents and is zero).
func (r *Response) Observation() sandbox.Observation {
	return sandbox.Observation{Outcome: r.Outcome, Result: r.Result, Error: r.Error, RetryAfterS: r.RetryAfterS}
}

// protocolError is a request the server refuses at the protocol level
// (invalid params), as opposed to a tool error the agent sees.
type protocolError struct{ msg string }

func (e *protocolError) Error() string { return e.msg }

// instruction is the task text the agent is given.
func (r *run) instruction() string { return Prompt(r.ep, r.task) }

// endedMsg is the tool error for calls after the episode ended.
func (r *run) endedMsg() string {
	return fmt.Sprintf("the episode has ended (%s); no further calls are accepted", r.reason)
}

// call runs one sandbox tool call. A protocolError rejects the request;
// otherwise the response goes to the agent (isError for an ended episode).
func (r *run) call(tool string, rawArgs json.RawMessage) (*Response, string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return nil, r.endedMsg(), nil
	}
	if !r.tools[tool] {
		return nil, "", &protocolError{fmt.Sprintf("unknown tool %q", tool)}
	}
	r.requests++
	args, err := DecodeArgs(rawArgs, r.limits.MaxArgBytes)
	if err != nil {
		r.checkCallBudget()
		return nil, "", &protocolError{err.Error()}
	}
	if r.limits.ThinkS > 0 {
		r.caller.Advance(r.limits.ThinkS)
	}
	obs := r.caller.Call(tool, args)
	resp := &Response{Outcome: obs.Outcome, Result: obs.Result, Error: obs.Error, RetryAfterS: obs.RetryAfterS, ClockS: r.caller.Now()}
	if obs.Outcome == ledger.OutcomeOK {
		resp.Error = ""
	}
	if resp.ClockS >= r.limits.MaxTimeS {
		r.end(EndTimeBudget, nil)
	} else {
		r.checkCallBudget()
	}
	return resp, "", nil
}

func (r *run) checkCallBudget() {
	if r.requests >= r.limits.MaxCalls {
		r.end(EndCallBudget, nil)
	}
}

// finish ends the episode with the agent's report. A message is returned
// for the agent; a non-empty complaint means the report was not accepted
// and the agent may try again.
func (r *run) finish(rawArgs json.RawMessage) (msg string, complaint string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended {
		return "", r.endedMsg(), nil
	}
	rep, complaint, err := finish.Parse(rawArgs, r.limits.MaxArgBytes)
	if err != nil || complaint != "" {
		return "", complaint, err
	}
	r.end(EndFinish, &rep)
	return finish.Accepted, "", nil
}

// disconnect ends the episode when its session closes.
func (r *run) disconnect() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.end(EndDisconnect, nil)
}

// reclaim ends an episode that has seen no tool call and no report,
// without recording it, so that another session can take it over. It
// reports whether it did.
func (r *run) reclaim() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.ended || r.requests > 0 {
		return false
	}
	r.ended, r.reason = true, "reclaimed"
	return true
}

// end closes the episode once: drains the world, grades it and hands the
// result on. An episode that ends without a report is graded with status
// failed and no uncertainties: the agent reported no success.
func (r *run) end(reason string, rep *ledger.FinalReport) {
	if r.ended {
		return
	}
	r.ended = true
	r.reason = reason
	if r.onEnd == nil {
		return
	}
	if reason != EndFinish && r.requests == 0 {
		// Nothing happened: not an episode (see idle).
		r.onEnd(r, nil)
		return
	}
	res := r.grade(reason, rep)
	r.onEnd(r, res)
}

func (r *run) grade(reason string, rep *ledger.FinalReport) *Result {
	if rep == nil {
		rep = &ledger.FinalReport{Status: ledger.StatusFailed, Uncertainties: []string{}}
	}
	res := &Result{Index: r.idx, Reason: reason}
	raw := r.world.Finish(*rep)
	if raw == nil {
		res.Err = fmt.Errorf("episode %s: sandbox returned no raw episode", r.ep.EpisodeID)
		return res
	}
	r.ep.Label(&raw.Episode)
	res.Raw = raw
	g, err := sandbox.Grade(raw)
	if err != nil {
		res.Err = fmt.Errorf("episode %s: grading: %w", r.ep.EpisodeID, err)
		return res
	}
	r.ep.Label(&g)
	res.Graded = g
	return res
}

// DecodeArgs decodes a tool call's JSON arguments: a JSON object (absent
// or null means no arguments) of at most maxBytes bytes. Numbers decode as
// float64, as a JSON client's would.
func DecodeArgs(raw json.RawMessage, maxBytes int) (map[string]any, error) {
	if len(raw) > maxBytes {
		return nil, fmt.Errorf("arguments of %d bytes exceed the limit of %d", len(raw), maxBytes)
	}
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return map[string]any{}, nil
	}
	if trimmed[0] != '{' {
		return nil, errors.New("arguments must be a JSON object")
	}
	var args map[string]any
	if err := json.Unmarshal(trimmed, &args); err != nil {
		return nil, fmt.Errorf("invalid arguments: %v", err)
	}
	if args == nil {
		args = map[string]any{}
	}
	return args, nil
}
