// Package mcpcmd holds the configurations of the serve and drive commands:
// structs whose fields are the flags, checked together and run through
// package mcp's library API (PlanSource, RunServe, RunDrive), which is in
// domain terms.
package mcpcmd

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/internal/localhttp"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp"
)

// ServeConfig is a serve run as a command line describes it: where the
// plan comes from, how it is served and into which ledger. Its fields hold
// the flags of `limbo-analyze serve`; Check validates them together and
// Serve runs them.
type ServeConfig struct {
	Plan      mcp.PlanSource // the plan file, or the default plan or a single episode (One)
	Job       mcp.ServeJob   // the ledger, the address, PrintTask and the server's options
	Transport string         // "stdio" or "http"
	PrintPlan bool           // print the loaded plan (Plan.Marshal) instead
}

// singleEpisodeFlags are the flags that describe ServeConfig.One.
var singleEpisodeFlags = []string{"instance", "focal-index", "fault", "contract", "condition", "guard", "delay-s"}

// Check validates the configuration before anything is opened; set
// reports whether a flag was given on the command line. Every error it
// returns is a usage error, phrased in terms of the flags.
func (c *ServeConfig) Check(set func(flag string) bool) error {
	j := &c.Job
	switch {
	case c.Transport != "stdio" && c.Transport != "http":
		return fieldtext.New("Transport", "{Transport} must be stdio or http, got %q", c.Transport)
	case c.Transport == "http" && localhttp.CheckAddr(j.Addr, true) != nil:
		return fieldtext.New("Addr", "{Addr} %w", localhttp.CheckAddr(j.Addr, true)) // malformed, whatever the host
	case c.Transport == "http" && localhttp.CheckAddr(j.Addr, j.AllowRemote) != nil:
		return fieldtext.New("Addr", "{Addr} %s is not a loopback address; pass {AllowRemote} to bind it", j.Addr)
	case j.Ledger == "" && !j.PrintTask && !c.PrintPlan:
		return fieldtext.New("Ledger", "{Ledger} is required")
	case j.Ledger != "" && !ledger.IsJSONLName(j.Ledger):
		return fieldtext.New("Ledger", "{Ledger} %s: the served ledger is JSONL; name it .jsonl", j.Ledger)
	case set("template") && c.Plan.File != "":
		return fieldtext.New("PlanFile", "{PlanFile} and {Template} exclude each other")
	}
	for _, name := range singleEpisodeFlags {
		if set(name) && !set("template") {
			return fmt.Errorf("--%s describes a single episode and needs --template", name)
		}
	}
	if set("template") {
		// Values outside their fixed sets are usage errors, as for every
		// other enumerated flag.
		if err := c.Plan.One.CheckFlags(); err != nil {
			return err
		}
	}
	return j.Options.Limits.Check()
}

// Serve loads the plan and serves it (RunServe), prints the plan
// (PrintPlan), or prints the first episode's instruction when PrintTask
// has no ledger to find the next pending one in. Notices go to log, each line after name and a colon;
// a single episode that does not make a plan is an *EpisodeError.
func (c *ServeConfig) Serve(ctx context.Context, stdin io.Reader, stdout, log io.Writer, name, version string, newCaller mcp.CallerFactory) error {
	plan, err := c.Plan.Load()
	if err != nil {
		return err
	}
	if c.PrintPlan {
		// Every episode with its defaults filled in and its episode_id,
		// for tools that build their own sessions (one per episode).
		b, err := plan.Marshal()
		if err == nil {
			_, err = stdout.Write(b)
		}
		return err
	}
	if c.Job.PrintTask && c.Job.Ledger == "" {
		_, err := fmt.Fprintln(stdout, mcp.Instruction(plan, 0))
		return err
	}
	j := c.Job
	j.Plan, j.HTTP, j.Stdin, j.Stdout = plan, c.Transport == "http", stdin, stdout
	j.Options.Version, j.Options.Log, j.Options.NewCaller = version, log, newCaller
	j.Warn = func(msg string) { fmt.Fprintln(log, name+":", msg) }
	j.Listening = func(a net.Addr, pending int) {
		fmt.Fprintf(log, "%s: MCP streamable HTTP on http://%s/ (%d episodes pending)\n", name, a, pending)
	}
	j.Done = func(total int, l string) {
		fmt.Fprintf(log, "%s: all %d episodes of the plan are already in %s; nothing to serve\n", name, total, l)
	}
	return mcp.RunServe(ctx, j)
}

// DriveConfig is a drive run as a command line describes it; its fields
// hold the flags of `limbo-analyze drive`.
type DriveConfig struct {
	Plan   mcp.PlanSource // the plan file or the default plan (no single episode)
	Job    mcp.DriveJob   // the ledger (--out), the shard and the harness's options
	Server string         // executable whose serve command serves; "" for this one
	Raw    bool           // the servers also write calls, effects and the final report
	Limits mcp.Limits     // the servers' per-episode budget
}

// Check validates the configuration; every error is a usage error.
func (c *DriveConfig) Check() error {
	j := &c.Job
	switch {
	case j.Harness == "":
		return fieldtext.New("Harness", "{Harness} is required")
	case j.Ledger == "":
		return fieldtext.New("Out", "{Out} is required")
	case !ledger.IsJSONLName(j.Ledger):
		return fieldtext.New("Out", "{Out} %s: the driven ledger is JSONL; name it .jsonl", j.Ledger)
	case j.Parallel < 1 || j.Parallel > 256:
		return fieldtext.New("Parallel", "{Parallel} must be 1–256, got %d", j.Parallel)
	case j.Timeout <= 0 || j.Grace <= 0:
		return fieldtext.New("Timeout", "{Timeout} and {Grace} must be positive")
	}
	if err := c.Limits.Check(); err != nil {
		return err
	}
	if j.Shard != "" {
		if _, _, err := design.ParseShard(j.Shard); err != nil {
			return fieldtext.New("Shard", "{Shard}: %w", err)
		}
	}
	return nil
}

// Bar is a progress display for Drive, such as a terminal progress bar:
// Add once per ended episode, Clear before a message is printed, Finish
// at the end.
type Bar interface {
	Add(n int) error
	Clear() error
	Finish() error
}

// Drive loads the plan and drives its pending episodes into Out
// (RunDrive), each with a stdio server run as `Server serve` with the
// limits. Messages go to log after name and a colon; newBar, if set, gives
// the progress display once the pending count is known (nil for none).
func (c *DriveConfig) Drive(ctx context.Context, log io.Writer, name, version string, newBar func(pending int) Bar) error {
	plan, err := c.Plan.Load()
	if err != nil {
		return err
	}
	exe := c.Server
	if exe == "" {
		if exe, err = os.Executable(); err != nil {
			return fieldtext.New("Server", "locating the server executable: %w (pass {Server})", err)
		}
	}
	serverArgs := c.Limits.Args()
	if c.Raw {
		serverArgs = append(serverArgs, "--raw")
	}
	var bar Bar
	j := c.Job
	j.Plan, j.Server, j.ServerArgs, j.Toolkit = plan, []string{exe, "serve"}, serverArgs, version
	j.Warn = func(msg string) { fmt.Fprintln(log, name+":", msg) }
	j.Start = func(pending int) {
		if newBar != nil {
			bar = newBar(pending)
		}
	}
	j.Progress = func(ev mcp.DriveEvent) {
		if bar != nil {
			_ = bar.Add(1)
			if ev.Err != nil || ev.Warning != "" {
				_ = bar.Clear()
			}
		}
		switch {
		case ev.Err != nil:
			fmt.Fprintf(log, "%s: episode %d (%s): %v\n", name, ev.Index, ev.EpisodeID, ev.Err)
		case ev.Warning != "":
			fmt.Fprintf(log, "%s: episode %d (%s) recorded; %s\n", name, ev.Index, ev.EpisodeID, ev.Warning)
		}
	}
	t, err := mcp.RunDrive(ctx, j)
	if bar != nil {
		_ = bar.Finish()
	}
	switch {
	case t.Pending > 0:
		fmt.Fprintf(log, "%s: %d episodes recorded in %s, %d failed, %d of %d still pending\n",
			name, t.Recorded, j.Ledger, t.Failed, t.Pending-t.Recorded, t.Total)
	case err == nil:
		fmt.Fprintf(log, "%s: all %d episodes of the plan are in %s\n", name, t.Total, j.Ledger)
	}
	return err
}
