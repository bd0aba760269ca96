//lint:file-ignore SA1019 the agents and upstreams of the protocol revisions the proxy speaks use roots, sampling and logging, deprecated by the revision 2026-07-28

package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
)

const envEverything = "LIMBO_MCP_EVERYTHING"

// agentEvents collects what reaches the agent's client unasked.
type agentEvents struct {
	mu       sync.Mutex
	logs     []string
	updated  []string
	changed  map[string]int
	sampled  []string
	elicited []string
	progress []string // token: progress/total
}

func (a *agentEvents) note(f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f()
}

// client is an agent's client that offers roots (these), sampling (it
// answers "pong from the agent") and elicitation (it declines), and
// records what it is sent.
func (a *agentEvents) client(roots ...*sdk.Root) *sdk.Client {
	a.changed = map[string]int{}
	c := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "0"}, &sdk.ClientOptions{
		CreateMessageHandler: func(_ context.Context, r *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			var text string
			if len(r.Params.Messages) > 0 {
				if tc, ok := r.Params.Messages[0].Content.(*sdk.TextContent); ok {
					text = tc.Text
				}
			}
			a.note(func() { a.sampled = append(a.sampled, text) })
			return &sdk.CreateMessageResult{Model: "agent-model", Role: "assistant", Content: &sdk.TextContent{Text: "pong from the agent"}}, nil
		},
		ElicitationHandler: func(_ context.Context, r *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			a.note(func() { a.elicited = append(a.elicited, r.Params.Message) })
			return &sdk.ElicitResult{Action: "decline"}, nil
		},
		LoggingMessageHandler: func(_ context.Context, r *sdk.LoggingMessageRequest) {
			b, _ := json.Marshal(r.Params.Data)
			a.note(func() { a.logs = append(a.logs, string(r.Params.Level)+" "+string(b)) })
		},
		ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
			a.note(func() { a.updated = append(a.updated, r.Params.URI) })
		},
		ProgressNotificationHandler: func(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
			a.note(func() {
				a.progress = append(a.progress, fmt.Sprintf("%v: %v/%v", r.Params.ProgressToken, r.Params.Progress, r.Params.Total))
			})
		},
		ToolListChangedHandler:     func(context.Context, *sdk.ToolListChangedRequest) { a.note(func() { a.changed["tools"]++ }) },
		ResourceListChangedHandler: func(context.Context, *sdk.ResourceListChangedRequest) { a.note(func() { a.changed["resources"]++ }) },
	})
	c.AddRoots(roots...)
	return c
}

// eventually polls cond for up to d.
func eventually(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; time.Sleep(20 * time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
	}
}

func toolNames(t *testing.T, cs *sdk.ClientSession) []string {
	t.Helper()
	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, tool.Name)
	}
	return names
}

// TestEverythingServer: in front of the protocol's reference server, what
// is not a tool call passes through both ways: the upstream's requests to
// the agent (sampling, elicitation, roots) reach the agent's client and
// its answers the upstream; progress notifications under the agent's
// token; completions, log messages at the level the agent set, resource
// subscriptions and their updates, and a change of the upstream's
// resources, which the agent is told of and sees listed.
func TestEverythingServer(t *testing.T) {
	bin := serverPath(t, envEverything)
	up, err := Connect(context.Background(), UpstreamSpec{Command: []string{bin}, StartTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	for _, want := range []string{"trigger-sampling-request", "trigger-elicitation-request", "get-roots-list"} {
		// Registered once the server knows that its client (the proxy)
		// offers sampling, elicitation and roots.
		if !slices.ContainsFunc(up.Tools, func(t *sdk.Tool) bool { return t.Name == want }) {
			t.Errorf("the upstream does not offer %s to the proxy", want)
		}
	}
	var ev agentEvents
	root := &sdk.Root{URI: "file:///tmp/limbo-agent-root", Name: "agent-root"}
	f := startProxyFor(t, up, "tools: {}\n", Episode{FaultMode: ledger.FaultNone}, nil, ev.client(root))
	ctx := context.Background()

	// Sampling: the upstream's request reaches the agent, and its answer
	// the upstream's tool.
	text, isErr := callText(t, f.cs, "trigger-sampling-request", map[string]any{"prompt": "ping"})
	if isErr || !strings.Contains(text, "pong from the agent") || len(ev.sampled) != 1 || !strings.Contains(ev.sampled[0], "ping") {
		t.Errorf("sampling: %q (agent asked %q)", text, ev.sampled)
	}
	// Elicitation: the agent declines.
	text, isErr = callText(t, f.cs, "trigger-elicitation-request", map[string]any{})
	if isErr || !strings.Contains(text, "declined") || len(ev.elicited) != 1 {
		t.Errorf("elicitation: %q (agent asked %q)", text, ev.elicited)
	}
	// Roots: the upstream reads the agent's.
	if !eventually(10*time.Second, func() bool {
		text, _ := callText(t, f.cs, "get-roots-list", map[string]any{})
		return strings.Contains(text, root.URI)
	}) {
		t.Errorf("roots: the upstream never saw the agent's root %s", root.URI)
	}
	// Progress: the upstream's notifications reach the agent under its
	// own token.
	params := &sdk.CallToolParams{Name: "trigger-long-running-operation", Arguments: map[string]any{"duration": 0.3, "steps": 3}}
	params.SetProgressToken("agent-token")
	if res, err := f.cs.CallTool(ctx, params); err != nil || res.IsError {
		t.Errorf("long-running operation: %v %+v", err, res)
	}
	// (The agent's client handles notifications on their own goroutine:
	// the last may be handled after the answer.)
	want := []string{"agent-token: 1/3", "agent-token: 2/3", "agent-token: 3/3"}
	if !eventually(5*time.Second, func() bool {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		return slices.Equal(ev.progress, want)
	}) {
		t.Errorf("progress: the agent got %q, want %q", ev.progress, want)
	}
	// Completion.
	comp, err := f.cs.Complete(ctx, &sdk.CompleteParams{Ref: &sdk.CompleteReference{Type: "ref/prompt", Name: "completable-prompt"},
		Argument: sdk.CompleteParamsArgument{Name: "department", Value: "E"}})
	if err != nil || comp == nil || !slices.Contains(comp.Completion.Values, "Engineering") {
		t.Errorf("completion: %v %+v", err, comp)
	}
	// Logging: the level the agent sets is the upstream's, and its
	// messages reach the agent.
	if err := f.cs.SetLoggingLevel(ctx, &sdk.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	callText(t, f.cs, "toggle-simulated-logging", map[string]any{})
	if !eventually(15*time.Second, func() bool {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		return slices.ContainsFunc(ev.logs, func(l string) bool { return strings.Contains(l, "message") })
	}) {
		t.Errorf("logging: the agent got %q", ev.logs)
	}
	callText(t, f.cs, "toggle-simulated-logging", map[string]any{})
	// Subscriptions: an update of a subscribed resource reaches the agent.
	rl, err := f.cs.ListResources(ctx, nil)
	if err != nil || len(rl.Resources) == 0 {
		t.Fatalf("resources: %v %+v", err, rl)
	}
	uri := rl.Resources[0].URI
	if err := f.cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	callText(t, f.cs, "toggle-subscriber-updates", map[string]any{})
	if !eventually(15*time.Second, func() bool {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		return slices.Contains(ev.updated, uri)
	}) {
		t.Errorf("subscriptions: the agent got updates of %q, not of %s", ev.updated, uri)
	}
	callText(t, f.cs, "toggle-subscriber-updates", map[string]any{})
	// A change of the upstream's resources: the agent is told, and lists
	// the new one.
	text, isErr = callText(t, f.cs, "gzip-file-as-resource", map[string]any{"name": "limbo.gz", "data": "data:text/plain;base64,aGVsbG8="})
	if isErr {
		t.Fatalf("gzip-file-as-resource: %s", text)
	}
	if !eventually(10*time.Second, func() bool {
		rl, err := f.cs.ListResources(ctx, nil)
		return err == nil && slices.ContainsFunc(rl.Resources, func(r *sdk.Resource) bool { return r.URI == "demo://resource/session/limbo.gz" })
	}) {
		t.Error("the upstream's new resource was never listed")
	}
	if !eventually(10*time.Second, func() bool {
		ev.mu.Lock()
		defer ev.mu.Unlock()
		return ev.changed["resources"] > 0
	}) {
		t.Error("the agent was not told that the resources changed")
	}
	g := f.close(t)
	if len(g.raw.Calls) < 8 {
		t.Errorf("%d calls recorded", len(g.raw.Calls))
	}
}

// TestToolListChanged: when the upstream's tools change, the proxy lists
// them again and serves the new list, over both paths: the agent is told,
// a new tool is called and recorded by the annotations' rule, a removed
// one is refused as unknown; a list that no longer fits the contract is
// refused with a notice and the old one kept.
func TestToolListChanged(t *testing.T) {
	eachPath(t, func(t *testing.T, connect func(testing.TB) (*store, *Upstream)) {
		st, up := connect(t)
		var ev agentEvents
		var log lockedBuffer
		log.b = &bytes.Buffer{}
		f := startProxyFor(t, up, storeContract, Episode{FaultMode: ledger.FaultNone}, func(o *Options) { o.Log = &log }, ev.client())
		st.srv.AddTool(&sdk.Tool{Name: "shout", Description: "Answer the name, loudly.", InputSchema: json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}}}`),
			Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
			func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				var a struct{ Name string }
				_ = json.Unmarshal(req.Params.Arguments, &a)
				return textResult(strings.ToUpper(a.Name), false), nil
			})
		st.srv.RemoveTools("upsert")
		if !eventually(10*time.Second, func() bool {
			names := toolNames(t, f.cs)
			return slices.Contains(names, "shout") && !slices.Contains(names, "upsert")
		}) {
			t.Fatalf("the agent lists %v", toolNames(t, f.cs))
		}
		if !eventually(10*time.Second, func() bool {
			ev.mu.Lock()
			defer ev.mu.Unlock()
			return ev.changed["tools"] > 0
		}) {
			t.Error("the agent was not told that the tools changed")
		}
		if text, isErr := callText(t, f.cs, "shout", map[string]any{"name": "ada"}); isErr || text != "ADA" {
			t.Errorf("the new tool: %q %v", text, isErr)
		}
		if _, err := f.cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "upsert", Arguments: map[string]any{"name": "a"}}); err == nil || !strings.Contains(err.Error(), "unknown tool") {
			t.Errorf("the removed tool: %v", err)
		}
		// insert without its name: the contract's effect /name names no
		// argument; the proxy keeps the tools it had.
		st.srv.AddTool(&sdk.Tool{Name: "insert", Description: "changed", InputSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}}}`)},
			func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				return textResult("x", false), nil
			})
		if !eventually(10*time.Second, func() bool { return strings.Contains(log.String(), "no longer fit the contract") }) {
			t.Errorf("log: %s", log.String())
		}
		if names := toolNames(t, f.cs); !slices.Contains(names, "shout") {
			t.Errorf("after a refused change the agent lists %v", names)
		}
		g := f.close(t)
		if rule, ok := g.raw.Rules.Tools["shout"]; !ok || rule.Kind != ledger.KindRead {
			t.Errorf("the new tool's rule: %+v", g.raw.Rules.Tools)
		}
	})
}

// TestProgress: the upstream's progress notifications for a call reach
// the agent that asked for them, under its own token, over both paths; a
// call without a token gets none. (Through the SDK's client, which
// handles notifications on a goroutine of their own, a notification
// handled after the answer is dropped: the upstream here pauses before
// answering. The fast path passes them in order without.)
func TestProgress(t *testing.T) {
	eachPath(t, func(t *testing.T, connect func(testing.TB) (*store, *Upstream)) {
		_, up := connect(t)
		var ev agentEvents
		f := startProxyFor(t, up, storeContract, Episode{FaultMode: ledger.FaultNone}, nil, ev.client())
		callText(t, f.cs, "steps", map[string]any{})
		pause := 0
		if up.link == nil {
			pause = 100
		}
		params := &sdk.CallToolParams{Name: "steps", Arguments: map[string]any{"pause_ms": pause}}
		params.SetProgressToken(7)
		if res, err := f.cs.CallTool(context.Background(), params); err != nil || resultText(res) != "done" {
			t.Fatalf("%v %+v", err, res)
		}
		want := []string{"7: 1/3", "7: 2/3", "7: 3/3"}
		if !eventually(5*time.Second, func() bool {
			ev.mu.Lock()
			defer ev.mu.Unlock()
			return slices.Equal(ev.progress, want)
		}) {
			t.Errorf("the agent got %q, want %q", ev.progress, want)
		}
		f.close(t)
	})
}

// TestRelist: a changed list is served again item by item: what is new
// or changed is added, what is gone is removed, in one sorted call, and
// what is unchanged is left alone.
func TestRelist(t *testing.T) {
	type item struct{ Name, Text string }
	name := func(x item) string { return x.Name }
	for _, c := range []struct {
		was, now    []item
		added, gone []string
	}{
		{nil, nil, nil, nil},
		{[]item{{"a", "1"}}, []item{{"a", "1"}}, nil, nil},
		{[]item{{"a", "1"}, {"b", "1"}, {"c", "1"}, {"e", "1"}}, []item{{"a", "1"}, {"b", "2"}, {"d", "1"}}, []string{"b", "d"}, []string{"c", "e"}},
		{nil, []item{{"z", ""}, {"y", ""}}, []string{"z", "y"}, nil},
		{[]item{{"z", ""}, {"y", ""}}, nil, nil, []string{"y", "z"}},
	} {
		var added, gone []string
		removes := 0
		relist(c.was, c.now, name, func(x item) { added = append(added, x.Name) }, func(names ...string) { removes++; gone = names })
		if !slices.Equal(added, c.added) || !slices.Equal(gone, c.gone) || removes > 1 {
			t.Errorf("%v -> %v: added %v, removed %v (%d calls); want %v and %v", c.was, c.now, added, gone, removes, c.added, c.gone)
		}
	}
}
