package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/internal/planjson"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp"
	"github.com/limbo-toolkit/limbo/mcp/proxy"
)

func newProxyCmd(e *env) *cobra.Command {
	o := &proxyConfig{}
	c := &cobra.Command{
		Use:   "proxy [flags] -- CMD ARGS... | proxy --upstream URL [flags]",
		Short: "Put LIMBO's faults, ledger and grading in front of any MCP server",
		Long: `proxy is an MCP server that forwards to an upstream MCP server: a command
after -- spoken to over stdio (its stderr passed through, or to
--upstream-stderr), or a streamable-HTTP endpoint (--upstream URL). The
upstream's tools (schemas and annotations), prompts and resources pass
through as they change, and so do progress, completion, subscriptions,
logging and the upstream's sampling, elicitation and roots requests
(docs/proxy.md, What passes through). The proxy serves one session over stdio, or streamable HTTP on
--http ADDR (loopback only, the Host and Origin rules of serve). One MCP
session is one episode; all sessions share the one upstream connection.

Which tools write, and what identifies their effects, comes from --contract
FILE (YAML, docs/proxy.md) and, for what it leaves out, the upstream's
annotations: readOnlyHint is a read, idempotentHint an idempotent write,
an unannotated tool a non-idempotent write. --print-contract prints the
contract the proxy would use, as a starting file, and exits.

--fault MODE --tool NAME [--occurrence N] injects a fault on the N-th call
of the tool (default the first): timeout_pre, timeout_post, timeout_late
(--late-delay), timeout_late_tail (a heavy-tailed delay seeded by --seed),
http500_pre, http500_post, redelivery, partial_batch (the contract's batch:
half the items forwarded), and over --http session_lost and stream_drop.
--plan FILE lists the episodes instead, one per session. The agent sees a
fault as serve shows it; a fault that could not land is recorded as not
fired.

--ledger FILE gets one raw line per episode (as serve's: calls, effects with
their origin, the fault and whether it fired, the final report from the
finish tool that --finish offers), carrying its grading rules, so grade,
rates, paired, gate and view read it unchanged. Without a plan, each
session is the next repetition (--rep) of the flags' world that the ledger
lacks.

--guard keys|derived --state FILE puts the exactly-once guard (docs/guard.md)
in front of every non-idempotent write, its keys in a SQLite file that
survives a restart: keys adds an optional idempotency_key to those tools and
replays a completed key's result (a repeat in flight waits, or with
--in-flight reject is refused; the key with other arguments is refused);
derived keys calls by a hash of their effect (--key-ttl). An answer the proxy
never learned is settled by the contract's read-back, never replayed as a
success (--verify-after: the bound on a request's time in flight); under
keys, a tool whose contract names the upstream's own key is sent again
with that key instead, for the upstream absorbs the copy.

--record FILE writes the upstream's answers of the run; --replay FILE serves a
run from such a recording without contacting the upstream (a call it does not
hold is an error, or with --replay-miss live goes to the upstream).

An upstream that exits, does not answer initialize within --start-timeout or
does not speak MCP is an error (exit 1); a contract that does not fit the
upstream is a usage error (exit 2). An episode that had started is recorded
either way.

Examples:

  limbo-analyze proxy --print-contract -- npx @modelcontextprotocol/server-memory

  limbo-analyze proxy --contract memory.yaml --fault timeout_post --tool create_entities \
    --ledger runs.jsonl --model my-model --finish -- npx @modelcontextprotocol/server-memory

  limbo-analyze proxy --http 127.0.0.1:8766 --plan plan.json --ledger runs.jsonl \
    --upstream http://127.0.0.1:9000/mcp`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var err error
			if o.Command, err = upstreamCommand(cmd, args, "proxy"); err == nil {
				err = o.check(cmd.Flags().Changed)
			}
			if err != nil {
				return usageError{err}
			}
			ctx, stop := signalContext(cmd.Context())
			defer stop()
			return o.run(ctx, e)
		},
	}
	f := c.Flags()
	f.StringVar(&o.URL, "upstream", "", "streamable-HTTP endpoint of the upstream (instead of a command after --)")
	f.StringVar(&o.UpstreamStderrFile, "upstream-stderr", "", "append the upstream command's stderr to this file (default: this process's stderr)")
	f.DurationVar(&o.StartTimeout, "start-timeout", proxy.DefaultStartTimeout, "time the upstream has to answer initialize")
	f.DurationVar(&o.CallTimeout, "call-timeout", proxy.DefaultCallTimeout, "time a forwarded call may take")
	f.StringVar(&o.ContractFile, "contract", "", "contract file (YAML): which tools write, what identifies their effects")
	f.BoolVar(&o.PrintContract, "print-contract", false, "print the contract the proxy would use and exit")
	f.StringVar(&o.One.FaultMode, "fault", ledger.FaultNone, "fault mode: "+strings.Join(proxy.Modes(), ", "))
	f.StringVar(&o.One.Tool, "tool", "", "the tool whose call the fault hits")
	f.IntVar(&o.One.Occurrence, "occurrence", 1, "which call of --tool is hit (1: the first)")
	f.StringVar(&o.PlanFile, "plan", "", "plan file (JSON): the episodes, one per session")
	f.Float64Var(&o.LateDelayS, "late-delay", proxy.DefaultLateDelay.Seconds(), "seconds before timeout_late's forward")
	f.Float64Var(&o.TailScale, "tail-scale", 1, "factor on timeout_late_tail's drawn delay (40 s to 2 h at 1)")
	f.Float64Var(&o.RedeliveryDelayS, "redelivery-delay", proxy.DefaultRedeliveryDelay.Seconds(), "seconds between a redelivered call and its copy")
	f.Uint64Var(&o.Seed, "seed", 1, "seed of the heavy-tailed delays")
	f.StringVar(&o.Ledger, "ledger", "", "ledger to append the episodes to (JSONL)")
	f.BoolVar(&o.Finish, "finish", false, "offer a finish tool through which the agent reports its status and uncertainties")
	f.StringVar(&o.One.Model, "model", proxy.DefaultLabel, "model label")
	f.StringVar(&o.One.Harness, "harness", proxy.DefaultLabel, "harness label")
	f.StringVar(&o.One.Task, "task", proxy.DefaultTask, "task label (the ledger's template)")
	f.StringVar(&o.One.Condition, "condition", proxy.DefaultCondition, "condition label")
	f.StringVar(&o.One.Experiment, "experiment", proxy.DefaultExperiment, "experiment label")
	f.IntVar(&o.One.Rep, "rep", 0, "first repetition of the flags' world (the ledger's instance)")
	f.StringVar(&o.Service, "service", "", "service label (default: the upstream's name)")
	f.StringVar(&o.Guard, "guard", "", "put a guard in front of the non-idempotent writes: keys (the agent's idempotency_key) or derived (a hash of the effect)")
	f.StringVar(&o.State, "state", "", "with --guard: the SQLite file that keeps the keys (durable across restarts)")
	f.StringVar(&o.InFlightFlag, "in-flight", "wait", "with --guard: a repeat while the original is in flight waits for it, or is refused retryably (reject)")
	f.DurationVar(&o.KeyTTL, "key-ttl", 0, "with --guard: how long a completed key protects (0: for ever)")
	f.DurationVar(&o.VerifyAfter, "verify-after", 0, "with --guard: the bound on the time a request stays in flight (docs/guard.md, Proposition 1)")
	f.StringVar(&o.Record, "record", "", "record the upstream's answers of the run in this file")
	f.StringVar(&o.Replay, "replay", "", "serve the upstream's answers from this recording, without contacting it")
	f.StringVar((*string)(&o.ReplayMiss), "replay-miss", string(proxy.MissError), "a call the recording does not hold: error, or live (forwarded to the upstream)")
	f.StringVar(&o.Addr, "http", "", "serve streamable HTTP on this address instead of stdio (loopback)")
	f.BoolVar(&o.AllowRemote, "allow-remote", false, "allow a non-loopback --http address")
	f.StringSliceVar(&o.HTTP.AllowedOrigins, "allow-origin", nil, "browser origin (scheme://host:port) accepted besides loopback ones; repeatable")
	f.DurationVar(&o.HTTP.IdleTimeout, "idle-timeout", 10*time.Minute, "close an HTTP session idle this long")
	return c
}

// upstreamCommand is the upstream's command after -- of name (proxy,
// drive --proxy); an argument before -- is an error.
func upstreamCommand(cmd *cobra.Command, args []string, name string) ([]string, error) {
	before, after := args, []string(nil)
	if dash := cmd.ArgsLenAtDash(); dash >= 0 {
		before, after = args[:dash], args[dash:]
	}
	if len(before) > 0 {
		return nil, fmt.Errorf("%s: the upstream command goes after -- (got %q before it)", name, strings.Join(before, " "))
	}
	return after, nil
}

// proxyConfig is a proxy run as a command line describes it: the
// library's Job, and the flags that are not yet its fields.
type proxyConfig struct {
	proxy.Job
	UpstreamStderrFile string
	LateDelayS         float64
	RedeliveryDelayS   float64
	InFlightFlag       string
}

// check validates the flags together, before anything starts: those
// that only the command has or that depend on which flags were given,
// then the job (proxy.Job.Check).
func (c *proxyConfig) check(set func(string) bool) error {
	switch {
	case c.PlanFile != "" && (set("fault") || set("tool") || set("occurrence") || set("rep")):
		return errors.New("proxy: --plan and --fault, --tool, --occurrence, --rep exclude each other")
	case !(c.LateDelayS > 0) || !(c.RedeliveryDelayS >= 0):
		return errors.New("proxy: --late-delay and --tail-scale must be positive, --redelivery-delay not negative")
	case c.Guard == "" && (set("state") || set("in-flight") || set("key-ttl") || set("verify-after")):
		return errors.New("proxy: --state, --in-flight, --key-ttl and --verify-after go with --guard")
	case c.InFlightFlag != "wait" && c.InFlightFlag != "reject":
		return fmt.Errorf("proxy: --in-flight %q: want wait or reject", c.InFlightFlag)
	}
	c.LateDelay, c.RedeliveryDelay = secondsDuration(c.LateDelayS), secondsDuration(c.RedeliveryDelayS)
	if c.InFlightFlag == "reject" {
		c.InFlight = guard.InFlightRefuse
	}
	if c.Guard != "" && !set("condition") {
		// The guarded arm of a world: its own condition, so that its
		// episodes pair with the baseline's (same pair key), not collide.
		c.One.Condition = "guard-" + c.Guard
	}
	err := c.Job.Check()
	if fe := (*planjson.FieldError)(nil); errors.As(err, &fe) {
		return fmt.Errorf("proxy: --%s: %s", strings.Replace(fe.Field, "fault_mode", "fault", 1), fe.Msg)
	}
	return fieldtext.Rename(err, proxyFlags)
}

// proxyFlags are specFlags but for Addr, which the proxy's --http sets.
var proxyFlags = func() map[string]string {
	m := maps.Clone(specFlags)
	m["Addr"] = "--http"
	return m
}()

// run is the library's proxy.Run with the flags' values and this
// process's streams; a contract or options that do not fit the upstream
// are usage errors (exit 2).
func (c *proxyConfig) run(ctx context.Context, e *env) error {
	j := c.Job
	j.Version, j.Stderr = version, e.stderr
	j.Stdin, j.Stdout = mcp.StdioStreams(e.stdin, e.stdout)
	if c.UpstreamStderrFile != "" {
		f, err := os.OpenFile(c.UpstreamStderrFile, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
		if err != nil {
			return usageError{fmt.Errorf("proxy: --upstream-stderr: %v", err)}
		}
		defer f.Close()
		j.UpstreamStderr = f
	}
	if os.Getenv("GOGC") == "" {
		// The SDK allocates a 32 KiB buffer per message on either side of
		// the proxy: a lazier collector halves the CPU per call for a few
		// MiB of heap (as serve does over HTTP).
		debug.SetGCPercent(400)
	}
	err := proxy.Run(ctx, j)
	var ce *proxy.ContractError
	var se *proxy.SetupError
	if errors.As(err, &ce) || errors.As(err, &se) {
		return usageError{err}
	}
	return err
}

func secondsDuration(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
