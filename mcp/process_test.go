package mcp

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/mcp/internal/scripted"
)

// startHTTP starts the built test server on a loopback port and returns
// its URL.
func startHTTP(t *testing.T, bin, planPath, ledgerPath string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(filepath.Join(bin, "serve"), "--plan", planPath, "--ledger", ledgerPath, "--http", "127.0.0.1:0")
	cmd.Dir = t.TempDir() // the server must write nothing here
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatalf("server did not start: %v", err)
	}
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if !ok {
		t.Fatalf("unexpected server output %q", line)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if entries, _ := os.ReadDir(cmd.Dir); len(entries) > 0 {
			t.Errorf("server wrote into its working directory: %v", entries)
		}
	})
	return cmd, "http://" + addr
}

// TestResumeAfterKill kills the HTTP server mid-plan (with an episode in
// progress and a torn line as a crash mid-write leaves), restarts it, and
// finishes the plan: every episode is recorded exactly once, no line is
// torn, and the episode in progress at the kill was served again from the
// start.
func TestResumeAfterKill(t *testing.T) {
	bin := buildBins(t)
	full, policies := policyPlan(t, []string{"vanilla"}, true)
	const n = 12
	plan, err := NewPlan(full.Episodes[:n])
	if err != nil {
		t.Fatal(err)
	}
	planPath := writePlan(t, plan)
	ledgerPath := filepath.Join(t.TempDir(), "resume.jsonl")
	ctx := testContext(t)

	cmd, url := startHTTP(t, bin, planPath, ledgerPath)
	for i := range 5 {
		if err := playHTTP(ctx, url, "native", policies[i], legacy); err != nil {
			t.Fatalf("episode %d: %v", i, err)
		}
	}
	// Episode 5 is in progress: connected, one call made, no finish.
	client := sdk.NewClient(&sdk.Implementation{Name: "limbo-test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, DisableStandaloneSSE: true, MaxRetries: -1},
		&sdk.ClientSessionOptions{ProtocolVersion: legacy})
	if err != nil {
		t.Fatal(err)
	}
	task, err := scripted.SessionTask(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	st := task.Steps[0]
	if _, err := (&scripted.Client{Ctx: ctx, Session: cs}).Call(st.Tool, st.Args); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	cs.Close()
	if got := len(readLedger(t, ledgerPath)); got != 5 {
		t.Fatalf("%d episodes before the restart, want 5", got)
	}
	// A crash in the middle of a write leaves a line without its end.
	f, err := os.OpenFile(ledgerPath, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, `{"episode_id":%q,"experiment":"te`, plan.Episodes[5].EpisodeID)
	f.Close()

	_, url = startHTTP(t, bin, planPath, ledgerPath)
	for i := 5; i < n; i++ {
		if err := playHTTP(ctx, url, "native", policies[i], legacy); err != nil {
			t.Fatalf("episode %d after the restart: %v", i, err)
		}
	}
	checkLedger(t, plan, policies[:n], ledgerPath, 0, n)
}

// TestDriveScripted drives the scripted harness binary over the built
// server, two at a time; the ledger equals the in-process one, a second
// drive has nothing to do, and a harness that never calls a tool leaves
// its episode pending.
func TestDriveScripted(t *testing.T) {
	t.Parallel()
	bin := buildBins(t)
	full, policies := policyPlan(t, []string{"vanilla"}, true)
	var eps []Episode
	var pols []string
	for i, ep := range full.Episodes {
		if policies[i] == scripted.VerifyRetry && len(eps) < 8 {
			eps = append(eps, ep)
			pols = append(pols, policies[i])
		}
	}
	plan, err := NewPlan(eps)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, err := OpenLedger(filepath.Join(dir, "drive.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	harness := filepath.Join(bin, "harness") + " -config {mcp_config} -policy verify-retry -task {task}"
	opts := DriveOptions{Plan: plan, Out: out, Harness: harness, Server: []string{filepath.Join(bin, "serve"), "serve"},
		ServerArgs: []string{"--think-s", "5"}, Parallel: 2, Timeout: time.Minute, Grace: 5 * time.Second}
	var events []DriveEvent
	opts.Progress = func(ev DriveEvent) { events = append(events, ev) }
	rec, failed, err := Drive(context.Background(), opts)
	if err != nil || rec != plan.Len() || failed != 0 {
		t.Fatalf("drive: %d recorded, %d failed, %v; events %+v", rec, failed, err, events)
	}
	checkLedger(t, plan, pols, out.Path(), 5, plan.Len())
	if rec, failed, err := Drive(context.Background(), opts); rec != 0 || failed != 0 || err != nil {
		t.Errorf("second drive: %d recorded, %d failed, %v; want nothing to do", rec, failed, err)
	}

	// A harness that only lists tools records nothing.
	idle, err := OpenLedger(filepath.Join(dir, "idle.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	one, _ := NewPlan(eps[:1])
	opts.Plan, opts.Out, opts.Harness = one, idle, harness+" -skip"
	events = nil
	rec, failed, err = Drive(context.Background(), opts)
	if rec != 0 || failed != 1 || err != nil {
		t.Fatalf("idle harness: %d recorded, %d failed, %v", rec, failed, err)
	}
	if msg := events[0].Err.Error(); !strings.Contains(msg, "no episode recorded") {
		t.Errorf("idle harness error %q", msg)
	}

	// Over a longer plan it stops after StopAfterFailures episodes rather
	// than failing them all (serially, so exactly that many ran).
	all, _ := NewPlan(eps)
	opts.Plan, opts.Parallel, opts.Grace = all, 1, time.Second
	rec, failed, err = Drive(context.Background(), opts)
	if rec != 0 || failed != StopAfterFailures || err == nil || !strings.Contains(err.Error(), "probably not reaching the server") {
		t.Errorf("idle harness over %d episodes: %d recorded, %d failed, %v; want a stop after %d", all.Len(), rec, failed, err, StopAfterFailures)
	}
}
