// Command harness is a scripted MCP agent harness for the drive tests: it
// reads an MCP client configuration in the mcpServers format, starts the
// configured stdio server, plays a fixed policy on the task the server
// offers, reports through finish and exits.
//
//	harness -config CONFIG.json -policy blind-retry [-task TEXT]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/mcp/internal/scripted"
)

func main() {
	config := flag.String("config", "", "MCP client configuration (mcpServers JSON)")
	policy := flag.String("policy", scripted.BlindRetry, "policy to play")
	task := flag.String("task", "", "task text (checked to be non-empty)")
	contract := flag.String("contract", "native", "contract (which tools take a key)")
	skip := flag.Bool("skip", false, "connect, list tools and leave without calling anything")
	flag.Parse()
	if err := run(*config, *policy, *task, *contract, *skip); err != nil {
		fmt.Fprintln(os.Stderr, "harness:", err)
		os.Exit(1)
	}
}

func run(config, policy, task, contract string, skip bool) error {
	if task == "" {
		return fmt.Errorf("empty task")
	}
	data, err := os.ReadFile(config)
	if err != nil {
		return err
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return err
	}
	srv, ok := cfg.MCPServers["limbo"]
	if !ok {
		return fmt.Errorf("%s: no mcpServers.limbo", config)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(srv.Command, srv.Args...)
	cmd.Stderr = os.Stderr
	client := sdk.NewClient(&sdk.Implementation{Name: "limbo-test-harness", Version: "v0"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		return err
	}
	defer cs.Close()
	if skip {
		_, err := cs.ListTools(ctx, nil)
		return err
	}
	t, err := scripted.SessionTask(ctx, cs)
	if err != nil {
		return err
	}
	return scripted.Play(&scripted.Client{Ctx: ctx, Session: cs}, t, contract, policy)
}
