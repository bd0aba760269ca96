package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
)

// onePlan is a single-episode plan.
func onePlan(t testing.TB, ep Episode) *Plan {
	t.Helper()
	p, err := NewPlan([]Episode{ep})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// stdioPipe serves one episode in process over pipes and returns the
// client's ends and a channel with ServeStdio's result.
func stdioPipe(t *testing.T, srv *Server) (io.WriteCloser, *bufio.Reader, chan error) {
	t.Helper()
	cr, sw := io.Pipe() // server → client
	sr, cw := io.Pipe() // client → server
	done := make(chan error, 1)
	go func() {
		_, err := srv.ServeStdio(context.Background(), sr, sw)
		sw.Close()
		done <- err
	}()
	return cw, bufio.NewReader(cr), done
}

func rpc(t *testing.T, w io.Writer, r *bufio.Reader, line string) map[string]any {
	t.Helper()
	if _, err := io.WriteString(w, line+"\n"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line, `"id"`) {
		return nil
	}
	out, err := r.ReadBytes('\n')
	if err != nil {
		t.Fatalf("no answer to %s: %v", line, err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("answer is not JSON: %q", out)
	}
	return m
}

const initLine = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

// TestStdioBadInput speaks raw JSON-RPC: malformed messages, unknown tools,
// oversized and ill-typed arguments get protocol errors, the call budget
// ends the episode, and the server never dies of it.
func TestStdioBadInput(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "l.jsonl")
	l, err := OpenLedger(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	plan := onePlan(t, Episode{Template: "T03", FocalIndex: 0, FaultMode: ledger.FaultTimeoutPost, Seed: 3})
	srv := NewServer(plan, l, Options{Limits: Limits{MaxCalls: 4, MaxArgBytes: 512}})
	w, r, done := stdioPipe(t, srv)

	if m := rpc(t, w, r, initLine); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	rpc(t, w, r, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	isErr := func(m map[string]any) bool { _, ok := m["error"]; return ok }
	call := func(id int, body string) map[string]any {
		return rpc(t, w, r, `{"jsonrpc":"2.0","id":`+itoa(id)+`,"method":"tools/call","params":`+body+`}`)
	}
	if m := rpc(t, w, r, `{"jsonrpc":"2.0","id":2,"method":"no/such/method"}`); !isErr(m) {
		t.Errorf("unknown method: %v", m)
	}
	if m := call(3, `{"name":"rm_rf","arguments":{}}`); !isErr(m) {
		t.Errorf("unknown tool: %v", m)
	}
	big := `{"name":"billing_list_charges","arguments":{"customer_id":"` + strings.Repeat("a", 600) + `"}}`
	if m := call(4, big); !isErr(m) {
		t.Errorf("oversized arguments: %v", m)
	}
	if m := call(5, `{"name":"billing_list_charges","arguments":[1,2]}`); !isErr(m) {
		t.Errorf("arguments not an object: %v", m)
	}
	if m := call(6, `{"name":"finish","arguments":{"status":"done","uncertainties":[]}}`); isErr(m) || m["result"].(map[string]any)["isError"] != true {
		t.Errorf("bad finish status should be a tool error the agent can fix: %v", m)
	}
	// Wrong argument types reach the sandbox, which answers 400.
	if m := call(7, `{"name":"billing_list_charges","arguments":{"customer_id":7}}`); isErr(m) || !strings.Contains(text(m), "http400") {
		t.Errorf("ill-typed argument: %v", m)
	}
	// Garbage on the line: a JSON-RPC error each, and the session goes on.
	for _, bad := range []string{"{this is not json", "[]", `{"jsonrpc":"1.0","id":5,"method":"ping"}`, `{"id":5}`, strings.Repeat("x", 2<<20)} {
		io.WriteString(w, bad+"\n")
		out, err := r.ReadBytes('\n')
		if err != nil {
			t.Fatalf("no answer to garbage %.20q: %v", bad, err)
		}
		var m map[string]any
		if json.Unmarshal(out, &m) != nil || m["error"] == nil {
			t.Errorf("garbage %.20q: answer %s, want a JSON-RPC error", bad, out)
		}
	}
	if m := call(8, `{"name":"billing_list_charges","arguments":{"customer_id":"c1"}}`); isErr(m) {
		t.Errorf("valid call after garbage: %v", m)
	}
	// Counted so far: the oversized and the non-object calls, the 400 and
	// call 8 (the unknown tool never reached the episode): the budget of 4
	// is spent, later calls are refused.
	m := call(9, `{"name":"billing_list_charges","arguments":{"customer_id":"c1"}}`)
	if !strings.Contains(text(m), "episode has ended") {
		t.Errorf("call over the budget: %v", m)
	}
	w.Close()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("ServeStdio: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop after the client left")
	}
	got := readLedger(t, path)
	if len(got) != 1 {
		t.Fatalf("%d episodes recorded, want 1", len(got))
	}
	if got[0].ReportedSuccess {
		t.Error("an episode ended by its budget reports no success")
	}
	// Only the ledger and its creation sidecar were written; its lock goes
	// with the close.
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 || entries[0].Name() != filepath.Base(CreatedPath(path)) || entries[1].Name() != filepath.Base(path) {
		t.Errorf("files in the ledger's directory: %v", entries)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

func text(m map[string]any) string {
	res, _ := m["result"].(map[string]any)
	b, _ := json.Marshal(res["content"])
	return string(b)
}

// TestIdleSessionNotRecorded: a session that only lists tools leaves its
// episode pending (harnesses probe servers at start-up).
func TestIdleSessionNotRecorded(t *testing.T) {
	plan := onePlan(t, Episode{Template: "T01", FaultMode: ledger.FaultNone, Seed: 1})
	srv, url, path := httpServer(t, plan, Options{})
	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "probe", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Every tool of the contract is there with a schema, plus finish and wait.
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
		if tl.Description == "" || tl.InputSchema == nil {
			t.Errorf("tool %s lacks a description or schema", tl.Name)
		}
	}
	for _, n := range []string{"finish", "wait", "social_publish", "billing_create_charge"} {
		if !names[n] {
			t.Errorf("tool %s not offered", n)
		}
	}
	cs.Close()
	deadline := time.Now().Add(5 * time.Second)
	for srv.Pending() != 1 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if srv.Pending() != 1 {
		t.Fatalf("pending %d after an idle session, want 1", srv.Pending())
	}
	if data, _ := os.ReadFile(path); len(data) != 0 {
		t.Errorf("idle session recorded: %s", data)
	}
	// The episode then goes to the next session.
	if err := playHTTP(ctx, url, ledger.ContractNative, "blind-retry", legacy); err != nil {
		t.Fatal(err)
	}
	if n := len(readLedger(t, path)); n != 1 {
		t.Errorf("%d episodes, want 1", n)
	}
	// Plan exhausted: a new session is refused.
	if err := playHTTP(ctx, url, ledger.ContractNative, "blind-retry", legacy); err == nil {
		t.Error("a session beyond the plan was accepted")
	}
}

// TestHTTPGuards: DNS-rebinding Host headers are refused, and ServeHTTP
// binds only loopback addresses unless told otherwise.
func TestHTTPGuards(t *testing.T) {
	plan := onePlan(t, Episode{Template: "T01", FaultMode: ledger.FaultNone, Seed: 1})
	srv, url, _ := httpServer(t, plan, Options{})
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(initLine))
	req.Host = "evil.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("foreign Host: status %d, want 403", resp.StatusCode)
	}
	// Malformed JSON-RPC over HTTP.
	req, _ = http.NewRequest(http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode < 400 {
		t.Errorf("malformed JSON-RPC: status %d (%s)", resp.StatusCode, body)
	}
	if srv.Pending() != 1 {
		t.Errorf("bad requests took an episode: %d pending", srv.Pending())
	}
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:0", ":0"} {
		if err := srv.ServeHTTP(context.Background(), addr, false, nil); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("ServeHTTP(%s): %v, want a loopback refusal", addr, err)
		}
	}
}

// FuzzDecodeArgs: argument decoding never panics, accepts only JSON
// objects within the limit, and what it accepts survives re-encoding.
func FuzzDecodeArgs(f *testing.F) {
	for _, s := range []string{`{}`, `null`, ``, `{"a":1}`, `[1]`, `"x"`, `{"a":{"b":[1,2,{"c":null}]}}`, `{"a":1e400}`, `{`, `{"a":"\ud800"}`, "  {\"k\": true}  "} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		args, err := DecodeArgs(data, 4096)
		if err != nil {
			return
		}
		if len(data) > 4096 {
			t.Fatalf("accepted %d bytes over the limit", len(data))
		}
		if args == nil {
			t.Fatal("nil map without error")
		}
		if _, err := json.Marshal(args); err != nil {
			t.Fatalf("decoded arguments do not re-encode: %v", err)
		}
		if t := bytes.TrimSpace(data); len(t) > 0 && !bytes.Equal(t, []byte("null")) && t[0] != '{' {
			panic("accepted a non-object")
		}
	})
}
