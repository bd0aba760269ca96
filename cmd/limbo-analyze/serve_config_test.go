package main

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/limbo-toolkit/limbo/internal/fieldtext"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp"
)

// Check reports the first invalid flag of a serve configuration.
func TestServeConfigCheck(t *testing.T) {
	ok := serveConfig{Transport: "stdio", Job: mcp.ServeJob{Addr: "127.0.0.1:8765", Ledger: "run.jsonl"},
		Plan: mcp.PlanSource{One: mcp.Episode{Template: "T03", FaultMode: ledger.FaultNone, Contract: ledger.ContractNative}}}
	tests := []struct {
		name string
		edit func(*serveConfig)
		set  []string
		err  string
	}{
		{"defaults", func(*serveConfig) {}, nil, ""},
		{"transport", func(c *serveConfig) { c.Transport = "grpc" }, nil, `Transport must be stdio or http, got "grpc"`},
		{"remote addr", func(c *serveConfig) { c.Transport, c.Job.Addr = "http", "0.0.0.0:80" }, nil, "Addr 0.0.0.0:80 is not a loopback address; pass AllowRemote to bind it"},
		{"remote allowed", func(c *serveConfig) { c.Transport, c.Job.Addr, c.Job.AllowRemote = "http", "0.0.0.0:80", true }, nil, ""},
		{"no ledger", func(c *serveConfig) { c.Job.Ledger = "" }, nil, "Ledger is required"},
		{"print task needs no ledger", func(c *serveConfig) { c.Job.Ledger, c.Job.PrintTask = "", true }, nil, ""},
		{"print plan needs no ledger", func(c *serveConfig) { c.Job.Ledger, c.PrintPlan = "", true }, nil, ""},
		{"csv ledger", func(c *serveConfig) { c.Job.Ledger = "run.csv" }, nil, "Ledger run.csv: the served ledger is JSONL; name it .jsonl"},
		{"plan and template", func(c *serveConfig) { c.Plan.File = "p.json" }, []string{"template"}, "PlanFile and Template exclude each other"},
		{"fault without template", func(*serveConfig) {}, []string{"fault"}, "--fault describes a single episode and needs --template"},
		{"bad template", func(c *serveConfig) { c.Plan.One.Template = "T99" }, []string{"template"}, `Template "T99": want one of`},
		{"bad template unused", func(c *serveConfig) { c.Plan.One.Template = "T99" }, nil, ""},
		{"negative limits", func(c *serveConfig) { c.Job.Options.Limits.MaxCalls = -1 }, nil, "ThinkS, MaxCalls, MaxTimeS and MaxArgBytes must not be negative"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.check(func(f string) bool { return slices.Contains(tc.set, f) })
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)) {
				t.Errorf("Check() = %v, want %q", err, tc.err)
			}
		})
	}
}

// PrintPlan prints the default plan in the plan file format, which reads
// back as the same plan (ids and seeds included).
func TestServePrintPlan(t *testing.T) {
	var out bytes.Buffer
	c := serveConfig{PrintPlan: true, Plan: mcp.PlanSource{Model: "m", Harness: "h", Seed: 1}}
	if err := c.serve(context.Background(), &env{stdin: strings.NewReader(""), stdout: &out, stderr: &bytes.Buffer{}}); err != nil {
		t.Fatal(err)
	}
	got, err := mcp.ParsePlan("printed.json", out.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want, err := mcp.DefaultPlan(1, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	if got.Len() != want.Len() {
		t.Fatalf("printed plan has %d episodes, want %d", got.Len(), want.Len())
	}
	for i := range want.Episodes {
		if g, w := got.Episodes[i], want.Episodes[i]; g.EpisodeID != w.EpisodeID || g.Seed != w.Seed {
			t.Errorf("episode %d: got %s seed %d, want %s seed %d", i, g.EpisodeID, g.Seed, w.EpisodeID, w.Seed)
		}
	}
}

// drive's check is the job's (mcp.DriveJob.Check, tested there) and the
// servers' limits.
func TestDriveConfigCheck(t *testing.T) {
	ok := driveConfig{Job: mcp.DriveJob{Ledger: "run.jsonl", DriveOptions: mcp.DriveOptions{Harness: "true", Parallel: 1, Timeout: time.Minute, Grace: time.Second}}}
	tests := []struct {
		name string
		edit func(*driveConfig)
		err  string
	}{
		{"defaults", func(*driveConfig) {}, ""},
		{"parquet out", func(c *driveConfig) { c.Job.Ledger = "run.parquet" }, "Out run.parquet: the driven ledger is JSONL; name it .jsonl"},
		{"negative limits", func(c *driveConfig) { c.Limits.ThinkS = -1 }, "ThinkS, MaxCalls"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.edit(&c)
			err := c.check()
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)) {
				t.Errorf("Check() = %v, want %q", err, tc.err)
			}
		})
	}
}

// Without a ledger, --print-task prints the plan's first instruction; a
// single episode that makes no plan is an *EpisodeError.
func TestServeConfigServePrintTask(t *testing.T) {
	c := serveConfig{Job: mcp.ServeJob{PrintTask: true}, Plan: mcp.PlanSource{Model: mcp.DefaultLabel, Harness: mcp.DefaultLabel, Seed: 1}}
	var out, log bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &log}
	if err := c.serve(context.Background(), e); err != nil {
		t.Fatal(err)
	}
	plan, err := mcp.DefaultPlan(1, mcp.DefaultLabel, mcp.DefaultLabel)
	if err != nil {
		t.Fatal(err)
	}
	if want := mcp.Instruction(plan, 0) + "\n"; out.String() != want {
		t.Errorf("printed %q, want %q", out.String(), want)
	}
	c.Plan.One = mcp.Episode{Template: "T03", FocalIndex: 99, FaultMode: ledger.FaultNone, Contract: ledger.ContractNative, Condition: mcp.DefaultCondition}
	var ee *mcp.EpisodeError
	err = c.serve(context.Background(), e)
	if !errors.As(err, &ee) {
		t.Errorf("a single episode with focal index 99: err = %v, want an *EpisodeError", err)
	}
	// It names the Template field, which a command renames to its flag.
	if got := fieldtext.Rename(err, map[string]string{"Template": "--template"}).Error(); !strings.HasPrefix(got, "--template episode: ") || !strings.HasPrefix(err.Error(), "Template episode: ") {
		t.Errorf("error %q, renamed %q: want Template episode: …, renamed --template episode: …", err, got)
	}
}
