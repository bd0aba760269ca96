package proxy

import (
	"context"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/ledgerfile"
)

// httpProxy serves the plan over streamable HTTP on a loopback port and
// returns the URL, the recorded episodes and a stop function that waits
// for the server to end.
func httpProxy(t *testing.T, up *Upstream, plan []Episode) (string, func() []graded) {
	t.Helper()
	c, err := ParseContract("contract.yaml", []byte(storeContract))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Resolve(up.Tools); err != nil {
		t.Fatal(err)
	}
	l, err := ledgerfile.Open(filepath.Join(t.TempDir(), "proxy.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var mu sync.Mutex
	var got []graded
	p, err := New(Options{Upstream: up, Contract: c, Plan: plan, HTTP: true, Ledger: l, Finish: true,
		OnEpisode: func(r *ledger.RawEpisode, g ledger.Episode) {
			mu.Lock()
			got = append(got, graded{r, g})
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- p.ServeHTTP(ctx, "127.0.0.1:0", false, HTTPOptions{FinishGrace: 50 * time.Millisecond}, func(a net.Addr) { addr <- a })
	}()
	var url string
	select {
	case a := <-addr:
		url = "http://" + a.String() + "/"
	case err := <-done:
		t.Fatal(err)
	}
	return url, func() []graded {
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(10 * time.Second):
			cancel()
			<-done
			t.Error("the proxy did not stop when the plan was done")
		}
		cancel()
		mu.Lock()
		defer mu.Unlock()
		return got
	}
}

func httpClient(t *testing.T, url string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil)
	cs, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// TestTransportFaults: over HTTP, a session lost or a stream dropped
// after the write was forwarded leaves the client with an error; a
// client that re-sends (in a new session when its session is lost)
// duplicates, and the continuation is the same episode.
func TestTransportFaults(t *testing.T) {
	for _, mode := range []string{ledger.FaultSessionLost, ledger.FaultStreamDrop} {
		t.Run(mode, func(t *testing.T) {
			st, up := connectStore(t)
			plan := []Episode{{Tool: "insert", FaultMode: mode}}
			for i := range plan {
				if err := plan[i].Normalize(true); err != nil {
					t.Fatal(err)
				}
				plan[i].EpisodeID = plan[i].Key(ledger.ContractNative)
			}
			url, stop := httpProxy(t, up, plan)
			cs := httpClient(t, url)
			args := map[string]any{"name": "a"}
			_, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "insert", Arguments: args})
			if err == nil {
				t.Fatal("the faulted call was answered")
			}
			if mode == ledger.FaultSessionLost {
				if !strings.Contains(err.Error(), "session") {
					t.Errorf("error %v, want the session's loss", err)
				}
				cs.Close()
				cs = httpClient(t, url) // the harness reconnects
			}
			callText(t, cs, "insert", args)
			callText(t, cs, "finish", map[string]any{"status": "completed", "uncertainties": []string{}})
			cs.Close()
			got := stop()
			if len(got) != 1 {
				t.Fatalf("%d episodes, want 1", len(got))
			}
			g := got[0]
			if !g.ep.Duplicated || !g.ep.FaultFired || st.count("a") != 2 || len(g.raw.Calls) != 2 || g.raw.FinalReport.Status != ledger.StatusCompleted {
				t.Errorf("dup %v fired %v rows %d calls %d report %+v", g.ep.Duplicated, g.ep.FaultFired, st.count("a"), len(g.raw.Calls), g.raw.FinalReport)
			}
		})
	}
}

// TestHTTPSessions: each session is the next planned episode; a plan
// served is refused new sessions (503) and the server stops; Host and
// Origin are checked as serve checks them.
func TestHTTPSessions(t *testing.T) {
	st, up := connectStore(t)
	plan := []Episode{{Tool: "insert", FaultMode: ledger.FaultTimeoutPost, Rep: 0}, {Tool: "insert", FaultMode: ledger.FaultTimeoutPre, Rep: 0}}
	for i := range plan {
		if err := plan[i].Normalize(true); err != nil {
			t.Fatal(err)
		}
		plan[i].EpisodeID = plan[i].Key(ledger.ContractNative)
	}
	url, stop := httpProxy(t, up, plan)
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(`{}`))
	req.Header.Set("Origin", "https://evil.example")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a foreign origin: %v %v", resp, err)
	}
	for range plan {
		cs := httpClient(t, url)
		blindRetry(t, cs, "insert", map[string]any{"name": "a"})
		cs.Close()
	}
	c := sdk.NewClient(&sdk.Implementation{Name: "late", Version: "0"}, nil)
	if _, err := c.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil); err == nil {
		t.Error("a session beyond the plan was accepted")
	}
	got := stop()
	if len(got) != 2 {
		t.Fatalf("%d episodes", len(got))
	}
	byMode := map[string]ledger.Episode{}
	for _, g := range got {
		byMode[g.ep.FaultMode] = g.ep
	}
	if !byMode[ledger.FaultTimeoutPost].Duplicated || byMode[ledger.FaultTimeoutPre].Duplicated || st.count("a") != 3 {
		t.Errorf("post dup %v, pre dup %v, rows %d", byMode[ledger.FaultTimeoutPost].Duplicated, byMode[ledger.FaultTimeoutPre].Duplicated, st.count("a"))
	}
}
