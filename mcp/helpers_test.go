package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/internal/scripted"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// bins holds the test server (testdata/serve) and the scripted harness
// (testdata/harness), which the process-level tests build once.
var bins = testfile.Bins{Prefix: "limbo-mcp-bin-", Pkgs: []string{"./testdata/serve", "./testdata/harness"}}

func TestMain(m *testing.M) {
	code := m.Run()
	bins.Remove()
	os.Exit(code)
}

// buildBins builds the test server and the scripted harness once and
// returns their directory.
func buildBins(t testing.TB) string {
	t.Helper()
	return bins.Dir(t)
}

// reference plays the policy on an in-process world with the same
// middleware and think time as the server, and grades it.
func reference(t testing.TB, ep *Episode, task *sandbox.Task, policy string, think float64) ledger.Episode {
	t.Helper()
	w, err := sandbox.NewWorld(ep.Spec(task))
	if err != nil {
		t.Fatalf("%s: %v", ep.EpisodeID, err)
	}
	c, err := ConditionCaller(w, ep, task)
	if err != nil {
		t.Fatal(err)
	}
	door := &scripted.Local{W: c, ThinkS: think}
	if err := scripted.Play(door, task, ep.Contract, policy); err != nil {
		t.Fatalf("%s: reference play: %v", ep.EpisodeID, err)
	}
	raw := w.Finish(*door.Report)
	ep.Label(&raw.Episode)
	g, err := sandbox.Grade(raw)
	if err != nil {
		t.Fatalf("%s: grade: %v", ep.EpisodeID, err)
	}
	ep.Label(&g)
	return g
}

// readLedger decodes every line of a ledger file.
func readLedger(t testing.TB, path string) []ledger.Episode {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Fatalf("%s: torn last line", path)
	}
	var eps []ledger.Episode
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for n := 1; sc.Scan(); n++ {
		var e ledger.Episode
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		if err := dec.Decode(&e); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		eps = append(eps, e)
	}
	return eps
}

// diffEpisodes compares two graded episodes field by field (as their JSON
// columns) and returns the differences.
func diffEpisodes(a, b ledger.Episode) []string {
	ma, mb := columns(a), columns(b)
	var keys []string
	for k := range ma {
		keys = append(keys, k)
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var d []string
	for _, k := range keys {
		if !reflect.DeepEqual(ma[k], mb[k]) {
			d = append(d, fmt.Sprintf("%s: %v != %v", k, ma[k], mb[k]))
		}
	}
	return d
}

func columns(e ledger.Episode) map[string]any {
	b, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		panic(err)
	}
	return m
}

// httpServer serves the plan on a loopback test server.
func httpServer(t testing.TB, plan *Plan, opts Options) (*Server, string, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ledger.jsonl")
	l, err := OpenLedger(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	srv := NewServer(plan, l, opts)
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	return srv, ts.URL, path
}

// testHTTPClient keeps enough idle connections for the concurrent
// clients of the benchmark (the default keeps two per host).
var testHTTPClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxIdleConns: 64}}

// legacy is the newest protocol version with sessions.
const legacy = "2025-11-25"

// playHTTP connects one session, plays the policy on the task the server
// offers and closes the session.
func playHTTP(ctx context.Context, url, contract, policy string, version string) error {
	client := sdk.NewClient(&sdk.Implementation{Name: "limbo-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1, HTTPClient: testHTTPClient},
		&sdk.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		return err
	}
	defer cs.Close()
	// The task named in the initialize result, as a harness reading the
	// instructions would; the stdio tests and the harness read the task
	// resource instead.
	task, err := scripted.InitTask(cs)
	if err != nil {
		return err
	}
	return scripted.Play(&scripted.Client{Ctx: ctx, Session: cs}, task, contract, policy)
}

// writePlan writes a plan file.
func writePlan(t testing.TB, plan *Plan) string {
	t.Helper()
	data, err := plan.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "plan.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// testContext is a context that ends shortly before the test binary's own
// deadline (go test -timeout), so a slow run (-race, a loaded machine)
// fails with the test's message rather than a fixed wall-clock budget
// chosen for a fast one. Without a deadline it never ends.
func testContext(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.Background(), context.CancelFunc(func() {})
	if tt, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if d, ok := tt.Deadline(); ok {
			// Leave room for the test to report and clean up.
			ctx, cancel = context.WithDeadline(ctx, d.Add(-time.Until(d)/20-time.Second))
		}
	}
	t.Cleanup(cancel)
	return ctx
}
