package mcp

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/internal/testfile"
)

// BenchmarkHTTPEpisodes measures whole episodes (connect, take the task
// from the initialize result, play blind retry, finish, close; the server
// grades and appends with a group-committed fsync) by 16 concurrent
// scripted clients over loopback streamable HTTP.
// Each iteration serves a fresh 128-episode plan into a fresh ledger.
func BenchmarkHTTPEpisodes(b *testing.B) {
	const batch, workers = 128, 16
	full, policies := policyPlan(b, []string{"vanilla"}, true)
	plan, err := NewPlan(full.Episodes[:batch])
	if err != nil {
		b.Fatal(err)
	}
	var cur atomic.Pointer[http.Handler]
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*cur.Load()).ServeHTTP(w, r) }))
	defer ts.Close()
	dir := b.TempDir()
	// As serve does: the SDK's decoder allocates a 32 KiB buffer per
	// unmarshal (about 75 per episode, client and server: ~2.5 MB), and a
	// lazier collector halves the CPU per episode.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	ctx := context.Background()
	n := 0
	cpu0 := testfile.CPUSeconds()
	for b.Loop() {
		n++
		l, err := OpenLedger(filepath.Join(dir, "l"+string(rune('a'+n%26))+string(rune('a'+n/26%26))+".jsonl"), nil)
		if err != nil {
			b.Fatal(err)
		}
		srv := NewServer(plan, l, Options{Limits: Limits{ThinkS: 10}})
		h := srv.Handler()
		cur.Store(&h)
		// Sessions take episodes in arrival order, so the policy is not
		// tied to the episode here.
		playConcurrently(ctx, b, ts.URL, workers, policies[:batch])
		<-srv.Done()
		l.Close()
	}
	b.ReportMetric(float64(batch*n)/b.Elapsed().Seconds(), "episodes/s")
	// The machine may be shared: CPU per episode (client and server
	// together) says what a free core would do.
	b.ReportMetric((testfile.CPUSeconds()-cpu0)*1e3/float64(batch*n), "cpu-ms/episode")
}

// playConcurrently plays one scripted episode per policy, native
// contract, over streamable HTTP at url from the given number of
// concurrent clients, each taking the next policy in turn.
func playConcurrently(ctx context.Context, b *testing.B, url string, workers int, policies []string) {
	var wg sync.WaitGroup
	var next atomic.Int64
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= len(policies) {
					return
				}
				if err := playHTTP(ctx, url, "native", policies[i], legacy); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkDriveStdio measures Drive over stdio with a process per
// episode: the scripted harness binary starts the test server binary for
// each of 16 episodes, two at a time, into a fresh ledger per iteration.
func BenchmarkDriveStdio(b *testing.B) {
	const batch = 16
	bin := buildBins(b)
	full, _ := policyPlan(b, []string{"vanilla"}, true)
	plan, err := NewPlan(full.Episodes[:batch])
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	opts := DriveOptions{Plan: plan, Harness: filepath.Join(bin, "harness") + " -config {mcp_config} -policy blind-retry -task {task}",
		Server: []string{filepath.Join(bin, "serve"), "serve"}, Parallel: 4}
	n := 0
	for b.Loop() {
		n++
		l, err := OpenLedger(filepath.Join(dir, "d"+strconv.Itoa(n)+".jsonl"), nil)
		if err != nil {
			b.Fatal(err)
		}
		opts.Out = l
		if rec, failed, err := Drive(context.Background(), opts); rec != batch || err != nil {
			b.Fatalf("%d recorded, %d failed, %v", rec, failed, err)
		}
		l.Close()
	}
	b.ReportMetric(float64(batch*n)/b.Elapsed().Seconds(), "episodes/s")
}

// BenchmarkHTTPServerProcess serves 256 episodes per iteration from the
// built test server in its own process to 16 concurrent scripted clients
// in this one, and reports the server process's CPU per episode (from
// /proc), which says what the server alone sustains per core.
func BenchmarkHTTPServerProcess(b *testing.B) {
	const batch, workers = 256, 16
	bin := buildBins(b)
	var eps []Episode
	var pols []string
	base, policies := policyPlan(b, []string{"vanilla"}, true)
	for rep := 0; len(eps) < batch; rep++ {
		for i, ep := range base.Episodes {
			if len(eps) == batch {
				break
			}
			ep.Experiment = "bench" + strconv.Itoa(rep)
			ep.EpisodeID = ""
			eps = append(eps, ep)
			pols = append(pols, policies[i])
		}
	}
	plan, err := NewPlan(eps)
	if err != nil {
		b.Fatal(err)
	}
	planPath := writePlan(b, plan)
	dir := b.TempDir()
	ctx := context.Background()
	var serverCPU time.Duration
	n := 0
	for b.Loop() {
		n++
		cmd := exec.Command(filepath.Join(bin, "serve"), "--plan", planPath, "--ledger", filepath.Join(dir, strconv.Itoa(n)+".jsonl"), "--http", "127.0.0.1:0")
		out, _ := cmd.StdoutPipe()
		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			b.Fatal(err)
		}
		url := "http://" + strings.TrimSpace(strings.TrimPrefix(line, "listening "))
		playConcurrently(ctx, b, url, workers, pols[:batch])
		if err := cmd.Wait(); err != nil { // exits once every episode is recorded
			b.Fatal(err)
		}
		serverCPU += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	}
	b.ReportMetric(float64(batch*n)/b.Elapsed().Seconds(), "episodes/s")
	b.ReportMetric(serverCPU.Seconds()*1e3/float64(batch*n), "server-cpu-ms/episode")
}
