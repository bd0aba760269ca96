package proxy

import (
	"context"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/guard/sqlitestore"
	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/ledgerfile"
	"github.com/limbo-toolkit/limbo/mcp/stdioguard"
)

// Job is one proxy run from start to end, as `limbo-analyze proxy`
// describes it: the upstream (or a recording of it), the contract and the
// plan, the ledger, the guard and how the proxy serves its agents.
type Job struct {
	Command        []string // the upstream's command; or URL
	URL            string
	UpstreamStderr io.Writer // the upstream command's stderr; nil: Stderr
	StartTimeout   time.Duration
	CallTimeout    time.Duration

	ContractFile  string // "": the upstream's annotations decide
	PrintContract bool   // print the contract the proxy would use, and return
	PlanFile      string // "": every session is One (its next repetition)
	One           Episode

	LateDelay       time.Duration
	TailScale       float64
	RedeliveryDelay time.Duration // 0: at once
	Seed            uint64
	Ledger          string // "": no ledger
	Finish          bool
	Service         string

	Guard       string // "", "keys" or "derived"
	State       string // the guard's SQLite file
	InFlight    guard.InFlight
	KeyTTL      time.Duration
	VerifyAfter time.Duration

	Record, Replay string // at most one
	ReplayMiss     ReplayMiss

	Addr        string // "": one session over stdio; else streamable HTTP
	AllowRemote bool
	HTTP        HTTPOptions

	Version string
	// Stdin and Stdout are the stdio transport's streams (Stdout also
	// takes the printed contract); Stderr the proxy's messages.
	Stdin  io.ReadCloser
	Stdout io.WriteCloser
	Stderr io.Writer
}

// SetupError is a run that cannot start as configured: options that do
// not fit the upstream (a contract's problems are a *ContractError).
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return "proxy: " + e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// ContractLabel is the ledger's contract of a run: keys-everywhere when
// the keys guard gives every write a key.
func (j *Job) ContractLabel() string {
	if j.Guard == "keys" {
		return ledger.ContractKeysEverywhere
	}
	return ledger.ContractNative
}

// Run connects the upstream (or opens the replay), fits the contract to
// its tools and serves until the session (stdio) or the plan (HTTP) ends,
// or ctx is done. A contract that does not fit is a *ContractError, a job
// that Check refuses a *SetupError.
func Run(ctx context.Context, j Job) error {
	if err := j.Check(); err != nil {
		return err
	}
	// The upstream's stderr (copied in by os/exec when it is not a file)
	// and the proxy's messages share one stream: one write at a time.
	log := &syncWriter{w: j.Stderr}
	contract := &Contract{Tools: map[string]*ToolSpec{}}
	if j.ContractFile != "" {
		var err error
		if contract, err = ReadContract(j.ContractFile); err != nil {
			return err
		}
	}
	var plan []Episode
	if j.PlanFile != "" {
		var err error
		if plan, err = ReadPlan(j.PlanFile, j.Addr != "", j.ContractLabel()); err != nil {
			return err
		}
	}
	stderr := j.UpstreamStderr
	if stderr == nil {
		stderr = log
	}
	up, err := j.upstream(ctx, stderr)
	if err != nil {
		return err
	}
	defer up.Close()
	if err := contract.Resolve(up.Tools); err != nil {
		return err
	}
	if j.PrintContract {
		name := up.Name()
		if info := up.Info(); info.ServerInfo != nil && info.ServerInfo.Version != "" {
			name += " " + info.ServerInfo.Version
		}
		_, err := j.Stdout.Write(contract.Marshal(up.Tools, name))
		return err
	}
	var l *ledgerfile.Ledger
	if j.Ledger != "" {
		if l, err = ledgerfile.Open(j.Ledger, func(msg string) { fmt.Fprintln(log, "limbo-analyze proxy:", msg) }); err != nil {
			return err
		}
		defer l.Close()
	}
	redelivery := j.RedeliveryDelay
	if redelivery == 0 {
		redelivery = -1 // Options spells "at once" negative
	}
	opts := Options{
		ContractLabel: j.ContractLabel(),
		Upstream:      up, Contract: contract, Plan: plan, Single: j.One, HTTP: j.Addr != "", Ledger: l, Finish: j.Finish,
		Service: j.Service, Seed: j.Seed, LateDelay: j.LateDelay, TailScale: j.TailScale,
		RedeliveryDelay: redelivery, CallTimeout: j.CallTimeout, Log: log, Version: j.Version,
	}
	if j.Guard != "" {
		policy, err := guard.ParsePolicy(j.Guard)
		if err != nil {
			return &SetupError{err}
		}
		st, err := sqlitestore.Open(ctx, j.State)
		if err != nil {
			return err
		}
		defer st.Close()
		opts.Guard = &GuardOptions{Config: guard.Config{Policy: policy, TTL: j.KeyTTL, VerifyAfter: j.VerifyAfter, InFlight: j.InFlight}, Store: st}
	}
	p, err := New(opts)
	if err != nil {
		return &SetupError{err}
	}
	if plan != nil && p.Pending() == 0 {
		fmt.Fprintf(log, "limbo-analyze proxy: all %d episodes of the plan are already in %s; nothing to serve\n", len(plan), j.Ledger)
		return nil
	}
	var rec *Recorder
	if j.Record != "" {
		if rec, err = CreateRecording(j.Record, up); err != nil {
			return err
		}
	}
	if j.Addr == "" {
		err = p.ServeStdio(ctx, stdioguard.Transport(j.Stdin, j.Stdout, 1<<20))
	} else {
		err = p.ServeHTTP(ctx, j.Addr, j.AllowRemote, j.HTTP, func(a net.Addr) {
			fmt.Fprintf(log, "limbo-analyze proxy: MCP streamable HTTP on http://%s/ in front of %s\n", a, up.Name())
		})
	}
	if rec != nil {
		if cerr := rec.Close(); err == nil {
			err = cerr
		}
	}
	if missed := up.Missed(); err == nil && len(missed) > 0 && j.ReplayMiss == MissError {
		err = fieldtext.New("Replay", "proxy: {Replay} %s: %d calls had no recorded answer, the first: %s", j.Replay, len(missed), missed[0])
	}
	return err
}

// upstream connects the upstream, or opens the replay (with the live
// upstream behind it when a miss goes live).
func (j *Job) upstream(ctx context.Context, stderr io.Writer) (*Upstream, error) {
	var live *Upstream
	if j.Replay == "" || j.ReplayMiss == MissLive {
		var err error
		live, err = Connect(ctx, UpstreamSpec{Command: j.Command, URL: j.URL, Stderr: stderr, StartTimeout: j.StartTimeout, Version: j.Version})
		if err != nil {
			return nil, err
		}
		if j.Replay == "" {
			return live, nil
		}
	}
	up, err := OpenReplay(j.Replay, j.ReplayMiss, live)
	if err != nil && live != nil {
		live.Close()
	}
	return up, err
}
