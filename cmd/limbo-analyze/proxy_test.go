package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// TestProxyUsage: bad flags and a contract that does not parse are usage
// errors (exit 2) with one line naming the flag, or the file, line and
// field; an upstream that cannot start is a failure (exit 1).
func TestProxyUsage(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("tools:\n  send:\n    effect: [to]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"proxy"}, 2, "no upstream"},
		{[]string{"proxy", "echo", "--", "x"}, 2, `the upstream command goes after -- (got "echo" before it)`},
		{[]string{"proxy", "--upstream", "http://127.0.0.1:1/", "--", "x"}, 2, "exclude each other"},
		{[]string{"proxy", "--fault", "timeout_pre", "--", "x"}, 2, "--tool: missing"},
		{[]string{"proxy", "--fault", "timeout_maybe", "--tool", "a", "--", "x"}, 2, `--fault: "timeout_maybe": want one of none, timeout_pre`},
		{[]string{"proxy", "--fault", "session_lost", "--tool", "a", "--", "x"}, 2, "the proxy must serve streamable HTTP"},
		{[]string{"proxy", "--http", "8.8.8.8:80", "--", "x"}, 2, "not a loopback address"},
		{[]string{"proxy", "--ledger", "x.csv", "--", "x"}, 2, "name it .jsonl"},
		{[]string{"proxy", "--plan", "p.json", "--fault", "timeout_pre", "--", "x"}, 2, "exclude each other"},
		{[]string{"proxy", "--contract", bad, "--", "x"}, 2, bad + `:3: tools.send.effect[0]: "to": a JSON pointer starts with "/"`},
		{[]string{"proxy", "--start-timeout", "300ms", "--", "sleep", "30"}, 1, "upstream: sleep 30: no answer to initialize within 300ms"},
		{[]string{"proxy", "--", "sh", "-c", "exit 3"}, 1, "upstream: sh -c exit 3: exited (exit status 3) before answering initialize"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, %q; want exit %d with %q on one line", c.args, code, stderr, c.code, c.want)
		}
	}
}

// proxySession runs the proxy in process with its stdio on pipes and
// returns a client session to it and a function that closes the session
// and returns the exit code and stderr.
func proxySession(t *testing.T, args ...string) (*sdk.ClientSession, func() (int, string)) {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() {
		code := run(append([]string{"proxy"}, args...), inR, outW, &stderr)
		outW.Close()
		done <- code
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "0"}, nil).Connect(context.Background(), &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		select {
		case code := <-done:
			t.Fatalf("proxy exited %d: %s", code, stderr.String())
		case <-time.After(5 * time.Second):
		}
		t.Fatal(err)
	}
	return cs, func() (int, string) {
		cs.Close()
		inW.Close()
		select {
		case code := <-done:
			return code, stderr.String()
		case <-time.After(30 * time.Second):
			t.Fatal("the proxy did not exit")
		}
		return -1, ""
	}
}

// TestProxyOverServe: the proxy in front of serve (no fault of its own)
// injects timeout_post on the first mail of T08; a client that re-sends it
// blindly duplicates it, and both the proxy's grade (by its carried
// rules) and serve's own (the sandbox's grader on the upstream's state)
// say so, and agree on the rest. (The report went to serve's own finish,
// which the proxy passes through as a read: the proxy's episode has none.)
func TestProxyOverServe(t *testing.T) {
	bin := builtBinary(t)
	dir := t.TempDir()
	contract := filepath.Join("..", "..", "examples", "proxy", "sandbox.yaml")
	up, out := filepath.Join(dir, "serve.jsonl"), filepath.Join(dir, "proxy.jsonl")
	cs, stop := proxySession(t, "--contract", contract, "--fault", "timeout_post", "--tool", "mail_send", "--task", "T08",
		"--model", "m", "--ledger", out, "--", bin, "serve", "--annotations", "--template", "T08", "--model", "m", "--ledger", up)
	task, err := sandbox.NewTask("T08", 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, st := range task.Steps {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: st.Tool, Arguments: st.Args})
		if err != nil {
			t.Fatal(err)
		}
		if res.IsError {
			if i != 0 || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, `"outcome":"timeout"`) {
				t.Errorf("step %d: %+v", i, res.Content[0])
			}
			if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: st.Tool, Arguments: st.Args}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "finish", Arguments: map[string]any{"status": "completed", "uncertainties": []string{}}}); err != nil {
		t.Fatal(err)
	}
	if code, stderr := stop(); code != 0 {
		t.Fatalf("proxy: exit %d\n%s", code, stderr)
	}
	read := func(path string) ledger.Episode {
		var eps []ledger.Episode
		if err := ledger.ReadEpisodes(path, ledger.ReadOptions{Grader: sandbox.Grade}, func(e *ledger.Episode) error { eps = append(eps, *e); return nil }); err != nil {
			t.Fatal(err)
		}
		if len(eps) != 1 {
			t.Fatalf("%s: %d episodes", path, len(eps))
		}
		return eps[0]
	}
	p, s := read(out), read(up)
	if !p.Duplicated || !s.Duplicated {
		t.Errorf("duplicated: proxy %v, serve %v; want both", p.Duplicated, s.Duplicated)
	}
	for _, c := range []struct {
		name string
		a, b any
	}{
		{"task_success", p.TaskSuccess, s.TaskSuccess}, {"eos", p.EOS, s.EOS}, {"expected_commits", p.ExpectedCommits, s.ExpectedCommits},
		{"focal_commits", p.FocalCommits, s.FocalCommits}, {"recovery", p.Recovery, s.Recovery},
	} {
		if c.a != c.b {
			t.Errorf("%s: proxy %v, serve %v", c.name, c.a, c.b)
		}
	}
	// The grade command reads the proxy's line unchanged.
	if code, stdout, stderr := runCmd(t, "grade", out, "--out", filepath.Join(dir, "graded.jsonl")); code != 0 {
		t.Errorf("grade: exit %d %s %s", code, stdout, stderr)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "graded.jsonl"))
	var g map[string]any
	if err := json.Unmarshal(bytes.TrimSpace(b), &g); err != nil || g["duplicated"] != true {
		t.Errorf("graded: %v %s", err, b)
	}
}

// TestProxyContractMismatch: a contract naming a tool the upstream lacks
// is a usage error naming the file, line and tool.
func TestProxyContractMismatch(t *testing.T) {
	bin := builtBinary(t)
	dir := t.TempDir()
	c := filepath.Join(dir, "c.yaml")
	if err := os.WriteFile(c, []byte("tools:\n  mail_sned:\n    kind: write\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd(t, "proxy", "--contract", c, "--", bin, "serve", "--template", "T08", "--ledger", filepath.Join(dir, "s.jsonl"))
	if code != 2 || !strings.Contains(stderr, c+`:2: tools.mail_sned: the upstream has no tool "mail_sned"`) {
		t.Errorf("exit %d: %s", code, stderr)
	}
}

// exampleLedger is the proxy's worked example (docs/proxy.md): the
// proxy in front of serve (task T11, no fault of serve's own) with a fault
// on the first deploy_trigger, played by a client that re-sends blindly
// and by one that reads the deploys back first.
const exampleLedger = "../../examples/proxy/t11.jsonl"

// TestProxyExample plays the example's episodes and checks that each is
// graded as the committed ledger says (-update rewrites the ledger; its
// times are real, its grades are not).
func TestProxyExample(t *testing.T) {
	bin := builtBinary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "t11.jsonl")
	task, err := sandbox.NewTask("T11", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, policy := range []string{"blind-retry", "verify-retry"} {
		for _, mode := range []string{ledger.FaultNone, ledger.FaultTimeoutPre, ledger.FaultTimeoutPost, ledger.FaultTimeoutLate, ledger.FaultRedelivery} {
			cs, stop := proxySession(t, "--contract", filepath.Join("..", "..", "examples", "proxy", "sandbox.yaml"),
				"--fault", mode, "--tool", "deploy_trigger", "--task", "T11", "--model", "scripted", "--harness", "scripted",
				"--condition", policy, "--ledger", out, "--late-delay", "60",
				"--", bin, "serve", "--annotations", "--template", "T11", "--ledger", filepath.Join(dir, "serve-"+policy+"-"+mode+".jsonl"))
			for _, st := range task.Steps {
				playStep(t, cs, policy, st.Tool, st.Args)
			}
			if code, stderr := stop(); code != 0 {
				t.Fatalf("%s %s: exit %d\n%s", policy, mode, code, stderr)
			}
		}
	}
	if *update {
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(exampleLedger, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	grades := func(path string) map[string]string {
		m := map[string]string{}
		err := ledger.ReadEpisodes(path, ledger.ReadOptions{}, func(e *ledger.Episode) error {
			m[e.EpisodeID] = fmt.Sprintf("duplicated=%t task_success=%t focal_commits=%d fired=%t recovery=%s",
				e.Duplicated, e.TaskSuccess, e.FocalCommits, e.FaultFired, e.Recovery)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	got, want := grades(out), grades(exampleLedger)
	if len(got) != 10 || len(want) != len(got) {
		t.Fatalf("%d episodes played, %d in %s", len(got), len(want), exampleLedger)
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %s, the example ledger says %s (go test -run TestProxyExample -update)", id, got[id], w)
		}
	}
}

// playStep plays one write: blind-retry re-sends it once after an error;
// verify-retry first reads it back as the sandbox's read path shows it
// (sandbox.ReadArgsFor, sandbox.Present) and re-sends only if absent.
func playStep(t *testing.T, cs *sdk.ClientSession, policy, tool string, args map[string]any) {
	t.Helper()
	call := func(tool string, args map[string]any) (map[string]any, bool) {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: tool, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		var resp struct {
			Result map[string]any `json:"result"`
		}
		_ = json.Unmarshal([]byte(res.Content[0].(*sdk.TextContent).Text), &resp)
		return resp.Result, res.IsError
	}
	if _, failed := call(tool, args); !failed {
		return
	}
	if policy == "verify-retry" {
		if rt, ra, ok := sandbox.ReadArgsFor(tool, args); ok {
			if res, failed := call(rt, ra); !failed && sandbox.Present(tool, args, res) {
				return
			}
		}
	}
	call(tool, args)
}

// TestDriveProxy: drive --proxy runs the scripted harness once per
// planned episode against a fresh proxy in front of a fresh upstream
// (serve, its ledger per episode through {episode}), and the ledger holds
// each episode graded as its world says.
func TestDriveProxy(t *testing.T) {
	bin := builtBinary(t)
	dir := t.TempDir()
	harness := filepath.Join(dir, "harness")
	if out, err := exec.Command("go", "build", "-o", harness, "../../mcp/testdata/harness").CombinedOutput(); err != nil {
		t.Fatalf("go build harness: %v\n%s", err, out)
	}
	plan := filepath.Join(dir, "plan.json")
	if err := os.WriteFile(plan, []byte(`{"episodes": [
  {"task": "T11", "tool": "deploy_trigger", "fault_mode": "none", "model": "scripted"},
  {"task": "T11", "tool": "deploy_trigger", "fault_mode": "timeout_pre", "model": "scripted"},
  {"task": "T11", "tool": "deploy_trigger", "fault_mode": "timeout_post", "model": "scripted"}
]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "runs.jsonl")
	args := []string{"drive", "--proxy", "--plan", plan, "--contract", filepath.Join("..", "..", "examples", "proxy", "sandbox.yaml"),
		"--out", out, "--server", bin, "--prompt", "Deploy checkout v2.14.0 through every stage.",
		"--harness", harness + " -config {mcp_config} -task {task}",
		"--", bin, "serve", "--annotations", "--template", "T11", "--ledger", filepath.Join(dir, "serve-{episode}.jsonl")}
	code, _, stderr := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("drive: exit %d\n%s", code, stderr)
	}
	var eps []ledger.Episode
	if err := ledger.ReadEpisodes(out, ledger.ReadOptions{}, func(e *ledger.Episode) error { eps = append(eps, *e); return nil }); err != nil {
		t.Fatal(err)
	}
	dup := map[string]bool{}
	for _, e := range eps {
		dup[e.FaultMode] = e.Duplicated
	}
	if len(eps) != 3 || dup[ledger.FaultNone] || dup[ledger.FaultTimeoutPre] || !dup[ledger.FaultTimeoutPost] {
		t.Errorf("episodes %d, duplicated by mode %v", len(eps), dup)
	}
	for i := range 3 {
		if _, err := os.Stat(filepath.Join(dir, fmt.Sprintf("serve-%d.jsonl", i))); err != nil {
			t.Errorf("upstream %d: %v", i, err)
		}
	}
	if code, _, stderr := runCmd(t, args...); code != 0 || !strings.Contains(stderr, "all 3 episodes of the plan are in") {
		t.Errorf("second drive: exit %d %s", code, stderr)
	}
}

// TestProxyGuardRestart: the keys guard keeps its keys in the SQLite
// state across a kill -9 of the proxy. A write whose answer the first
// proxy lost (timeout_post) is re-sent under the same key to a second
// proxy on the same state: its read-back finds the write and replays it,
// so the upstream's own file holds it once.
func TestProxyGuardRestart(t *testing.T) {
	bin := builtBinary(t)
	dir := t.TempDir()
	upstream := filepath.Join(dir, "upstream")
	if out, err := exec.Command("go", "build", "-o", upstream, "../../mcp/proxy/testdata/upstream").CombinedOutput(); err != nil {
		t.Fatalf("go build upstream: %v\n%s", err, out)
	}
	contract := filepath.Join(dir, "lines.yaml")
	if err := os.WriteFile(contract, []byte("tools:\n  insert:\n    effect: [/name]\n    verify: {tool: count, args: {name: \"{name}\"}, count: /n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	state, lines := filepath.Join(dir, "guard.db"), filepath.Join(dir, "lines.txt")
	start := func(fault ...string) (*sdk.ClientSession, *exec.Cmd) {
		args := append([]string{"proxy", "--guard", "keys", "--state", state, "--contract", contract, "--ledger", filepath.Join(dir, "runs.jsonl")}, fault...)
		cmd := exec.Command(bin, append(args, "--", upstream, "-file", lines)...)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "0"}, nil).Connect(context.Background(), &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return cs, cmd
	}
	args := map[string]any{"name": "a", "idempotency_key": "k1"}
	cs, cmd := start("--fault", "timeout_post", "--tool", "insert")
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "insert", Arguments: args})
	if err != nil || !res.IsError {
		t.Fatalf("the first call: %v %+v", err, res)
	}
	if err := cmd.Process.Kill(); err != nil { // kill -9
		t.Fatal(err)
	}
	cs.Close() // waits for the process (the transport owns cmd.Wait)

	cs, _ = start()
	res, err = cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "insert", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("the retry after the restart: %v %+v", err, res)
	}
	cs.Close()
	if b, _ := os.ReadFile(lines); string(b) != "a\n" {
		t.Errorf("the upstream holds %q, want the write once", b)
	}
}
