// Command serve is a minimal stdio/HTTP server over package mcp for the
// package's process-level tests (the full CLI is tested in cmd). It takes
// the flags mcp.Drive gives a server, after an optional "serve" word.
//
//	serve [serve] --plan PLAN --ledger OUT [--http 127.0.0.1:0] [--think-s S]
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"syscall"

	"github.com/limbo-toolkit/limbo/mcp"
)

func main() {
	args := os.Args[1:]
	if len(args) > 0 && args[0] == "serve" {
		args = args[1:]
	}
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	planPath := fs.String("plan", "", "plan file")
	ledgerPath := fs.String("ledger", "", "ledger")
	addr := fs.String("http", "", "serve streamable HTTP on this address")
	var lim mcp.Limits
	fs.Float64Var(&lim.ThinkS, "think-s", 0, "think time")
	fs.IntVar(&lim.MaxCalls, "max-calls", 0, "calls per episode")
	fs.Float64Var(&lim.MaxTimeS, "max-time-s", 0, "virtual-time budget")
	fs.IntVar(&lim.MaxArgBytes, "max-arg-bytes", 0, "argument bytes")
	fs.String("transport", "stdio", "ignored: -http selects HTTP")
	raw := fs.Bool("raw", false, "raw lines")
	fs.Parse(args)
	// For profiling the server alone (BenchmarkHTTPServerProcess).
	if p := os.Getenv("LIMBO_SERVE_CPUPROFILE"); p != "" {
		if f, err := os.Create(p + "." + strconv.Itoa(os.Getpid())); err == nil && pprof.StartCPUProfile(f) == nil {
			defer func() { pprof.StopCPUProfile(); f.Close() }()
		}
	}
	if err := run(*planPath, *ledgerPath, *addr, lim, *raw); err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
		pprof.StopCPUProfile()
		os.Exit(1)
	}
}

func run(planPath, ledgerPath, addr string, lim mcp.Limits, raw bool) error {
	plan, err := mcp.ReadPlan(planPath)
	if err != nil {
		return err
	}
	l, err := mcp.OpenLedger(ledgerPath, func(s string) { fmt.Fprintln(os.Stderr, s) })
	if err != nil {
		return err
	}
	defer l.Close()
	srv := mcp.NewServer(plan, l, mcp.Options{Limits: lim, Raw: raw, Log: os.Stderr})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if addr == "" {
		_, err := srv.ServeStdio(ctx, os.Stdin, os.Stdout)
		return err
	}
	debug.SetGCPercent(400) // as limbo-analyze serve does over HTTP
	return srv.ServeHTTP(ctx, addr, false, func(a net.Addr) {
		fmt.Printf("listening %s\n", a)
	})
}
