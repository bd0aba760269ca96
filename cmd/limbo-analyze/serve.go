package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp"
)

func newServeCmd(e *env) *cobra.Command {
	o := &serveConfig{}
	c := &cobra.Command{
		Use:   "serve --ledger OUT.jsonl [--transport stdio|http] [--plan PLAN]",
		Short: "Serve the sandbox to a real agent over MCP, one episode per session",
		Long: `serve exposes the LIMBO sandbox to an agent harness over the Model Context
Protocol. Each MCP session is one episode of the plan: the agent sees the
sandbox tools of the episode's contract (with their descriptions and JSON
schemas), a finish tool to report its status and uncertainties, the oracle
tools its condition asks for, and the task instruction as the prompt "task",
the resource limbo://task and the server instructions. The episode's fault
is injected on its focal write.

The clock is virtual: every call moves it by the tool's latency plus
--think-s, a timeout is answered at once while the clock moves by the
client timeout, and the wait tool moves it on. An episode ends on finish,
when the client disconnects, or when it exhausts --max-calls or
--max-time-s; it is then graded and appended to the ledger as one line
(written with one write and synced). A restarted serve skips the episodes
the ledger already holds, so a plan is worked through across restarts; when
it holds them all, serve says so and exits 0, as drive does. A
session that leaves without calling any tool is not an episode: its
episode stays pending.

Over stdio (the default), serve runs the next pending episode and exits
when the client disconnects; stdout carries only JSON-RPC, messages go to
stderr. Over HTTP (--transport http, streamable HTTP on --addr, loopback
only unless --allow-remote), every new session takes the next pending
episode, and serve exits when all are recorded (after a short grace for
the clients to close their sessions). A session that has made no tool call
yet (a harness's connection check, such as claude mcp list) gives up its
episode to a new session when nothing else is pending. Requests from a
browser origin other than a loopback one are refused (403) unless named by
--allow-origin, exactly as browsers send it: scheme://host[:port], lower
case, no path (a wildcard, a bare host or a trailing slash is a usage error). A ledger is served by one process at a time: a second
serve or drive on it stops and names the holder of its lock.

--annotations lists every tool with MCP tool annotations (readOnlyHint,
destructiveHint, idempotentHint, openWorldHint). Harnesses use them for
permissions and agents may read them, so they are an experimental factor,
off by default as in the paper; an annotated episode's id carries
"+annotations" after the condition, and every served ledger line records
the factor as "annotations": true or false.

With nothing pending, --print-task exits 1: there is no task to print.
--print-plan prints the plan as a plan file (every episode with its
defaults filled in and its episode_id) and exits; no ledger is needed.

Without --plan the plan is the E2 instance-0 design: every focal write
under timeout_pre, timeout_post, timeout_late, http500_pre, http500_post
and redelivery, plus partial_batch on the batch write; native contract,
vanilla, in design order. --template (with --focal-index, --fault, ...)
serves a single episode instead. A plan file is JSON:

  {"episodes": [
    {"template": "T03", "instance": 0, "focal_index": 1, "fault_mode": "timeout_late",
     "contract": "native", "condition": "vanilla", "guard": false, "seed": 7,
     "model": "claude-opus", "harness": "claude-code", "experiment": "E2"}
  ]}

Examples:

  # one episode over stdio, for a harness's MCP configuration
  limbo-analyze serve --template T03 --focal-index 1 --fault timeout_late --ledger run.jsonl

  # the default E2 plan over HTTP on a local port
  limbo-analyze serve --transport http --addr 127.0.0.1:8765 --ledger e2.jsonl --model my-model

  # the instruction of the next pending episode, for harnesses that take it as an argument
  limbo-analyze serve --plan plan.json --ledger run.jsonl --print-task`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.check(cmd.Flags().Changed); err != nil {
				return usageError{err}
			}
			ctx, stop := signalContext(cmd.Context())
			defer stop()
			err := o.serve(ctx, e)
			if ee := (*mcp.EpisodeError)(nil); errors.As(err, &ee) {
				return usageError{err} // the single episode comes from the flags
			}
			return err
		},
	}
	f := c.Flags()
	f.StringVar(&o.Transport, "transport", "stdio", "stdio or http")
	f.StringVar(&o.Job.Addr, "addr", "127.0.0.1:8765", "listen address for --transport http")
	f.BoolVar(&o.Job.AllowRemote, "allow-remote", false, "allow a non-loopback --addr")
	f.StringVar(&o.Plan.File, "plan", "", "plan file (JSON); default: the E2 instance-0 episodes")
	f.StringVar(&o.Job.Ledger, "ledger", "", "ledger to append graded episodes to (JSONL)")
	f.BoolVar(&o.Job.PrintTask, "print-task", false, "print the next pending episode's task instruction and exit")
	f.BoolVar(&o.PrintPlan, "print-plan", false, "print the plan as JSON (every episode with its defaults and episode_id) and exit")
	f.BoolVar(&o.Job.Options.Raw, "raw", false, "also write calls, effects and the final report into each ledger line")
	addLimitFlags(c, &o.Job.Options.Limits)
	f.DurationVar(&o.Job.Options.IdleTimeout, "idle-timeout", 10*time.Minute, "close an HTTP session idle this long")
	f.BoolVar(&o.Plan.Annotations, "annotations", false, "list the tools with MCP tool annotations (an experimental factor; off in the paper)")
	f.StringSliceVar(&o.Job.Options.AllowedOrigins, "allow-origin", nil, "browser origin (scheme://host:port) accepted besides loopback ones; repeatable")
	f.StringVar(&o.Plan.Model, "model", mcp.DefaultLabel, "model label of the default or single-episode plan")
	f.StringVar(&o.Plan.Harness, "harness", mcp.DefaultLabel, "harness label of the default or single-episode plan")
	f.Uint64Var(&o.Plan.Seed, "seed", 1, "world seed of the default or single-episode plan")
	f.StringVar(&o.Plan.One.Template, "template", "", "serve one episode: task template (T01..T12)")
	f.IntVar(&o.Plan.One.Instance, "instance", 0, "single episode: task instance")
	f.IntVar(&o.Plan.One.FocalIndex, "focal-index", 0, "single episode: focal write index")
	f.StringVar(&o.Plan.One.FaultMode, "fault", ledger.FaultNone, "single episode: fault mode")
	f.StringVar(&o.Plan.One.Contract, "contract", ledger.ContractNative, "single episode: contract")
	f.StringVar(&o.Plan.One.Condition, "condition", mcp.DefaultCondition, "single episode: condition label")
	f.BoolVar(&o.Plan.One.Guard, "guard", false, "single episode: run the guard middleware")
	f.Float64Var(&o.Plan.One.DelayS, "delay-s", 0, "single episode: in-flight delay of a late commit")
	return c
}

// signalContext is ctx (Background if nil) cancelled on an interrupt or
// SIGTERM, so that serve, drive and view --serve stop cleanly.
func signalContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if ctx == nil {
		ctx = context.Background()
	}
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}

// addLimitFlags registers the per-episode budget flags. serve and drive
// share them: drive hands the same values on to the serve processes it
// starts.
func addLimitFlags(c *cobra.Command, l *mcp.Limits) {
	f := c.Flags()
	f.Float64Var(&l.ThinkS, "think-s", mcp.DefaultThinkS, "virtual seconds of thinking added before every call")
	f.IntVar(&l.MaxCalls, "max-calls", mcp.DefaultMaxCalls, "tool calls per episode")
	f.Float64Var(&l.MaxTimeS, "max-time-s", mcp.DefaultMaxTimeS, "virtual-time budget per episode (seconds)")
	f.IntVar(&l.MaxArgBytes, "max-arg-bytes", mcp.DefaultMaxArgBytes, "bytes of one call's arguments")
}

// serveConfig is a serve run as a command line describes it: where the
// plan comes from, how it is served and into which ledger. Its fields hold
// the flags of `limbo-analyze serve`; check validates them together and
// serve runs them.
type serveConfig struct {
	Plan      mcp.PlanSource // the plan file, or the default plan or a single episode (One)
	Job       mcp.ServeJob   // the ledger, the address, PrintTask and the server's options
	Transport string         // "stdio" or "http"
	PrintPlan bool           // print the loaded plan (Plan.Marshal) instead
}

// singleEpisodeFlags are the flags that describe serveConfig.Plan.One.
var singleEpisodeFlags = []string{"instance", "focal-index", "fault", "contract", "condition", "guard", "delay-s"}

// check validates the configuration before anything is opened; set
// reports whether a flag was given on the command line. Every error it
// returns is a usage error, phrased in terms of the flags.
func (c *serveConfig) check(set func(flag string) bool) error {
	j := &c.Job
	j.HTTP = c.Transport == "http"
	if set("allow-origin") && len(j.Options.AllowedOrigins) == 0 {
		j.Options.AllowedOrigins = []string{""} // --allow-origin '' parses to no origin; Check refuses it
	}
	switch {
	case c.Transport != "stdio" && c.Transport != "http":
		return fieldtext.New("Transport", "{Transport} must be stdio or http, got %q", c.Transport)
	case j.Ledger == "" && !j.PrintTask && !c.PrintPlan:
		return fieldtext.New("Ledger", "{Ledger} is required")
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
	return j.Check()
}

// serve loads the plan and serves it (RunServe), prints the plan
// (PrintPlan), or prints the first episode's instruction when PrintTask
// has no ledger to find the next pending one in. A single episode that
// does not make a plan is an *EpisodeError.
func (c *serveConfig) serve(ctx context.Context, e *env) error {
	const name = "limbo-analyze serve"
	plan, err := c.Plan.Load()
	if err != nil {
		return err
	}
	if c.PrintPlan {
		// Every episode with its defaults filled in and its episode_id,
		// for tools that build their own sessions (one per episode).
		b, err := plan.Marshal()
		if err == nil {
			_, err = e.stdout.Write(b)
		}
		return err
	}
	if c.Job.PrintTask && c.Job.Ledger == "" {
		_, err := fmt.Fprintln(e.stdout, mcp.Instruction(plan, 0))
		return err
	}
	j := c.Job
	j.Plan, j.HTTP, j.Stdin, j.Stdout = plan, c.Transport == "http", e.stdin, e.stdout
	// The episodes' callers are the sandbox world, behind the guard where
	// the plan asks for it: the one switch point for server middleware.
	j.Options.Version, j.Options.Log, j.Options.NewCaller = version, e.stderr, mcp.ConditionCaller
	j.Warn = func(msg string) { fmt.Fprintln(e.stderr, name+":", msg) }
	j.Listening = func(a net.Addr, pending int) {
		fmt.Fprintf(e.stderr, "%s: MCP streamable HTTP on http://%s/ (%d episodes pending)\n", name, a, pending)
	}
	j.Done = func(total int, l string) {
		fmt.Fprintf(e.stderr, "%s: all %d episodes of the plan are already in %s; nothing to serve\n", name, total, l)
	}
	return mcp.RunServe(ctx, j)
}
