package proxy

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/guard/sqlitestore"
	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/ledgerfile"
)

var (
	cliOnce sync.Once
	cliPath string
	cliErr  error
)

// cliBin builds limbo-analyze once, for the benchmarks that run the
// proxy as the process a harness starts.
func cliBin(b testing.TB) string {
	b.Helper()
	dir := bins.Dir(b)
	cliOnce.Do(func() {
		cliPath = filepath.Join(dir, "limbo-analyze")
		if out, err := exec.Command("go", "build", "-o", cliPath, "../../cmd/limbo-analyze").CombinedOutput(); err != nil {
			cliErr = fmt.Errorf("go build limbo-analyze: %v\n%s", err, out)
		}
	})
	if cliErr != nil {
		b.Fatal(cliErr)
	}
	return cliPath
}

// benchCalls times one echo call per iteration over stdio against the
// command and reports the median and p99 latency, and the CPU time the
// command's process spent per call (user and system, read from /proc
// while it runs: its own, not its upstream's, which the rusage of a
// waited-for process would add in), which the machine's load does not
// inflate.
func benchCalls(b *testing.B, argv []string) {
	cmd := exec.Command(argv[0], argv[1:]...)
	if g := os.Getenv("BENCH_GOGC"); g != "" {
		cmd.Env = append(os.Environ(), "GOGC="+g)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	closed := false
	defer func() {
		if !closed {
			cs.Close()
		}
	}()
	params := &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"name": "a"}}
	for range 200 { // warm up both ends
		if _, err := cs.CallTool(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}
	lat := make([]time.Duration, 0, b.N)
	cpu0, cpuOK := procCPU(cmd.Process.Pid)
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if _, err := cs.CallTool(context.Background(), params); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	cpu1, cpuOK1 := procCPU(cmd.Process.Pid)
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
	if cpuOK && cpuOK1 {
		b.ReportMetric(float64((cpu1-cpu0).Microseconds())/float64(len(lat)), "server-cpu-µs/call")
	}
	cs.Close()
	closed = true
}

// procCPU is the user and system time the process has spent itself (not
// its children's), from /proc/PID/stat; false where there is no /proc.
func procCPU(pid int) (time.Duration, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The fields after the command name (which may hold spaces): state
	// is the 3rd field of the line, utime the 14th, stime the 15th.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 13 {
		return 0, false
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const ticks = 100 // USER_HZ: clock ticks per second on Linux
	return time.Duration(ut+st) * time.Second / ticks, true
}

// BenchmarkCallDirect and BenchmarkCallProxied time a tools/call over
// stdio from an SDK client to the same upstream process, directly and
// through `limbo-analyze proxy` (no fault, no ledger): the proxy's added
// latency is the difference of their medians (docs/proxy.md, Overhead).
func BenchmarkCallDirect(b *testing.B) {
	benchCalls(b, []string{upstreamBin(b), "-file", filepath.Join(b.TempDir(), "state")})
}

func BenchmarkCallProxied(b *testing.B) {
	benchCalls(b, []string{cliBin(b), "proxy", "--", upstreamBin(b), "-file", filepath.Join(b.TempDir(), "state")})
}

// BenchmarkCallProxiedLedger is BenchmarkCallProxied with the episode
// recorded (the ledger line is written when the session ends).
func BenchmarkCallProxiedLedger(b *testing.B) {
	benchCalls(b, []string{cliBin(b), "proxy", "--ledger", filepath.Join(b.TempDir(), "l.jsonl"), "--", upstreamBin(b), "-file", filepath.Join(b.TempDir(), "state")})
}

// heapInUse is the live heap after a full collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// storeProxy is a proxy over the in-process store (reached as connect
// reaches it), serving the upsert (or insert) world of opts.Single
// without a fault, over HTTP sessions.
func storeProxy(b *testing.B, connect func(testing.TB) (*store, *Upstream), tool string, opts Options) *Proxy {
	b.Helper()
	_, up := connect(b)
	c, err := ParseContract("c.yaml", []byte(storeContract))
	if err != nil {
		b.Fatal(err)
	}
	if err := c.Resolve(up.Tools); err != nil {
		b.Fatal(err)
	}
	ep := Episode{Tool: tool, FaultMode: ledger.FaultNone}
	if err := ep.Normalize(true); err != nil {
		b.Fatal(err)
	}
	opts.Upstream, opts.Contract, opts.Single, opts.HTTP = up, c, ep, true
	p, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkSessionsMemory serves b.N sessions of one call each, one after
// another, each recorded as a ledger line, and reports the live heap
// after the last against the heap after the first tenth: flat memory is
// a growth near zero bytes per session (what remains per session is the
// ledger's set of recorded ids).
func BenchmarkSessionsMemory(b *testing.B) {
	l, err := ledgerfile.Open(filepath.Join(b.TempDir(), "l.jsonl"), nil)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	p := storeProxy(b, connectStore, "upsert", Options{Ledger: l})
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil)
	var base uint64
	n := 0
	for b.Loop() {
		ct, st := sdk.NewInMemoryTransports()
		ss, err := p.srv.Connect(context.Background(), st, nil)
		if err != nil {
			b.Fatal(err)
		}
		cs, err := client.Connect(context.Background(), ct, nil)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "upsert", Arguments: map[string]any{"name": "a"}}); err != nil {
			b.Fatal(err)
		}
		cs.Close()
		_ = ss.Wait()
		p.waitEnded()
		if n++; n == max(b.N/10, 1) {
			b.StopTimer()
			base = heapInUse()
			b.StartTimer()
		}
	}
	b.StopTimer()
	if l.Len() != n {
		b.Fatalf("%d lines for %d sessions", l.Len(), n)
	}
	grown := float64(heapInUse()) - float64(base)
	b.ReportMetric(grown/float64(max(n-n/10, 1)), "heap-B/session")
	b.ReportMetric(float64(heapInUse())/(1<<20), "heap-MiB")
}

// BenchmarkConcurrentHTTPSessions opens 1,000 streamable-HTTP sessions at
// once (each initialized with one call, and left open), then closes them,
// and reports the live heap per open session and what is left after.
func BenchmarkConcurrentHTTPSessions(b *testing.B) {
	const sessions = 1000
	p := storeProxy(b, connectStore, "upsert", Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	addr := make(chan net.Addr, 1)
	go func() { _ = p.ServeHTTP(ctx, "127.0.0.1:0", false, HTTPOptions{}, func(a net.Addr) { addr <- a }) }()
	url := "http://" + (<-addr).String() + "/"
	for b.Loop() {
		before := heapInUse()
		css := make([]*sdk.ClientSession, sessions)
		var wg sync.WaitGroup
		errs := make(chan error, sessions)
		for i := range css {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cs, err := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx,
					&sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1}, nil)
				if err == nil {
					_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "upsert", Arguments: map[string]any{"name": "a"}})
				}
				if err != nil {
					errs <- err
					return
				}
				css[i] = cs
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			b.Fatal(err)
		}
		open := heapInUse()
		for _, cs := range css {
			cs.Close()
		}
		p.waitEnded()
		after := heapInUse()
		b.ReportMetric((float64(open)-float64(before))/sessions, "heap-B/open-session")
		b.ReportMetric((float64(after)-float64(before))/sessions, "heap-B/closed-session")
	}

}

// BenchmarkInProcessProxied is a call through the proxy with both hops
// in memory: the proxy's own CPU per call, without process switches.
func BenchmarkInProcessProxied(b *testing.B) {
	_, up := connectStore(b)
	f := startProxy(b, up, storeContract, Episode{FaultMode: ledger.FaultNone}, nil)
	params := &sdk.CallToolParams{Name: "count", Arguments: map[string]any{"name": "a"}}
	for b.Loop() {
		if _, err := f.cs.CallTool(context.Background(), params); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkInProcessDirect is the same call to the upstream directly.
func BenchmarkInProcessDirect(b *testing.B) {
	_, up := connectStore(b)
	for b.Loop() {
		if _, err := up.CallTool(context.Background(), "count", []byte(`{"name":"a"}`)); err != nil {
			b.Fatal(err)
		}
	}
}

// keyedWrites makes b.N inserts, each with its own idempotency key, over
// the sessions at once, each taking the next write as it comes free.
func keyedWrites(ctx context.Context, b *testing.B, css []*sdk.ClientSession) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for _, cs := range css {
		wg.Go(func() {
			for {
				n := next.Add(1)
				if n > int64(b.N) {
					return
				}
				res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "insert", Arguments: map[string]any{"name": "a", "idempotency_key": fmt.Sprint("k", n)}})
				if err != nil || res.IsError {
					b.Errorf("write %d: %v %v", n, err, res)
					return
				}
			}
		})
	}
	wg.Wait()
}

// BenchmarkGuardKeyedWrites: keyed writes through the keys guard over the
// durable SQLite store, from 32 sessions at once (each write's two
// transitions committed before its answer, concurrent ones in one
// transaction), in process: the agents' SDK clients, the proxy (its
// sessions as the SDK serves HTTP ones, its upstream over a byte stream
// as a command's stdio) and the upstream's SDK server. It reports writes
// per second, the process's CPU time per write (all of it: the 2-core
// ceiling is 2 s of CPU per second over it), and the group commit.
func BenchmarkGuardKeyedWrites(b *testing.B) {
	const sessions = 32
	st, err := sqlitestore.Open(context.Background(), filepath.Join(b.TempDir(), "guard.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	p := storeProxy(b, connectStreamStore, "insert", Options{Guard: &GuardOptions{Config: guard.Config{Policy: guard.Keys}, Store: st}})
	client := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil)
	css := make([]*sdk.ClientSession, sessions)
	for i := range css {
		ct, sst := sdk.NewInMemoryTransports()
		if _, err := p.srv.Connect(context.Background(), sst, nil); err != nil {
			b.Fatal(err)
		}
		if css[i], err = client.Connect(context.Background(), ct, nil); err != nil {
			b.Fatal(err)
		}
	}
	before := st.Stats()
	start := time.Now()
	cpu := testfile.CPUSeconds()
	b.ResetTimer()
	keyedWrites(context.Background(), b, css)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "writes/s")
	if c := testfile.CPUSeconds(); c > 0 {
		b.ReportMetric((c-cpu)*1e6/float64(b.N), "cpu-µs/write")
	}
	if after := st.Stats(); after.Commits > before.Commits {
		b.ReportMetric(float64(after.Transitions-before.Transitions)/float64(after.Commits-before.Commits), "transitions/commit")
	}
	for _, cs := range css {
		cs.Close()
	}
}

// BenchmarkGuardKeyedWritesHTTP is the guard as deployed: `limbo-analyze
// proxy --http --guard keys --state FILE` in front of a command upstream
// (testdata/upstream, whose insert appends a line to a file), 32
// streamable-HTTP sessions at once from this process writing under keys of
// their own. It reports writes per second and the CPU time per write of
// the proxy process itself, of its upstream and of the agents (this
// process: the SDK's HTTP clients).
func BenchmarkGuardKeyedWritesHTTP(b *testing.B) {
	const sessions = 32
	dir := b.TempDir()
	cmd := exec.Command(cliBin(b), "proxy", "--http", "127.0.0.1:0", "--guard", "keys", "--state", filepath.Join(dir, "guard.db"),
		"--", upstreamBin(b), "-file", filepath.Join(dir, "state"))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(os.Interrupt)
		_ = cmd.Wait()
	}()
	url := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, after, ok := strings.Cut(sc.Text(), "MCP streamable HTTP on "); ok {
				u, _, _ := strings.Cut(after, " ")
				url <- u
			}
		}
	}()
	var endpoint string
	select {
	case endpoint = <-url:
	case <-time.After(30 * time.Second):
		b.Fatal("the proxy did not start")
	}
	ctx := context.Background()
	css := make([]*sdk.ClientSession, sessions)
	for i := range css {
		if css[i], err = sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx,
			&sdk.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true, MaxRetries: -1}, nil); err != nil {
			b.Fatal(err)
		}
		defer css[i].Close()
	}
	upPid := childOf(cmd.Process.Pid)
	proxy0, _ := procCPU(cmd.Process.Pid)
	up0, _ := procCPU(upPid)
	self0 := testfile.CPUSeconds()
	start := time.Now()
	b.ResetTimer()
	keyedWrites(ctx, b, css)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "writes/s")
	per := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	if proxy1, ok := procCPU(cmd.Process.Pid); ok {
		b.ReportMetric(per(proxy1-proxy0), "proxy-cpu-µs/write")
	}
	if up1, ok := procCPU(upPid); ok && upPid > 0 {
		b.ReportMetric(per(up1-up0), "upstream-cpu-µs/write")
	}
	if c := testfile.CPUSeconds(); c > 0 {
		b.ReportMetric((c-self0)*1e6/float64(b.N), "agents-cpu-µs/write")
	}
}

// childOf is a child of a process (0 if it has none, or there is no
// /proc): the process whose stat names pid as its parent.
func childOf(pid int) int {
	dirs, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	for _, d := range dirs {
		n, err := strconv.Atoi(d.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", n))
		i := bytes.LastIndexByte(b, ')')
		if err != nil || i < 0 {
			continue
		}
		// After the name: the state, then the parent's pid.
		if f := strings.Fields(string(b[i+1:])); len(f) > 1 && f[1] == strconv.Itoa(pid) {
			return n
		}
	}
	return 0
}
