package proxy

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/ledgerfile"
)

// store is an upstream for the proxy's unit tests: a list of rows and a
// set, with a non-idempotent insert, an idempotent upsert, a batch insert,
// a read and a tool that always fails. Its state is what the tests compare
// the ledger with.
type store struct {
	mu   sync.Mutex
	rows []string
	set  map[string]bool
	srv  *sdk.Server // for tests that change its lists
	// charge's deliveries by key, and the charges made (one per key)
	delivered map[string]int
	charges   []string
}

func (st *store) count(name string) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	n := 0
	for _, r := range st.rows {
		if r == name {
			n++
		}
	}
	return n
}

func (st *store) server() *sdk.Server {
	st.set = map[string]bool{}
	srv := sdk.NewServer(&sdk.Implementation{Name: "store", Version: "1.0"}, nil)
	st.srv = srv
	obj := func(props string, required ...string) json.RawMessage {
		req, _ := json.Marshal(required)
		return json.RawMessage(`{"type":"object","properties":{` + props + `},"required":` + string(req) + `}`)
	}
	argsOf := func(req *sdk.CallToolRequest) map[string]any {
		var m map[string]any
		_ = json.Unmarshal(req.Params.Arguments, &m)
		return m
	}
	text := func(s string) *sdk.CallToolResult {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
	}
	srv.AddTool(&sdk.Tool{Name: "insert", Description: "Insert a row (no annotations: a non-idempotent write).",
		InputSchema: obj(`"name":{"type":"string"},"note":{"type":"string"}`, "name")},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			args := argsOf(req)
			if _, ok := args["idempotency_key"]; ok {
				// A strict upstream: the keys guard's own argument must
				// not reach it.
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "unknown argument idempotency_key"}}, IsError: true}, nil
			}
			name, _ := args["name"].(string)
			st.mu.Lock()
			st.rows = append(st.rows, name)
			n := len(st.rows)
			st.mu.Unlock()
			return text(fmt.Sprintf("inserted %s (%d rows)", name, n)), nil
		})
	srv.AddTool(&sdk.Tool{Name: "slow_insert", Description: "Insert a row, slowly.",
		InputSchema: obj(`"name":{"type":"string"}`, "name")},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			time.Sleep(300 * time.Millisecond)
			name, _ := argsOf(req)["name"].(string)
			st.mu.Lock()
			st.rows = append(st.rows, name)
			st.mu.Unlock()
			return text("inserted " + name), nil
		})
	srv.AddTool(&sdk.Tool{Name: "upsert", Description: "Set a name (idempotent).", Annotations: &sdk.ToolAnnotations{IdempotentHint: true},
		InputSchema: obj(`"name":{"type":"string"}`, "name")},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			name, _ := argsOf(req)["name"].(string)
			st.mu.Lock()
			st.set[name] = true
			st.mu.Unlock()
			return text("set " + name), nil
		})
	srv.AddTool(&sdk.Tool{Name: "insert_many", Description: "Insert rows.",
		InputSchema: obj(`"rows":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}}}}`, "rows")},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			rows, _ := argsOf(req)["rows"].([]any)
			st.mu.Lock()
			for _, r := range rows {
				m, _ := r.(map[string]any)
				name, _ := m["name"].(string)
				st.rows = append(st.rows, name)
			}
			st.mu.Unlock()
			return text(fmt.Sprintf("inserted %d rows", len(rows))), nil
		})
	srv.AddTool(&sdk.Tool{Name: "count", Description: "Count a name's rows.", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema:  obj(`"name":{"type":"string"}`, "name"),
		OutputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			name, _ := argsOf(req)["name"].(string)
			b, _ := json.Marshal(map[string]int{"n": st.count(name)})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "charge", Description: "Charge a customer, once per key (the upstream honours the key).",
		InputSchema: obj(`"customer":{"type":"string"},"amount":{"type":"integer"},"key":{"type":"string"}`, "customer", "amount", "key")},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			args := argsOf(req)
			key, _ := args["key"].(string)
			customer, _ := args["customer"].(string)
			st.mu.Lock()
			defer st.mu.Unlock()
			if st.delivered == nil {
				st.delivered = map[string]int{}
			}
			if st.delivered[key]++; st.delivered[key] > 1 {
				return text("charged " + customer + " (already, under key " + key + ")"), nil
			}
			st.charges = append(st.charges, customer)
			return text("charged " + customer), nil
		})
	srv.AddTool(&sdk.Tool{Name: "steps", Description: "Report progress in three steps, then answer (after a pause: pause_ms).", Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: obj(`"pause_ms":{"type":"integer"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			if tok := req.Params.GetProgressToken(); tok != nil {
				for i := 1; i <= 3; i++ {
					_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: float64(i), Total: 3})
				}
			}
			pause, _ := argsOf(req)["pause_ms"].(float64)
			time.Sleep(time.Duration(pause) * time.Millisecond)
			return text("done"), nil
		})
	srv.AddTool(&sdk.Tool{Name: "boom", Description: "Always fails.", InputSchema: obj(`"name":{"type":"string"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "boom"}}, IsError: true}, nil
		})
	srv.AddPrompt(&sdk.Prompt{Name: "hello", Description: "A prompt."}, func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return &sdk.GetPromptResult{Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: "hello from the store"}}}}, nil
	})
	srv.AddResource(&sdk.Resource{URI: "store://rows", Name: "rows", MIMEType: "text/plain"}, func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		st.mu.Lock()
		defer st.mu.Unlock()
		return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: "store://rows", Text: strings.Join(st.rows, ",")}}}, nil
	})
	return srv
}

// connectStore starts the store in process and connects the proxy's
// upstream client to it through the SDK's in-memory transports: calls go
// through the SDK's client.
func connectStore(t testing.TB) (*store, *Upstream) {
	t.Helper()
	ct, stt := sdk.NewInMemoryTransports()
	return connectStoreOver(t, ct, stt)
}

// connectStreamStore connects the store over a pair of byte streams, as
// a command's stdio would be: calls take the fast path (rawLink), and the
// proxy serves its session (startProxy) over streams too (rawServer).
func connectStreamStore(t testing.TB) (*store, *Upstream) {
	t.Helper()
	ct, stt := streamTransports()
	return connectStoreOver(t, ct, stt)
}

// streamTransports are two IOTransports over pipes, each reading what the
// other writes.
func streamTransports() (*sdk.IOTransport, *sdk.IOTransport) {
	r1, w1 := io.Pipe()
	r2, w2 := io.Pipe()
	return &sdk.IOTransport{Reader: r1, Writer: w2}, &sdk.IOTransport{Reader: r2, Writer: w1}
}

// eachPath runs a test over the SDK's server and client (in-memory
// transports) and over the fast paths (byte streams, as stdio).
func eachPath(t *testing.T, f func(t *testing.T, connect func(testing.TB) (*store, *Upstream))) {
	t.Run("sdk", func(t *testing.T) { f(t, connectStore) })
	t.Run("fast", func(t *testing.T) { f(t, connectStreamStore) })
}

func connectStoreOver(t testing.TB, ct, stt sdk.Transport) (*store, *Upstream) {
	t.Helper()
	st := &store{}
	ss, err := st.server().Connect(context.Background(), stt, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	up, err := Connect(context.Background(), UpstreamSpec{Transport: ct})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { up.Close() })
	return st, up
}

// storeContract is the store's contract: the tools' annotations, the
// batch of insert_many and a read-back of insert.
const storeContract = `tools:
  insert:
    effect: [/name]
    verify: {tool: count, args: {name: "{name}"}, count: /n}
  insert_many:
    kind: write
    effect: [/rows/name]
    batch: /rows
  charge:
    key: key
    effect: [/customer, /amount]
`

// fixture is a proxy over an upstream with a ledger, and a client
// session to it (over an in-memory transport, as stdio would be).
type fixture struct {
	p      *Proxy
	cs     *sdk.ClientSession
	ledger string
	served chan error
	got    []graded
	mu     sync.Mutex
}

type graded struct {
	raw *ledger.RawEpisode
	ep  ledger.Episode
}

// startProxy serves one episode of ep over an in-memory transport, or,
// when the upstream is reached over streams (connectStreamStore), over
// streams as stdio would be.
func startProxy(t testing.TB, up *Upstream, contract string, ep Episode, tweak func(*Options)) *fixture {
	t.Helper()
	return startProxyFor(t, up, contract, ep, tweak, sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil))
}

// startProxyFor is startProxy with the agent's client.
func startProxyFor(t testing.TB, up *Upstream, contract string, ep Episode, tweak func(*Options), client *sdk.Client) *fixture {
	t.Helper()
	c, err := ParseContract("contract.yaml", []byte(contract))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Resolve(up.Tools); err != nil {
		t.Fatal(err)
	}
	if err := ep.Normalize(false); err != nil {
		t.Fatal(err)
	}
	f := &fixture{ledger: filepath.Join(t.TempDir(), "proxy.jsonl"), served: make(chan error, 1)}
	l, err := ledgerfile.Open(f.ledger, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	opts := Options{Upstream: up, Contract: c, Single: ep, Ledger: l, Finish: true,
		LateDelay: 30 * time.Millisecond, RedeliveryDelay: 10 * time.Millisecond, TailScale: 1e-3,
		OnEpisode: func(r *ledger.RawEpisode, g ledger.Episode) {
			f.mu.Lock()
			f.got = append(f.got, graded{r, g})
			f.mu.Unlock()
		}}
	if tweak != nil {
		tweak(&opts)
	}
	if f.p, err = New(opts); err != nil {
		t.Fatal(err)
	}
	var ct, st sdk.Transport
	if up.link != nil {
		ct, st = streamTransports()
	} else {
		ct, st = sdk.NewInMemoryTransports()
	}
	go func() { f.served <- f.p.ServeStdio(context.Background(), st) }()
	if f.cs, err = client.Connect(context.Background(), ct, nil); err != nil {
		t.Fatal(err)
	}
	return f
}

// serveInMemory serves p as over stdio, on an in-memory transport, and
// connects a client: its session, and the channel ServeStdio's result
// comes on.
func serveInMemory(t testing.TB, p *Proxy) (*sdk.ClientSession, <-chan error) {
	t.Helper()
	ct, st := sdk.NewInMemoryTransports()
	served := make(chan error, 1)
	go func() { served <- p.ServeStdio(context.Background(), st) }()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, served
}

// close ends the client's session and returns the episode recorded.
func (f *fixture) close(t testing.TB) graded {
	t.Helper()
	f.cs.Close()
	select {
	case err := <-f.served:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy did not end the session")
	}
	if l := f.p.up.link; l != nil {
		// Over streams the calls took the fast path, both ways.
		l.mu.Lock()
		sent := l.next
		l.mu.Unlock()
		if f.p.fastCalls.Load() == 0 || sent == 0 {
			t.Errorf("over streams: %d calls answered by the fast path, %d forwarded by it", f.p.fastCalls.Load(), sent)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.got) != 1 {
		t.Fatalf("%d episodes recorded, want 1", len(f.got))
	}
	return f.got[0]
}

// callText calls a tool and returns its text and whether it is an error.
func callText(t testing.TB, cs *sdk.ClientSession, tool string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return resultText(res), res.IsError
}

// blindRetry calls a tool and, when the answer is an error, calls it
// again with the same arguments, once.
func blindRetry(t testing.TB, cs *sdk.ClientSession, tool string, args any) (first string, failed bool) {
	t.Helper()
	first, failed = callText(t, cs, tool, args)
	if failed {
		callText(t, cs, tool, args)
	}
	return first, failed
}

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
