package proxy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/ledgerfile"
)

// bins holds the upstream the process-level tests build once.
var bins = testfile.Bins{Prefix: "limbo-proxy-bin-", Pkgs: []string{"./testdata/upstream"}}

func TestMain(m *testing.M) {
	code := m.Run()
	bins.Remove()
	os.Exit(code)
}

// upstreamBin builds testdata/upstream once.
func upstreamBin(t testing.TB) string {
	t.Helper()
	return filepath.Join(bins.Dir(t), "upstream")
}

// TestUpstreamStart: an upstream that exits, hangs on start or speaks
// something else is an *UpstreamError with one line saying which, at once
// or at the start timeout.
func TestUpstreamStart(t *testing.T) {
	for _, c := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"sh", "-c", "exit 3"}, "sh -c exit 3: exited (exit status 3) before answering initialize"},
		{[]string{"sleep", "30"}, "sleep 30: no answer to initialize within 300ms"},
		{[]string{"sh", "-c", "echo hello; sleep 30"}, "not an MCP server (initialize failed: "},
		{[]string{"cat"}, "cat: not an MCP server"},
		{[]string{filepath.Join(t.TempDir(), "missing")}, "no such file or directory"},
	} {
		start := time.Now()
		up, err := Connect(context.Background(), UpstreamSpec{Command: c.cmd, StartTimeout: 300 * time.Millisecond})
		var ue *UpstreamError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want an upstream error with %q", c.cmd, err, c.want)
		}
		if up != nil {
			up.Close()
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%v: took %v", c.cmd, d)
		}
	}
}

// TestUpstreamDies: an upstream that exits mid-session fails the proxy
// with one line, and the episode that had started is recorded, the call
// it died on answered as an HTTP 500 and without an effect.
func TestUpstreamDies(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the test upstream")
	}
	state := filepath.Join(t.TempDir(), "state.txt")
	up, err := Connect(context.Background(), UpstreamSpec{Command: []string{upstreamBin(t), "-file", state}})
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	c := &Contract{Tools: map[string]*ToolSpec{}}
	if err := c.Resolve(up.Tools); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "proxy.jsonl")
	l, err := ledgerfile.Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ep := Episode{Tool: "insert", FaultMode: ledger.FaultNone}
	if err := ep.Normalize(false); err != nil {
		t.Fatal(err)
	}
	p, err := New(Options{Upstream: up, Contract: c, Single: ep, Ledger: l})
	if err != nil {
		t.Fatal(err)
	}
	cs, served := serveInMemory(t, p)
	callText(t, cs, "insert", map[string]any{"name": "a"})
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "crash", Arguments: map[string]any{}})
	if err == nil && !(res.IsError && strings.Contains(resultText(res), `"outcome":"http500"`)) {
		t.Errorf("the call the upstream died on: %+v", res)
	}
	select {
	case err = <-served:
	case <-time.After(10 * time.Second):
		t.Fatal("the proxy went on after its upstream died")
	}
	var ue *UpstreamError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "exited (exit status 3)") {
		t.Errorf("serve: %v, want the upstream's exit", err)
	}
	var eps []ledger.Episode
	if err := ledger.ReadEpisodes(path, ledger.ReadOptions{}, func(e *ledger.Episode) error { eps = append(eps, *e); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(eps) != 1 || eps[0].ToolCalls != 2 || eps[0].FocalCommits != 1 {
		t.Errorf("recorded %+v", eps)
	}
	if data, _ := os.ReadFile(state); string(data) != "a\n" {
		t.Errorf("upstream state %q", data)
	}
}
