package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// TestServeUsage: bad flag combinations are usage errors (exit 2) and
// touch no file.
func TestServeUsage(t *testing.T) {
	dir := t.TempDir()
	l := filepath.Join(dir, "l.jsonl")
	cases := [][]string{
		{"serve", "--transport", "carrier-pigeon", "--ledger", l},
		{"serve"},
		{"serve", "--plan", "p.json", "--template", "T01", "--ledger", l},
		{"serve", "--fault", "timeout_pre", "--ledger", l},
		{"serve", "--transport", "http", "--addr", "0.0.0.0:8765", "--ledger", l},
		{"serve", "--think-s", "-1", "--ledger", l},
		{"serve", "--template", "T99", "--ledger", l},
		{"serve", "--template", "T01", "--fault", "nosuch", "--ledger", l},
		{"serve", "--template", "T01", "--contract", "nosuch", "--ledger", l},
		{"drive", "--harness", "true", "--out", l, "--shard", "5/4"},
		{"drive", "--out", l},
		{"drive", "--harness", "true"},
		{"drive", "--harness", "true", "--out", l, "--parallel", "0"},
		{"serve", "--ledger", filepath.Join(dir, "l.txt")},
		{"drive", "--harness", "true", "--out", filepath.Join(dir, "l.csv")},
	}
	for _, args := range cases {
		var stdout, stderr bytes.Buffer
		if code := run(args, strings.NewReader(""), &stdout, &stderr); code != exitUsage {
			t.Errorf("%v: exit %d, want %d (stderr %q)", args, code, exitUsage, stderr.String())
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("usage errors created files: %v", entries)
	}
	// Issue 28 item 11: a missing port was "not a loopback address".
	for _, tt := range []struct{ addr, want string }{
		{"127.0.0.1", `--addr "127.0.0.1": the port is missing`},
		{"127.0.0.1:99999", `port "99999" is not a number from 0 to 65535`},
		{"0.0.0.0:8765", "--addr 0.0.0.0:8765 is not a loopback address; pass --allow-remote"},
	} {
		var stdout, stderr bytes.Buffer
		code := run([]string{"serve", "--transport", "http", "--addr", tt.addr, "--ledger", l}, strings.NewReader(""), &stdout, &stderr)
		if code != exitUsage || !strings.Contains(stderr.String(), tt.want) || strings.Contains(stderr.String(), "loopback") != strings.Contains(tt.want, "loopback") {
			t.Errorf("serve --addr %s: exit %d, stderr %q; want exit 2 and %q", tt.addr, code, stderr.String(), tt.want)
		}
	}
	var stdout, stderr bytes.Buffer
	if code := run([]string{"serve", "--plan", filepath.Join(dir, "missing.json"), "--ledger", l}, nil, &stdout, &stderr); code != exitFailure ||
		!strings.Contains(stderr.String(), "missing.json") {
		t.Errorf("missing plan: exit %d, stderr %q", code, stderr.String())
	}
}

// TestServePrintTask prints the instruction of the episode it would serve.
func TestServePrintTask(t *testing.T) {
	task, err := sandbox.NewTask("T03", 0)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"serve", "--template", "T03", "--focal-index", "1", "--fault", "timeout_late", "--print-task"}, nil, &stdout, &stderr)
	if code != exitOK || !strings.HasPrefix(stdout.String(), task.Instruction) || !strings.Contains(stdout.String(), "exactly once") {
		t.Errorf("exit %d, stdout %q, want the instruction %q and the exactly-once sentence (stderr %q)", code, stdout.String(), task.Instruction, stderr.String())
	}
	first := stdout.String()
	// With a ledger, the next pending episode of the plan.
	plan := filepath.Join("..", "..", "testdata", "mcp", "plan-example.json")
	stdout.Reset()
	if code := run([]string{"serve", "--plan", plan, "--ledger", filepath.Join(t.TempDir(), "l.jsonl"), "--print-task"}, nil, &stdout, &stderr); code != exitOK || stdout.String() != first {
		t.Errorf("plan: exit %d, stdout %q", code, stdout.String())
	}
}

// recorder keeps a copy of what goes through a pipe writer.
type recorder struct {
	mu  sync.Mutex
	buf bytes.Buffer
	w   io.WriteCloser
}

func (r *recorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.buf.Write(p)
	r.mu.Unlock()
	return r.w.Write(p)
}

func (r *recorder) Close() error { return r.w.Close() }

// TestServeStdio runs serve in process on pipes with an SDK client: the
// episode is served and recorded, stdout carries only JSON-RPC, and the
// messages go to stderr.
func TestServeStdio(t *testing.T) {
	ledgerPath := filepath.Join(t.TempDir(), "l.jsonl")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	rec := &recorder{w: outW}
	var stderr bytes.Buffer
	code := make(chan int, 1)
	go func() {
		code <- run([]string{"serve", "--template", "T03", "--focal-index", "0", "--fault", "timeout_post", "--model", "m1", "--ledger", ledgerPath}, inR, rec, &stderr)
		outW.Close()
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	task, _ := sandbox.NewTask("T03", 0)
	for _, st := range task.Steps {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: st.Tool, Arguments: st.Args})
		if err != nil {
			t.Fatal(err)
		}
		_ = res
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "finish", Arguments: map[string]any{"status": "completed", "uncertainties": []string{"the first charge timed out"}}})
	if err != nil || res.IsError {
		t.Fatalf("finish: %v %v", err, res)
	}
	cs.Close()
	select {
	case c := <-code:
		if c != exitOK {
			t.Fatalf("serve exit %d: %s", c, stderr.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not exit after the client left")
	}
	sc := bufio.NewScanner(bytes.NewReader(rec.buf.Bytes()))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil || m["jsonrpc"] != "2.0" {
			t.Errorf("stdout line is not JSON-RPC: %q", sc.Text())
		}
	}
	if !strings.Contains(stderr.String(), "ended (finish)") {
		t.Errorf("stderr lacks the episode message: %q", stderr.String())
	}
	data, err := os.ReadFile(ledgerPath)
	if err != nil {
		t.Fatal(err)
	}
	var ep ledger.Episode
	if err := json.Unmarshal(data, &ep); err != nil || bytes.Count(data, []byte{'\n'}) != 1 {
		t.Fatalf("ledger: %v\n%s", err, data)
	}
	if ep.Model != "m1" || ep.FaultMode != ledger.FaultTimeoutPost || ep.Template != "T03" || !ep.FaultFired || ep.ToolCalls != int64(len(task.Steps)) || !ep.UncertaintyListed {
		t.Errorf("recorded episode: %+v", ep)
	}
	// Run again: the episode is recorded, nothing to serve, which is
	// success (as for drive) and leaves the ledger as it was.
	var stdout2, stderr2 bytes.Buffer
	if c := run([]string{"serve", "--template", "T03", "--focal-index", "0", "--fault", "timeout_post", "--model", "m1", "--ledger", ledgerPath}, strings.NewReader(""), &stdout2, &stderr2); c != exitOK ||
		!strings.Contains(stderr2.String(), "already in") || stdout2.Len() != 0 {
		t.Errorf("second serve: exit %d, %q", c, stderr2.String())
	}
}

// TestDriveCLI builds this command and the scripted harness and drives the
// example plan with it, twice (the second run has nothing to do).
func TestDriveCLI(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the full binary")
	}
	bin := t.TempDir()
	for pkg, name := range map[string]string{".": "limbo-analyze", "../../mcp/testdata/harness": "harness"} {
		if out, err := exec.Command("go", "build", "-o", filepath.Join(bin, name), pkg).CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, out)
		}
	}
	plan := filepath.Join("..", "..", "testdata", "mcp", "plan-example.json")
	out := filepath.Join(t.TempDir(), "drive.jsonl")
	args := []string{"drive", "--plan", plan, "--out", out, "--server", filepath.Join(bin, "limbo-analyze"), "--parallel", "2",
		"--harness", filepath.Join(bin, "harness") + " -config {mcp_config} -policy key-reuse -task {task}"}
	var stdout, stderr bytes.Buffer
	if code := run(args, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("drive: exit %d\n%s", code, stderr.String())
	}
	data, _ := os.ReadFile(out)
	if n := bytes.Count(data, []byte{'\n'}); n != 6 {
		t.Fatalf("%d episodes, want 6:\n%s", n, data)
	}
	stderr.Reset()
	if code := run(args, nil, &stdout, &stderr); code != exitOK || !strings.Contains(stderr.String(), "all 6 episodes") {
		t.Errorf("second drive: exit %d, %q", code, stderr.String())
	}

	// The same plan in three shards, merged: the episodes of the whole
	// drive, in plan order, each once; an incomplete set is refused.
	dir := t.TempDir()
	var parts []string
	for i := 1; i <= 3; i++ {
		part := filepath.Join(dir, "part-"+strconv.Itoa(i)+".jsonl")
		parts = append(parts, part)
		sargs := append(slices.Clone(args), "--shard", strconv.Itoa(i)+"/3")
		sargs[slices.Index(sargs, out)] = part
		if code := run(sargs, nil, &stdout, &stderr); code != exitOK {
			t.Fatalf("shard %d: exit %d\n%s", i, code, stderr.String())
		}
	}
	merged := filepath.Join(dir, "all.jsonl")
	stderr.Reset()
	if code := run([]string{"merge", "--out", merged, parts[2], parts[0], parts[1]}, nil, &stdout, &stderr); code != exitOK {
		t.Fatalf("merge: exit %d\n%s", code, stderr.String())
	}
	want := readIDs(t, out)
	slices.Sort(want)
	got := readIDs(t, merged)
	planned := readIDs(t, plan)
	if !slices.Equal(got, planned) {
		t.Errorf("merged ids %v, want the plan's %v", got, planned)
	}
	if g := slices.Sorted(slices.Values(got)); !slices.Equal(g, want) {
		t.Errorf("sharded drive recorded %v, the whole drive %v", g, want)
	}
	if code := run([]string{"merge", "--out", filepath.Join(dir, "x.jsonl"), parts[0], parts[1]}, nil, &stdout, &stderr); code != exitFailure {
		t.Errorf("merge without shard 3: exit %d", code)
	}
	// A shard that lost a line (or has one twice) is refused by name.
	data, _ = os.ReadFile(parts[1])
	first := data[:bytes.IndexByte(data, '\n')+1]
	for name, body := range map[string][]byte{"twice": append(slices.Clone(data), first...), "missing": data[len(first):]} {
		os.WriteFile(parts[1], body, 0o644)
		stderr.Reset()
		if code := run([]string{"merge", "--out", filepath.Join(dir, "x.jsonl"), parts[0], parts[1], parts[2]}, nil, &stdout, &stderr); code != exitFailure ||
			!strings.Contains(stderr.String(), "part-2.jsonl") {
			t.Errorf("merge with an episode %s: exit %d, %q", name, code, stderr.String())
		}
	}
}

// readIDs lists the episode ids of a ledger or plan file, in file order.
func readIDs(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.HasSuffix(path, ".json") {
		p, err := mcp.ParsePlan(path, data)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, e := range p.Episodes {
			ids = append(ids, e.EpisodeID)
		}
		return ids
	}
	var ids []string
	for _, line := range bytes.Split(bytes.TrimSpace(data), []byte{'\n'}) {
		var h struct {
			EpisodeID string `json:"episode_id"`
		}
		if err := json.Unmarshal(line, &h); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		ids = append(ids, h.EpisodeID)
	}
	return ids
}

// TestDriveNothingRecorded: a harness that fails before reaching the
// server leaves no ledger behind (nor a lock file), and drive fails.
func TestDriveNothingRecorded(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "f.jsonl")
	var stdout, stderr bytes.Buffer
	code := run([]string{"drive", "--out", out, "--harness", "exit 3", "--grace", "100ms", "--server", "/bin/true"}, nil, &stdout, &stderr)
	if code != exitFailure || !strings.Contains(stderr.String(), "exit status 3") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a drive that recorded nothing left %v", entries)
	}
}

// TestLedgerInUse: while one process holds a ledger, drive and serve on
// it stop at once and name the holder; nothing is written.
func TestLedgerInUse(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "L.jsonl")
	held, err := mcp.OpenLedger(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, args := range [][]string{
		{"drive", "--out", out, "--harness", "true", "--server", "/bin/true"},
		{"serve", "--template", "T01", "--ledger", out},
	} {
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		if code != exitFailure || !strings.Contains(stderr.String(), "held by pid "+strconv.Itoa(os.Getpid())) {
			t.Errorf("%s: exit %d, stderr %q", args[0], code, stderr.String())
		}
	}
	if fi, err := os.Stat(out); err != nil || fi.Size() != 0 {
		t.Errorf("the held ledger changed: %v %v", fi, err)
	}
}
