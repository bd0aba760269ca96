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
	"time"

	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/internal/localhttp"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp"
)

// ServeConfig is a serve run as a command line describes it: where the
// plan comes from, how it is served and into which ledger. Its fields are
// the flags of `limbo-analyze serve`; Check validates them together and
// Serve runs them.
type ServeConfig struct {
	Transport   string // "stdio" or "http"
	Addr        string // listen address over HTTP
	AllowRemote bool   // allow a non-loopback Addr
	PlanFile    string // plan file; "" for the default plan or One
	Ledger      string // JSONL ledger the episodes are appended to
	PrintTask   bool   // print the next pending episode's instruction instead
	PrintPlan   bool   // print the loaded plan (Plan.Marshal) instead
	Raw         bool   // also write calls, effects and the final report
	Annotations bool   // list the tools with MCP tool annotations
	Limits      mcp.Limits
	IdleTimeout time.Duration
	Origins     []string // browser origins accepted besides loopback ones

	Model, Harness string      // labels of the default or single-episode plan
	Seed           uint64      // world seed of the default or single-episode plan
	One            mcp.Episode // a single episode, when One.Template is set
}

// singleEpisodeFlags are the flags that describe ServeConfig.One.
var singleEpisodeFlags = []string{"instance", "focal-index", "fault", "contract", "condition", "guard", "delay-s"}

// Check validates the configuration before anything is opened; set
// reports whether a flag was given on the command line. Every error it
// returns is a usage error, phrased in terms of the flags.
func (c *ServeConfig) Check(set func(flag string) bool) error {
	switch {
	case c.Transport != "stdio" && c.Transport != "http":
		return fieldtext.New("Transport", "{Transport} must be stdio or http, got %q", c.Transport)
	case c.Transport == "http" && localhttp.CheckAddr(c.Addr, true) != nil:
		return fieldtext.New("Addr", "{Addr} %w", localhttp.CheckAddr(c.Addr, true)) // malformed, whatever the host
	case c.Transport == "http" && localhttp.CheckAddr(c.Addr, c.AllowRemote) != nil:
		return fieldtext.New("Addr", "{Addr} %s is not a loopback address; pass {AllowRemote} to bind it", c.Addr)
	case c.Ledger == "" && !c.PrintTask && !c.PrintPlan:
		return fieldtext.New("Ledger", "{Ledger} is required")
	case c.Ledger != "" && !ledger.IsJSONLName(c.Ledger):
		return fieldtext.New("Ledger", "{Ledger} %s: the served ledger is JSONL; name it .jsonl", c.Ledger)
	case set("template") && c.PlanFile != "":
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
		if err := c.One.CheckFlags(); err != nil {
			return err
		}
	}
	return c.Limits.Check()
}

// Serve loads the plan and serves it (RunServe), prints the plan
// (PrintPlan), or prints the first episode's instruction when PrintTask
// has no ledger to find the next pending one in. Notices go to log, each line after name and a colon;
// a single episode that does not make a plan is an *EpisodeError.
func (c *ServeConfig) Serve(ctx context.Context, stdin io.Reader, stdout, log io.Writer, name, version string, newCaller mcp.CallerFactory) error {
	plan, err := mcp.PlanSource{File: c.PlanFile, One: c.One, Model: c.Model, Harness: c.Harness, Seed: c.Seed, Annotations: c.Annotations}.Load()
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
	if c.PrintTask && c.Ledger == "" {
		_, err := fmt.Fprintln(stdout, mcp.Instruction(plan, 0))
		return err
	}
	return mcp.RunServe(ctx, mcp.ServeJob{
		Plan: plan, Ledger: c.Ledger, HTTP: c.Transport == "http", Addr: c.Addr, AllowRemote: c.AllowRemote,
		Stdin: stdin, Stdout: stdout, PrintTask: c.PrintTask,
		Options: mcp.Options{Limits: c.Limits, Raw: c.Raw, Version: version, Log: log,
			IdleTimeout: c.IdleTimeout, NewCaller: newCaller, AllowedOrigins: c.Origins},
		Warn: func(msg string) { fmt.Fprintln(log, name+":", msg) },
		Listening: func(a net.Addr, pending int) {
			fmt.Fprintf(log, "%s: MCP streamable HTTP on http://%s/ (%d episodes pending)\n", name, a, pending)
		},
		Done: func(total int, l string) {
			fmt.Fprintf(log, "%s: all %d episodes of the plan are already in %s; nothing to serve\n", name, total, l)
		},
	})
}

// DriveConfig is a drive run as a command line describes it; its fields
// are the flags of `limbo-analyze drive`.
type DriveConfig struct {
	PlanFile    string // plan file; "" for the default plan
	Harness     string // harness command with placeholders
	Out         string // JSONL ledger the episodes are moved into
	Parallel    int
	Timeout     time.Duration // wall time per episode
	Grace       time.Duration // wait for the server after the harness exits
	LogDir      string
	Server      string // executable whose serve command serves; "" for this one
	Raw         bool
	Limits      mcp.Limits
	Shard       string // "I/N" or ""
	Annotations bool

	Model, HarnessLabel string // labels of the default plan
	Seed                uint64 // run seed of the default plan
}

// Check validates the configuration; every error is a usage error.
func (c *DriveConfig) Check() error {
	switch {
	case c.Harness == "":
		return fieldtext.New("Harness", "{Harness} is required")
	case c.Out == "":
		return fieldtext.New("Out", "{Out} is required")
	case !ledger.IsJSONLName(c.Out):
		return fieldtext.New("Out", "{Out} %s: the driven ledger is JSONL; name it .jsonl", c.Out)
	case c.Parallel < 1 || c.Parallel > 256:
		return fieldtext.New("Parallel", "{Parallel} must be 1–256, got %d", c.Parallel)
	case c.Timeout <= 0 || c.Grace <= 0:
		return fieldtext.New("Timeout", "{Timeout} and {Grace} must be positive")
	}
	if err := c.Limits.Check(); err != nil {
		return err
	}
	if c.Shard != "" {
		if _, _, err := design.ParseShard(c.Shard); err != nil {
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
	plan, err := mcp.PlanSource{File: c.PlanFile, Model: c.Model, Harness: c.HarnessLabel, Seed: c.Seed, Annotations: c.Annotations}.Load()
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
	t, err := mcp.RunDrive(ctx, mcp.DriveJob{
		Ledger: c.Out, Shard: c.Shard, Toolkit: version,
		Warn: func(msg string) { fmt.Fprintln(log, name+":", msg) },
		Start: func(pending int) {
			if newBar != nil {
				bar = newBar(pending)
			}
		},
		DriveOptions: mcp.DriveOptions{
			Plan: plan, Harness: c.Harness, Server: []string{exe, "serve"}, ServerArgs: serverArgs,
			Parallel: c.Parallel, Timeout: c.Timeout, Grace: c.Grace, LogDir: c.LogDir,
			Progress: func(ev mcp.DriveEvent) {
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
			},
		},
	})
	if bar != nil {
		_ = bar.Finish()
	}
	switch {
	case t.Pending > 0:
		fmt.Fprintf(log, "%s: %d episodes recorded in %s, %d failed, %d of %d still pending\n",
			name, t.Recorded, c.Out, t.Failed, t.Pending-t.Recorded, t.Total)
	case err == nil:
		fmt.Fprintf(log, "%s: all %d episodes of the plan are in %s\n", name, t.Total, c.Out)
	}
	return err
}
