package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DriveOptions configure Drive.
type DriveOptions struct {
	Plan *Plan
	// Episodes, if set, are driven instead of Plan's: episodes another
	// server serves (the proxy's), each from a one-episode plan file.
	Episodes Driven
	Out      *Ledger // episodes it holds are skipped; new ones are appended
	// Harness is a shell command run once per episode (sh -c) after the
	// placeholders are replaced by shell-quoted values (see Placeholders).
	Harness string
	// Server is the argv of the stdio server up to its flags (for
	// limbo-analyze: the executable and "serve"); Drive adds --transport
	// stdio, --plan and --ledger, then ServerArgs.
	Server     []string
	ServerArgs []string
	Parallel   int           // harnesses at once; default 1
	Timeout    time.Duration // wall time per episode; default 15 min
	// Grace is how long to wait after the harness exits for the server
	// it started to record the episode; default 10 s.
	Grace time.Duration
	// LogDir, if set, receives each harness's stdout and stderr as
	// <n>.log; otherwise they are discarded (the tail of stderr is kept
	// for error messages).
	LogDir  string
	TempDir string // parent of the per-run scratch directory; default os.TempDir
	// Progress, if set, is called after every episode (serially).
	Progress func(DriveEvent)
}

// Driven is what Drive works through: planned episodes, each served by a
// fresh server process from a one-episode plan file into a ledger of its
// own.
type Driven interface {
	Len() int
	EpisodeID(i int) string
	// EpisodePlan is the content of episode i's one-episode plan file.
	EpisodePlan(i int) ([]byte, error)
	// Instruction is the task text the harness gets ({task}).
	Instruction(i int) string
	// ServerArgs are the server's arguments after Server[1:] for episode
	// i, its plan file and the ledger the server is to record it in.
	ServerArgs(i int, plan, ledger string) []string
}

// planDriven drives a serve plan: serve --transport stdio --plan --ledger,
// then the extra arguments.
type planDriven struct {
	p     *Plan
	extra []string
}

func (d planDriven) Len() int               { return d.p.Len() }
func (d planDriven) EpisodeID(i int) string { return d.p.Episodes[i].EpisodeID }
func (d planDriven) EpisodePlan(i int) ([]byte, error) {
	return (&Plan{Episodes: []Episode{d.p.Episodes[i]}}).Marshal()
}
func (d planDriven) Instruction(i int) string { return Instruction(d.p, i) }
func (d planDriven) ServerArgs(_ int, plan, ledger string) []string {
	return append([]string{"--transport", "stdio", "--plan", plan, "--ledger", ledger}, d.extra...)
}

// DriveEvent reports one driven episode.
type DriveEvent struct {
	Index     int
	EpisodeID string
	Err       error // nil: recorded
	Warning   string
}

// Placeholders lists what a harness command may contain. Every value is
// substituted shell-quoted, in one pass.
var Placeholders = []string{
	"{task}",             // the task instruction
	"{mcp_config}",       // path of an MCP client configuration: {"mcpServers": {"limbo": {"type": "stdio", "command": ..., "args": [...], "tools": ["*"]}}}
	"{mcp_command_json}", // the server executable as a JSON (and TOML) string
	"{mcp_args_json}",    // the server arguments as a JSON (and TOML) array of strings
	"{episode_id}",       // the episode's id
}

// ShellQuote quotes s for a POSIX shell.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Drive runs the harness once for every planned episode the output ledger
// lacks: each run gets a one-episode plan served over stdio by a fresh
// server process and its own MCP configuration; the episode the server
// records is appended to Out. It returns the number recorded and failed;
// a failed episode stays pending for the next run.
func Drive(ctx context.Context, o DriveOptions) (recorded, failed int, err error) {
	if (o.Plan == nil && o.Episodes == nil) || o.Out == nil || o.Harness == "" || len(o.Server) == 0 {
		return 0, 0, errors.New("mcp: Drive needs a plan, an output ledger, a harness command and a server command")
	}
	if o.Episodes == nil {
		o.Episodes = planDriven{o.Plan, o.ServerArgs}
	}
	if o.Parallel <= 0 {
		o.Parallel = 1
	}
	if o.Timeout <= 0 {
		o.Timeout = 15 * time.Minute
	}
	if o.Grace <= 0 {
		o.Grace = 10 * time.Second
	}
	var pending []int
	for i := range o.Episodes.Len() {
		if !o.Out.Has(o.Episodes.EpisodeID(i)) {
			pending = append(pending, i)
		}
	}
	if len(pending) == 0 {
		return 0, 0, nil
	}
	scratch, err := os.MkdirTemp(o.TempDir, "limbo-drive-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(scratch)

	// A harness command that records nothing for the first few episodes is
	// almost always misconfigured (it never reaches the server): stop
	// rather than fail every episode of the plan, one grace period each.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stopErr error
	jobs := make(chan int)
	events := make(chan DriveEvent)
	var wg sync.WaitGroup
	for range min(o.Parallel, len(pending)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for idx := range jobs {
				ev := DriveEvent{Index: idx, EpisodeID: o.Episodes.EpisodeID(idx)}
				ev.Warning, ev.Err = driveOne(ctx, &o, scratch, idx)
				events <- ev
			}
		}()
	}
	go func() {
		defer close(jobs)
		for _, idx := range pending {
			select {
			case jobs <- idx:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(events)
	}()
	for ev := range events {
		if stopErr != nil && ev.Err != nil {
			continue // interrupted or never started: Drive stopped; still pending
		}
		if ev.Err != nil {
			failed++
		} else {
			recorded++
		}
		if o.Progress != nil {
			o.Progress(ev)
		}
		if ev.Err != nil && recorded == 0 && failed == StopAfterFailures && stopErr == nil && len(pending) > StopAfterFailures {
			stopErr = fmt.Errorf("stopped: the first %d episodes recorded nothing, so the harness command is probably not reaching the server (last: %v)", failed, ev.Err)
			cancel()
		}
	}
	if stopErr != nil {
		return recorded, failed, stopErr
	}
	return recorded, failed, ctx.Err()
}

// StopAfterFailures is how many failed episodes, with none recorded
// before them, make Drive give up on the rest of the plan.
const StopAfterFailures = 3

// driveOne runs the harness for one episode and moves its ledger line to
// the output ledger.
func driveOne(ctx context.Context, o *DriveOptions, scratch string, idx int) (warning string, err error) {
	id := o.Episodes.EpisodeID(idx)
	base := filepath.Join(scratch, strconv.Itoa(idx))
	planPath, ledgerPath, configPath := base+".plan.json", base+".jsonl", base+".mcp.json"
	data, err := o.Episodes.EpisodePlan(idx)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(planPath, data, 0o600); err != nil {
		return "", err
	}
	args := append([]string{}, o.Server[1:]...)
	args = append(args, o.Episodes.ServerArgs(idx, planPath, ledgerPath)...)
	config := map[string]any{"mcpServers": map[string]any{"limbo": map[string]any{
		// "tools" is Copilot CLI's allow-list; other clients ignore it.
		"type": "stdio", "command": o.Server[0], "args": args, "tools": []string{"*"},
	}}}
	cfgData, err := json.MarshalIndent(config, "", "  ")
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(configPath, append(cfgData, '\n'), 0o600); err != nil {
		return "", err
	}
	cmdJSON, _ := json.Marshal(o.Server[0])
	argsJSON, _ := json.Marshal(args)
	line := strings.NewReplacer(
		"{task}", ShellQuote(o.Episodes.Instruction(idx)),
		"{mcp_config}", ShellQuote(configPath),
		"{mcp_command_json}", ShellQuote(string(cmdJSON)),
		"{mcp_args_json}", ShellQuote(string(argsJSON)),
		"{episode_id}", ShellQuote(id),
	).Replace(o.Harness)

	hctx, cancel := context.WithTimeout(ctx, o.Timeout)
	defer cancel()
	cmd := exec.CommandContext(hctx, "/bin/sh", "-c", line)
	cmd.Env = append(os.Environ(), "LIMBO_EPISODE_ID="+id, "LIMBO_MCP_CONFIG="+configPath)
	cmd.Stdin = nil
	tail := &tailBuffer{max: 2048}
	var out io.Writer = tail
	if o.LogDir != "" {
		f, err := os.Create(filepath.Join(o.LogDir, strconv.Itoa(idx)+".log"))
		if err != nil {
			return "", err
		}
		defer f.Close()
		out = io.MultiWriter(f, tail)
	}
	cmd.Stdout, cmd.Stderr = out, out
	setProcessGroup(cmd)
	runErr := cmd.Run()
	rec, err := waitLine(ctx, ledgerPath, o.Grace, func() bool { return groupAlive(cmd) })
	killProcessGroup(cmd)
	if err != nil {
		return "", err
	}
	if rec == nil {
		msg := "no episode recorded (the harness never called a tool of the server)"
		if hctx.Err() != nil && ctx.Err() == nil {
			msg = fmt.Sprintf("harness timed out after %v and no episode was recorded", o.Timeout)
		}
		if runErr != nil {
			msg += fmt.Sprintf("; harness: %v", runErr)
		}
		if t := strings.TrimSpace(tail.String()); t != "" {
			msg += "; output ends: " + t
		}
		return "", errors.New(msg)
	}
	var head struct {
		EpisodeID string `json:"episode_id"`
	}
	if err := json.Unmarshal(rec, &head); err != nil || head.EpisodeID != id {
		return "", fmt.Errorf("server recorded an unexpected line for episode %s", id)
	}
	if err := o.Out.AppendLine(id, rec); err != nil {
		return "", err
	}
	if runErr != nil {
		warning = fmt.Sprintf("harness exited with %v", runErr)
	}
	return warning, nil
}

// orphanWait is how long waitLine keeps looking once the harness's process
// group is empty.
const orphanWait = time.Second

// waitLine waits up to grace for the first complete line of path, while
// alive reports that a process that could still write it is running.
func waitLine(ctx context.Context, path string, grace time.Duration, alive func() bool) ([]byte, error) {
	start := time.Now()
	deadline := start.Add(grace)
	delay := time.Millisecond
	for {
		data, err := os.ReadFile(path)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			return data[:i], nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return nil, nil
		}
		if !alive() && time.Since(start) > orphanWait {
			// Nobody left in the harness's process group, and a server
			// started outside it (some harnesses detach theirs) had time
			// to finish: one last look.
			if data, _ := os.ReadFile(path); bytes.IndexByte(data, '\n') >= 0 {
				return data[:bytes.IndexByte(data, '\n')], nil
			}
			return nil, nil
		}
		time.Sleep(delay)
		delay = min(2*delay, 100*time.Millisecond)
	}
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
