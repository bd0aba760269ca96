package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/internal/scripted"
)

// connectHTTP opens a session with the go-sdk client.
func connectHTTP(t *testing.T, ctx context.Context, url string) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "limbo-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1, HTTPClient: testHTTPClient},
		&sdk.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return cs
}

// TestHTTPCheckSessionYieldsEpisode is a harness's start-up check (claude
// mcp list: initialize, list the tools, leave without DELETE) followed by
// the real run, on a plan of one episode: the run must get the episode
// instead of 503, and the check's session must not act on it afterwards.
func TestHTTPCheckSessionYieldsEpisode(t *testing.T) {
	plan := onePlan(t, Episode{Template: "T01", FaultMode: ledger.FaultTimeoutPost, Seed: 3})
	srv, url, path := httpServer(t, plan, Options{})
	ctx := testContext(t)

	check := connectHTTP(t, ctx, url)
	if _, err := check.ListTools(ctx, nil); err != nil {
		t.Fatalf("check: list tools: %v", err)
	}
	// The check session stays open (no DELETE), as the harness leaves it.
	if err := playHTTP(ctx, url, "native", scripted.VerifyRetry, legacy); err != nil {
		t.Fatalf("the run after the check: %v", err)
	}
	select {
	case <-srv.Done():
	case <-ctx.Done():
		t.Fatal("server not done after the run")
	}
	got := readLedger(t, path)
	if len(got) != 1 || got[0].EpisodeID != plan.Episodes[0].EpisodeID || got[0].ToolCalls == 0 {
		t.Fatalf("ledger: %+v", got)
	}
	// The check's session lost its episode: a call on it changes nothing.
	res, err := check.CallTool(ctx, &sdk.CallToolParams{Name: "finish", Arguments: map[string]any{"status": "failed", "uncertainties": []string{}}})
	if err == nil && !res.IsError {
		t.Errorf("the check session could still finish the episode: %+v", res)
	}
	if n := len(readLedger(t, path)); n != 1 {
		t.Errorf("ledger has %d lines after the check session's call, want 1", n)
	}
	check.Close()
}

// TestHTTPSessionWithCallKeepsEpisode: a session that has made a tool
// call is bound to its episode; a newcomer is refused, not handed it.
func TestHTTPSessionWithCallKeepsEpisode(t *testing.T) {
	plan := onePlan(t, Episode{Template: "T01", FaultMode: ledger.FaultNone, Seed: 3})
	_, url, _ := httpServer(t, plan, Options{})
	ctx := testContext(t)
	first := connectHTTP(t, ctx, url)
	defer first.Close()
	if _, err := first.CallTool(ctx, &sdk.CallToolParams{Name: "billing_list_charges", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "limbo-test", Version: "v0"}, nil)
	if cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: legacy}); err == nil {
		cs.Close()
		t.Fatal("a second session got the episode of a session that is using it")
	}
	res, err := first.CallTool(ctx, &sdk.CallToolParams{Name: "finish", Arguments: map[string]any{"status": "completed", "uncertainties": []string{}}})
	if err != nil || res.IsError {
		t.Fatalf("finish on the bound session: %v %+v", err, res)
	}
	if res.StructuredContent == nil {
		t.Error("finish returned no structuredContent")
	}
}

// TestStdioAnswersBeforeEOF writes initialize, a tool call and finish to
// the server process and closes its stdin at once: every request is
// answered and the episode is recorded as finished, not as a disconnect.
func TestStdioAnswersBeforeEOF(t *testing.T) {
	bin := buildBins(t)
	plan := onePlan(t, Episode{Template: "T03", FaultMode: ledger.FaultNone, Seed: 5})
	planPath := writePlan(t, plan)
	ledgerPath := filepath.Join(t.TempDir(), "eof.jsonl")
	cmd := exec.Command(filepath.Join(bin, "serve"), "--plan", planPath, "--ledger", ledgerPath)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	msgs := []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + legacy + `","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"tickets_list_recent","arguments":{}}}`,
		`{"jsonrpc":"2.0","id":"last","method":"tools/call","params":{"name":"finish","arguments":{"status":"failed","uncertainties":["nothing done"]}}}`,
	}
	if _, err := io.WriteString(in, strings.Join(msgs, "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	in.Close()
	answers := map[string]bool{}
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(sc.Bytes(), &m) == nil && len(m.Result) > 0 {
			answers[string(m.ID)] = true
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("server: %v", err)
	}
	for _, id := range []string{`1`, `2`, `"last"`} {
		if !answers[id] {
			t.Errorf("request %s was not answered", id)
		}
	}
	got := readLedger(t, ledgerPath)
	if len(got) != 1 {
		t.Fatalf("%d episodes recorded, want 1", len(got))
	}
	if !got[0].UncertaintyListed || got[0].ToolCalls != 1 {
		t.Errorf("the finish report was lost: uncertainty_listed=%t tool_calls=%d", got[0].UncertaintyListed, got[0].ToolCalls)
	}
}

// TestHTTPSessionAndOrigin: a request other than initialize without a
// session is a 400 (the specification's answer); a foreign Origin is a
// 403, a loopback one is served.
func TestHTTPSessionAndOrigin(t *testing.T) {
	plan := onePlan(t, Episode{Template: "T01", FaultMode: ledger.FaultNone, Seed: 3})
	_, url, _ := httpServer(t, plan, Options{AllowedOrigins: []string{"https://inspector.example"}})
	post := func(body, origin string) int {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + legacy + `","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for _, c := range []struct {
		name, body, origin string
		want               int
	}{
		{"tools/list without a session", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "", http.StatusBadRequest},
		{"notification without a session", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "", http.StatusBadRequest},
		{"foreign origin", initialize, "http://evil.example", http.StatusForbidden},
		{"null origin", initialize, "null", http.StatusForbidden},
		{"rebinding origin", initialize, "http://127.0.0.1.evil.example:8765", http.StatusForbidden},
		{"listed origin", initialize, "https://inspector.example", http.StatusOK},
	} {
		if got := post(c.body, c.origin); got != c.want {
			t.Errorf("%s: HTTP %d, want %d", c.name, got, c.want)
		}
	}
	// The listed origin's session took the one episode; a loopback origin
	// is accepted too (and then finds the plan taken: the check session is
	// reclaimed, as it made no call).
	if got := post(initialize, "http://localhost:6274"); got != http.StatusOK {
		t.Errorf("loopback origin: HTTP %d, want 200", got)
	}
}

// serveHTTPReal runs ServeHTTP on a loopback port and returns its URL and
// a channel with its result.
func serveHTTPReal(t *testing.T, srv *Server) (string, chan error) {
	t.Helper()
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() {
		errc <- srv.ServeHTTP(ctx, "127.0.0.1:0", false, func(a net.Addr) { addrc <- a.String() })
	}()
	select {
	case a := <-addrc:
		return "http://" + a, errc
	case err := <-errc:
		t.Fatalf("ServeHTTP: %v", err)
	}
	return "", nil
}

// TestHTTPDeleteAfterLastFinish: the client of the last episode closes
// its session (DELETE) after finish; the server still answers it, then
// stops without waiting out the grace period.
func TestHTTPDeleteAfterLastFinish(t *testing.T) {
	plan := onePlan(t, Episode{Template: "T02", FaultMode: ledger.FaultNone, Seed: 9})
	l, err := OpenLedger(filepath.Join(t.TempDir(), "l.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	srv := NewServer(plan, l, Options{FinishGrace: time.Minute})
	url, errc := serveHTTPReal(t, srv)
	ctx := testContext(t)
	cs := connectHTTP(t, ctx, url)
	task, err := scripted.InitTask(cs)
	if err != nil {
		t.Fatal(err)
	}
	if err := scripted.Play(&scripted.Client{Ctx: ctx, Session: cs}, task, "native", scripted.BlindRetry); err != nil {
		t.Fatal(err)
	}
	<-srv.Done()
	if err := cs.Close(); err != nil {
		t.Errorf("closing the session after the last finish: %v", err)
	}
	select {
	case err := <-errc:
		if err != nil {
			t.Errorf("ServeHTTP: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ServeHTTP did not stop once the last session was closed")
	}
	if l.Len() != 1 {
		t.Errorf("%d episodes recorded, want 1", l.Len())
	}
}

// TestHTTPSlowBodyCutOff: a client that sends headers and then trickles
// nothing of its body is cut off after BodyTimeout.
func TestHTTPSlowBodyCutOff(t *testing.T) {
	plan := onePlan(t, Episode{Template: "T01", FaultMode: ledger.FaultNone, Seed: 3})
	l, err := OpenLedger(filepath.Join(t.TempDir(), "l.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	srv := NewServer(plan, l, Options{BodyTimeout: 300 * time.Millisecond})
	url, _ := serveHTTPReal(t, srv)
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST / HTTP/1.1\r\nHost: "+strings.TrimPrefix(url, "http://")+"\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatalf("the slow body was not cut off within %v", time.Since(start))
	}
	if err == nil {
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("slow body: HTTP %d, want 400", resp.StatusCode)
		}
	}
	if srv.Pending() != 1 {
		t.Error("a cut-off request took an episode")
	}
}

// TestLedgerLock: a second open of a ledger in use fails and names the
// holder; after Close it opens again. A ledger that received nothing is
// not left behind.
func TestLedgerLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "L.jsonl")
	a, err := OpenLedger(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenLedger(path, nil)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("second open: %v, want ErrLocked naming pid %d", err, os.Getpid())
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("an empty ledger was left behind: %v", err)
	}
	if _, err := os.Stat(LockPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file was left behind: %v", err)
	}
	b, err := OpenLedger(path, nil)
	if err != nil {
		t.Fatalf("open after close: %v", err)
	}
	if err := b.AppendLine("e1", []byte(`{"episode_id":"e1"}`)); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if data, _ := os.ReadFile(path); string(data) != "{\"episode_id\":\"e1\"}\n" {
		t.Errorf("ledger holds %q", data)
	}
	// An existing empty ledger is the user's: it stays.
	empty := filepath.Join(t.TempDir(), "E.jsonl")
	os.WriteFile(empty, nil, 0o644)
	c, err := OpenLedger(empty, nil)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := os.Stat(empty); err != nil {
		t.Errorf("a user's empty ledger was removed: %v", err)
	}
}

// TestToolListing lists the tools over HTTP with the SDK client, with and
// without the annotations factor: the schemas carry the sandbox's limits,
// the annotations appear only when the plan asks, no list advertises
// listChanged, and the factor reaches the ledger line.
func TestToolListing(t *testing.T) {
	for _, annotated := range []bool{false, true} {
		plan := onePlan(t, Episode{Template: "T01", FaultMode: ledger.FaultNone, Seed: 3, Annotations: annotated})
		srv, url, path := httpServer(t, plan, Options{})
		ctx := testContext(t)
		cs := connectHTTP(t, ctx, url)
		caps := cs.InitializeResult().Capabilities
		if caps.Tools == nil || caps.Tools.ListChanged || caps.Prompts == nil || caps.Prompts.ListChanged || caps.Resources == nil || caps.Resources.ListChanged {
			t.Errorf("capabilities: %+v %+v %+v, want tools, prompts and resources without listChanged", caps.Tools, caps.Prompts, caps.Resources)
		}
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		tools := map[string]*sdk.Tool{}
		for _, tl := range res.Tools {
			tools[tl.Name] = tl
			if (tl.Annotations != nil) != annotated {
				t.Errorf("annotations=%t: tool %s has annotations %+v", annotated, tl.Name, tl.Annotations)
			}
		}
		prop := func(tool, param string) map[string]any {
			t.Helper()
			b, _ := json.Marshal(tools[tool].InputSchema)
			var s struct {
				Properties map[string]map[string]any `json:"properties"`
			}
			json.Unmarshal(b, &s)
			return s.Properties[param]
		}
		if p := prop("billing_create_charge", "amount_cents"); p["minimum"] != 1.0 || p["maximum"] == nil {
			t.Errorf("amount_cents schema %v, want minimum 1 and a maximum", p)
		}
		if p := prop("social_publish", "platform"); len(p["enum"].([]any)) != 4 {
			t.Errorf("platform schema %v, want the four platforms", p)
		}
		if p := prop("wait", "seconds"); p["minimum"] != 0.0 || p["maximum"] != 86400.0 {
			t.Errorf("wait schema %v", p)
		}
		if p := prop("data_insert_many", "rows"); p["minItems"] != 1.0 || p["maxItems"] != 500.0 {
			t.Errorf("rows schema %v", p)
		}
		if annotated {
			pub, list := tools["social_publish"].Annotations, tools["billing_list_charges"].Annotations
			if pub.ReadOnlyHint || pub.IdempotentHint || pub.DestructiveHint == nil || *pub.DestructiveHint || pub.OpenWorldHint == nil || !*pub.OpenWorldHint {
				t.Errorf("social_publish annotations %+v: want an additive, non-idempotent, open-world write", pub)
			}
			if del := tools["social_delete_post"].Annotations; del.DestructiveHint == nil || !*del.DestructiveHint || !del.IdempotentHint {
				t.Errorf("social_delete_post annotations %+v: want destructive and idempotent", del)
			}
			if !list.ReadOnlyHint || !list.IdempotentHint {
				t.Errorf("billing_list_charges annotations %+v: want read-only", list)
			}
		}
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "social_list_posts", Arguments: map[string]any{"platform": "mastodon"}}); err != nil {
			t.Fatal(err)
		}
		fin, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "finish", Arguments: map[string]any{"status": "failed", "uncertainties": []string{}}})
		if err != nil || fin.IsError || fin.StructuredContent == nil {
			t.Fatalf("finish: %v %+v", err, fin)
		}
		cs.Close()
		<-srv.Done()
		data, _ := os.ReadFile(path)
		want := `"annotations":` + strconv.FormatBool(annotated) + "}"
		if !strings.HasSuffix(strings.TrimSpace(string(data)), want) {
			t.Errorf("ledger line does not end with %s: %s", want, data)
		}
		if got := strings.Contains(plan.Episodes[0].EpisodeID, "+annotations"); got != annotated {
			t.Errorf("episode id %q", plan.Episodes[0].EpisodeID)
		}
	}
}
