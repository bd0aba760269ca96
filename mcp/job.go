package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/internal/localhttp"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// PlanSource says where a plan comes from: a plan file, one episode
// described field by field, or the default plan (the E2 instance-0
// episodes) with labels and a seed.
type PlanSource struct {
	File           string  // a plan file (JSON); wins over the rest
	One            Episode // a single episode when One.Template is set
	Model, Harness string  // labels of the default or single-episode plan
	Seed           uint64  // world seed of the default or single-episode plan
	Annotations    bool    // turn the tool-annotation factor on in every episode
}

// EpisodeError is a single episode (PlanSource.One) that does not make a
// plan: its fields came from the caller, so commands report it as a usage
// error.
type EpisodeError struct{ Err error }

func (e *EpisodeError) Error() string { return e.field().Error() }

// Unwrap returns Err within a field error naming PlanSource.One's
// Template, which a command renames to its own option.
func (e *EpisodeError) Unwrap() error { return e.field() }

func (e *EpisodeError) field() *fieldtext.Error {
	return fieldtext.New("Template", "{Template} episode: %w", e.Err)
}

// Load reads or builds the plan.
func (s PlanSource) Load() (*Plan, error) {
	var p *Plan
	var err error
	switch {
	case s.File != "":
		p, err = ReadPlan(s.File)
	case s.One.Template != "":
		ep := s.One
		ep.Model, ep.Harness = s.Model, s.Harness
		ep.SeedFrom(s.Seed)
		if p, err = NewPlan([]Episode{ep}); err != nil {
			return nil, &EpisodeError{err}
		}
	default:
		p, err = DefaultPlan(s.Seed, s.Model, s.Harness)
	}
	if err != nil || !s.Annotations {
		return p, err
	}
	return WithAnnotations(p)
}

// CheckFlags checks the names of a single episode given by serve's flags
// (--template, --fault, --contract) against the sandbox's, so that a typo
// is a usage error listing the choices.
func (e Episode) CheckFlags() error {
	switch {
	case !slices.Contains(sandbox.Templates(), e.Template):
		return fieldtext.New("Template", "{Template} %q: want one of %s", e.Template, strings.Join(sandbox.Templates(), ", "))
	case !slices.Contains(sandboxModes(), e.FaultMode):
		return fieldtext.New("FaultMode", "{FaultMode} %q: want one of %s", e.FaultMode, strings.Join(sandboxModes(), ", "))
	case !ledger.Contracts.Has(e.Contract):
		return fieldtext.New("Contract", "{Contract} %q: want %s", e.Contract, strings.Join(ledger.Contracts.Values, " or "))
	}
	return nil
}

// Check rejects negative budgets (the caller reports a usage error).
func (l Limits) Check() error {
	if l.ThinkS < 0 || l.MaxCalls < 0 || l.MaxTimeS < 0 || l.MaxArgBytes < 0 {
		return fieldtext.New("ThinkS", "{ThinkS}, {MaxCalls}, {MaxTimeS} and {MaxArgBytes} must not be negative")
	}
	return nil
}

// Args returns the serve flags that hand the limits on to a server.
func (l Limits) Args() []string {
	return []string{
		"--think-s", strconv.FormatFloat(l.ThinkS, 'g', -1, 64),
		"--max-calls", strconv.Itoa(l.MaxCalls),
		"--max-time-s", strconv.FormatFloat(l.MaxTimeS, 'g', -1, 64),
		"--max-arg-bytes", strconv.Itoa(l.MaxArgBytes),
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// StdioStreams adapts a process's (or a test's) input and output to what
// ServeStdio takes. The transport never closes the process's stdout:
// messages after the session still go to stderr, and tests pass buffers.
func StdioStreams(r io.Reader, w io.Writer) (io.ReadCloser, io.WriteCloser) {
	rc, ok := r.(io.ReadCloser)
	if !ok {
		rc = io.NopCloser(r)
	}
	if f, ok := w.(*os.File); ok && f == os.Stdout {
		return rc, nopWriteCloser{w}
	}
	if wc, ok := w.(io.WriteCloser); ok {
		return rc, wc
	}
	return rc, nopWriteCloser{w}
}

// DriveJob is one drive into a ledger file: a whole plan, or one shard of
// it with the sidecar merge reads.
type DriveJob struct {
	DriveOptions        // Out is opened from Ledger
	Ledger       string // path of the JSONL ledger
	Shard        string // "I/N" or "" for the whole plan
	Toolkit      string // version recorded in a shard's sidecar
	// Warn receives the ledger's repair messages.
	Warn func(string)
	// Start, if set, is called once the pending episodes are known and
	// before any is driven (not called when none is pending).
	Start func(pending int)
}

// Check validates a job as a command gives it, every option explicit:
// the harness, a JSONL ledger (named by its flag's field Out), from 1 to
// 256 harnesses at once, a positive Timeout and Grace, and a well-formed
// Shard. RunDrive does not call it, for it reads a zero Parallel, Timeout
// or Grace as the default.
func (j *DriveJob) Check() error {
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
	if j.Shard != "" {
		if _, _, err := design.ParseShard(j.Shard); err != nil {
			return fieldtext.New("Shard", "{Shard}: %w", err)
		}
	}
	return nil
}

// DriveTally counts a drive's episodes.
type DriveTally struct {
	Total    int // episodes of the (shard's) plan
	Pending  int // not in the ledger when the drive began
	Recorded int
	Failed   int
}

// RunDrive drives the job's pending episodes into its ledger under the
// ledger's lock. Every line the ledger already holds of a planned episode
// must be that episode (CheckLedger: a ledger of another seed,
// model or plan under the same ids is refused). A shard's sidecar is
// checked before anything runs (a ledger of another plan, shard or toolkit
// version is refused, and a shard's ledger holds nothing but its slice)
// and written before the first episode, so that the plan's identity is on
// disk whenever an episode is; it is removed again with a ledger that
// received none. Nothing pending is success.
//
// A job of Episodes (another server's, the proxy's) has no shards and no
// plan of serve's to check the ledger against: its pending episodes are
// those the ledger lacks.
func RunDrive(ctx context.Context, j DriveJob) (t DriveTally, err error) {
	var meta *ShardMeta
	if j.Episodes != nil && j.Shard != "" {
		return t, fieldtext.New("Shard", "{Shard} is for serve's plans, not for another server's episodes")
	}
	if j.Shard != "" {
		if j.Plan, meta, err = ShardPlan(j.Plan, j.Shard, j.Toolkit); err != nil {
			return t, err
		}
	}
	var eps Driven = j.Episodes
	if eps == nil {
		eps = planDriven{p: j.Plan}
	}
	t.Total = eps.Len()
	if j.LogDir != "" {
		if err := os.MkdirAll(j.LogDir, 0o755); err != nil {
			return t, err
		}
	}
	out, err := OpenLedger(j.Ledger, j.Warn)
	if err != nil {
		return t, err
	}
	wroteMeta := false
	defer func() {
		if cerr := out.Close(); cerr != nil && err == nil {
			err = cerr
		}
		// Close removed a ledger that received no episode: its sidecar
		// describes nothing.
		if _, serr := os.Stat(j.Ledger); wroteMeta && errors.Is(serr, os.ErrNotExist) {
			os.Remove(design.MetaPath(j.Ledger))
		}
	}()
	if meta != nil && out.Len() > 0 {
		// An empty ledger holds nothing of the plan its sidecar names (a
		// run killed before its first episode): it is claimed anew.
		if err := meta.CheckExisting(j.Ledger); err != nil {
			return t, err
		}
	}
	if j.Episodes == nil {
		if err := CheckLedger(out, j.Plan, meta != nil); err != nil {
			return t, err
		}
	}
	if meta != nil {
		if err := meta.Write(j.Ledger); err != nil {
			return t, err
		}
		wroteMeta = true
	}
	for i := range t.Total {
		if !out.Has(eps.EpisodeID(i)) {
			t.Pending++
		}
	}
	if t.Pending == 0 {
		return t, nil
	}
	if j.Start != nil {
		j.Start(t.Pending)
	}
	j.Out = out
	t.Recorded, t.Failed, err = Drive(ctx, j.DriveOptions)
	if err == nil && t.Failed > 0 {
		err = fmt.Errorf("%d episodes failed (run drive again to retry them)", t.Failed)
	}
	return t, err
}

// ServeJob is one serve run: a plan served into a ledger file over stdio
// (the next pending episode) or streamable HTTP (every pending episode).
type ServeJob struct {
	Plan        *Plan
	Ledger      string
	Options     Options   // of the server; NewCaller defaults to ConditionCaller
	HTTP        bool      // streamable HTTP on Addr instead of stdio
	Addr        string    // listen address over HTTP
	AllowRemote bool      // allow a non-loopback Addr
	Stdin       io.Reader // the stdio transport's input
	Stdout      io.Writer // the stdio transport's output, and PrintTask's
	// PrintTask prints the next pending episode's instruction to Stdout
	// instead of serving; with nothing pending that is an error.
	PrintTask bool
	Warn      func(string)              // the ledger's repair messages
	Listening func(net.Addr, int)       // over HTTP: the address and the pending count
	Done      func(total int, l string) // nothing pending: every episode is already in the ledger
}

// Check validates a job before anything is opened: over HTTP the listen
// address (loopback unless AllowRemote), a JSONL Ledger if one is named,
// the allowed origins and the limits. RunServe does not call it; whether a
// ledger is needed at all is the caller's (PrintTask needs none).
func (j *ServeJob) Check() error {
	if j.HTTP {
		if err := localhttp.CheckListen(j.Addr, j.AllowRemote); err != nil {
			return err
		}
	}
	if j.Ledger != "" && !ledger.IsJSONLName(j.Ledger) {
		return fieldtext.New("Ledger", "{Ledger} %s: the served ledger is JSONL; name it .jsonl", j.Ledger)
	}
	for _, o := range j.Options.AllowedOrigins {
		if err := localhttp.CheckOrigin(o); err != nil {
			return fieldtext.New("AllowedOrigins", "{AllowedOrigins} %q: %w", o, err)
		}
	}
	return j.Options.Limits.Check()
}

// RunServe serves the job under the ledger's lock. Nothing pending is
// success (reported to Done), as for drive: a rerun after the plan is
// done must not look like a failure.
func RunServe(ctx context.Context, j ServeJob) error {
	l, err := OpenLedger(j.Ledger, j.Warn)
	if err != nil {
		return err
	}
	defer l.Close()
	// The episodes of the plan already in the ledger must be this plan's
	// (a ledger may hold other plans' episodes besides).
	if err := CheckLedger(l, j.Plan, false); err != nil {
		return err
	}
	if j.Options.NewCaller == nil {
		j.Options.NewCaller = ConditionCaller
	}
	srv := NewServer(j.Plan, l, j.Options)
	switch {
	case j.PrintTask:
		_, idx, ok := srv.Next()
		if !ok {
			return fmt.Errorf("every episode of the plan is already in %s: no task to print", j.Ledger)
		}
		_, err := fmt.Fprintln(j.Stdout, Instruction(j.Plan, idx))
		return err
	case srv.Pending() == 0:
		if j.Done != nil {
			j.Done(j.Plan.Len(), j.Ledger)
		}
		return nil
	case !j.HTTP:
		in, out := StdioStreams(j.Stdin, j.Stdout)
		_, err := srv.ServeStdio(ctx, in, out)
		return err
	}
	// The SDK's decoder allocates a 32 KiB buffer per message; a lazier
	// collector halves the CPU per episode for a few MiB of heap.
	debug.SetGCPercent(400)
	err = srv.ServeHTTP(ctx, j.Addr, j.AllowRemote, func(a net.Addr) {
		if j.Listening != nil {
			j.Listening(a, srv.Pending())
		}
	})
	if err != nil {
		return err
	}
	if n := srv.Failed(); n > 0 {
		return fmt.Errorf("%d episodes could not be recorded", n)
	}
	return nil
}
