package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/mcp"
	"github.com/limbo-toolkit/limbo/mcp/proxy"
)

func newDriveCmd(e *env) *cobra.Command {
	o := &driveConfig{}
	c := &cobra.Command{
		Use:   "drive --harness 'COMMAND {task} {mcp_config}' --out LEDGER [--plan PLAN] [--parallel K]",
		Short: "Run an agent harness once per planned episode against a fresh stdio MCP server",
		Long: `drive works through a plan with a real agent harness. For every episode the
output ledger lacks, it writes a one-episode plan and an MCP client
configuration naming a stdio server (this executable's serve command) to a
scratch directory, runs the harness command with sh -c, and moves the
episode the server grades into --out. Episodes already in --out are skipped,
so an interrupted drive resumes where it stopped; an episode whose harness
never called a tool is reported and stays pending. If the first three
episodes all record nothing, drive stops: the harness is not reaching the
server. Nothing left to do is success: when --out already holds every planned
episode, drive says so and exits 0 (serve does the same).

The harness command may use these placeholders, each replaced by a
shell-quoted value:

  {task}              the task instruction
  {mcp_config}        path of the MCP client configuration (JSON):
                      {"mcpServers": {"limbo": {"type": "stdio", "command": ..., "args": [...]}}}
  {mcp_command_json}  the server command as a JSON/TOML string
  {mcp_args_json}     the server arguments as a JSON/TOML array
  {episode_id}        the episode id

The harness also gets LIMBO_EPISODE_ID and LIMBO_MCP_CONFIG in its
environment. docs/harnesses.md has working commands for Claude Code, Codex
CLI and Copilot CLI. Without --plan the plan is serve's default (the E2
instance-0 episodes, native, vanilla), labelled with --model and
--harness-label. A progress bar goes to stderr when it is a terminal.

--shard I/N drives only the I-th of N contiguous slices of the plan (the
split simulate --shard uses), so that N jobs (a Slurm array, a Kubernetes
indexed job) each drive their own slice into their own ledger. Each shard
is resumable on its own, and writes a sidecar LEDGER.meta.json naming the
plan (its SHA-256 and slice), the shard and its episode ids before its first
episode; merge checks that the shards of one plan are all there, once each,
and that every planned episode is in them exactly once, as planned. A
ledger line that is not its planned episode (another --seed, --model) is
refused on resume. --annotations lists the tools with MCP
tool annotations (a factor of the experiment, off by default as in the
paper). Two drives cannot share one --out: the second stops and names the
process that holds the ledger's lock.

--proxy drives limbo-analyze proxy instead: --plan is then a proxy plan
(docs/proxy.md), each episode a fresh proxy (with --contract and every
--proxy-flag) in front of a fresh upstream, named after -- (or by
--upstream URL), where {episode} becomes the episode's plan index; --prompt
is the {task} of the episodes without a prompt of their own.

Examples:

  limbo-analyze drive --out claude.jsonl --model claude-sonnet --harness-label claude-code \
    --harness 'claude -p {task} --mcp-config {mcp_config} --strict-mcp-config --allowedTools "mcp__limbo"'

  limbo-analyze drive --plan plan.json --shard 3/8 --out part-3.jsonl --harness '...'

  limbo-analyze drive --plan plan.json --out codex.jsonl --parallel 4 \
    --harness 'codex exec -c mcp_servers.limbo.command={mcp_command_json} -c mcp_servers.limbo.args={mcp_args_json} {task}'`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(); err != nil {
				return usageError{err}
			}
			ctx, stop := signalContext(cmd.Context())
			defer stop()
			if o.Proxy.On {
				if err := o.Proxy.check(cmd, args); err != nil {
					return usageError{err}
				}
				return o.Proxy.drive(ctx, e, o.Plan.File, o.Job, o.Server)
			}
			if len(args) > 0 {
				return usagef("drive: unexpected arguments %q (an upstream command after -- is for --proxy)", args)
			}
			return o.drive(ctx, e)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Plan.File, "plan", "", "plan file (JSON); default: the E2 instance-0 episodes")
	f.StringVar(&o.Job.Harness, "harness", "", "harness command with placeholders (run with sh -c)")
	f.StringVar(&o.Job.Ledger, "out", "", "ledger to append graded episodes to (JSONL)")
	f.IntVar(&o.Job.Parallel, "parallel", 1, "harnesses run at once")
	f.DurationVar(&o.Job.Timeout, "timeout", 15*time.Minute, "wall-time limit per episode")
	f.DurationVar(&o.Job.Grace, "grace", 10*time.Second, "wait after the harness exits for its server to record the episode")
	f.StringVar(&o.Job.LogDir, "log-dir", "", "directory for each harness's output (<plan index>.log); default: discarded")
	f.StringVar(&o.Server, "server", "", "limbo-analyze executable that serves the episodes (default: this one)")
	f.BoolVar(&o.Raw, "raw", false, "also write calls, effects and the final report into each ledger line")
	f.StringVar(&o.Job.Shard, "shard", "", "drive only shard I of N of the plan (I/N), with a sidecar for merge")
	f.BoolVar(&o.Plan.Annotations, "annotations", false, "list the tools with MCP tool annotations (an experimental factor)")
	addLimitFlags(c, &o.Limits)
	f.BoolVar(&o.Proxy.On, "proxy", false, "drive limbo-analyze proxy in front of an upstream (after --, or --upstream) with a proxy plan")
	f.StringVar(&o.Proxy.Contract, "contract", "", "with --proxy: the proxy's contract file")
	f.StringVar(&o.Proxy.URL, "upstream", "", "with --proxy: the upstream's streamable-HTTP endpoint")
	f.StringArrayVar(&o.Proxy.Flags, "proxy-flag", nil, "with --proxy: a flag for every proxy (repeatable), e.g. --proxy-flag=--late-delay=5")
	f.StringVar(&o.Proxy.Prompt, "prompt", "", "with --proxy: the task text ({task}) of the episodes without a prompt of their own")
	f.StringVar(&o.Plan.Model, "model", mcp.DefaultLabel, "model label of the default plan")
	f.StringVar(&o.Plan.Harness, "harness-label", mcp.DefaultLabel, "harness label of the default plan")
	f.Uint64Var(&o.Plan.Seed, "seed", 1, "run seed of the default plan")
	return c
}

// driveConfig is a drive run as a command line describes it; its fields
// hold the flags of `limbo-analyze drive`.
type driveConfig struct {
	Proxy  driveProxy     // --proxy: drive the proxy in front of an upstream
	Plan   mcp.PlanSource // the plan file or the default plan (no single episode)
	Job    mcp.DriveJob   // the ledger (--out), the shard and the harness's options
	Server string         // executable whose serve command serves; "" for this one
	Raw    bool           // the servers also write calls, effects and the final report
	Limits mcp.Limits     // the servers' per-episode budget
}

// check validates the configuration; every error is a usage error.
func (c *driveConfig) check() error {
	if err := c.Job.Check(); err != nil {
		return err
	}
	return c.Limits.Check()
}

// drive loads the plan and drives its pending episodes into the ledger,
// each with a stdio server run as `Server serve` with the limits.
func (c *driveConfig) drive(ctx context.Context, e *env) error {
	plan, err := c.Plan.Load()
	if err != nil {
		return err
	}
	j := c.Job
	j.Plan, j.ServerArgs = plan, c.Limits.Args()
	if c.Raw {
		j.ServerArgs = append(j.ServerArgs, "--raw")
	}
	return runDrive(ctx, e, j, c.Server, "serve")
}

// runDrive drives j (mcp.RunDrive) with the server command `server sub`
// (server "": this executable), a progress bar on a terminal, and a
// closing line on what the ledger now holds.
func runDrive(ctx context.Context, e *env, j mcp.DriveJob, server, sub string) error {
	const name = "limbo-analyze drive"
	if server == "" {
		exe, err := os.Executable()
		if err != nil {
			return fieldtext.New("Server", "locating the server executable: %w (pass {Server})", err)
		}
		server = exe
	}
	j.Server, j.Toolkit = []string{server, sub}, version
	j.Warn = func(msg string) { fmt.Fprintln(e.stderr, name+":", msg) }
	var finish func()
	j.Start, j.Progress, finish = driveProgress(e, name)
	t, err := mcp.RunDrive(ctx, j)
	finish()
	switch {
	case t.Pending > 0:
		fmt.Fprintf(e.stderr, "%s: %d episodes recorded in %s, %d failed, %d of %d still pending\n",
			name, t.Recorded, j.Ledger, t.Failed, t.Pending-t.Recorded, t.Total)
	case err == nil:
		fmt.Fprintf(e.stderr, "%s: all %d episodes of the plan are in %s\n", name, t.Total, j.Ledger)
	}
	return err
}

// driveProxy is drive --proxy: each planned episode (a proxy plan) served
// by a fresh limbo-analyze proxy in front of a fresh upstream.
type driveProxy struct {
	On       bool
	Contract string
	URL      string
	Flags    []string
	Prompt   string
	Command  []string
}

// check validates drive --proxy's own flags and takes the upstream
// command after --.
func (p *driveProxy) check(cmd *cobra.Command, args []string) error {
	after, err := upstreamCommand(cmd, args, "drive")
	switch {
	case err != nil:
		return err
	case len(after) == 0 && p.URL == "":
		return errors.New("drive: --proxy needs the upstream: its command after -- or --upstream URL")
	case len(after) > 0 && p.URL != "":
		return errors.New("drive: --upstream and a command after -- exclude each other")
	}
	p.Command = after
	return nil
}

// drive reads the proxy plan and drives its pending episodes into the
// ledger, one proxy (server's proxy command) per episode.
func (p *driveProxy) drive(ctx context.Context, e *env, planFile string, j mcp.DriveJob, server string) error {
	if planFile == "" {
		return usagef("drive: --proxy needs --plan: a proxy plan (task, tool, fault_mode, rep of each episode; docs/proxy.md)")
	}
	var err error
	if j.Episodes, err = proxy.NewDrivePlan(planFile, p.Contract, p.Flags, p.Command, p.URL, p.Prompt); err != nil {
		return err
	}
	return runDrive(ctx, e, j, server, "proxy")
}

// a line per failed or warned episode.
func driveProgress(e *env, name string) (start func(pending int), progress func(mcp.DriveEvent), finish func()) {
	var bar *progressbar.ProgressBar
	start = func(pending int) { bar = progressBar(e, pending, "episodes") }
	progress = func(ev mcp.DriveEvent) {
		if bar != nil {
			_ = bar.Add(1)
			if ev.Err != nil || ev.Warning != "" {
				_ = bar.Clear()
			}
		}
		switch {
		case ev.Err != nil:
			fmt.Fprintf(e.stderr, "%s: episode %d (%s): %v\n", name, ev.Index, ev.EpisodeID, ev.Err)
		case ev.Warning != "":
			fmt.Fprintf(e.stderr, "%s: episode %d (%s) recorded; %s\n", name, ev.Index, ev.EpisodeID, ev.Warning)
		}
	}
	finish = func() {
		if bar != nil {
			_ = bar.Finish()
		}
	}
	return start, progress, finish
}
