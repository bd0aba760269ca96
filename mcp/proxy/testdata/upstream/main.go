// Command upstream is a small MCP server over stdio for the proxy's
// process-level tests: insert appends a line to the file -file (the
// server's own state, which the tests read), count counts a name's lines,
// echo answers the name, crash exits mid-call with status 3.
//
//	upstream -file STATE
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	file := flag.String("file", "", "state file: one line per inserted name")
	flag.Parse()
	srv := sdk.NewServer(&sdk.Implementation{Name: "lines", Version: "1.0"}, nil)
	schema := json.RawMessage(`{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]}`)
	name := func(req *sdk.CallToolRequest) string {
		var a struct{ Name string }
		_ = json.Unmarshal(req.Params.Arguments, &a)
		return a.Name
	}
	srv.AddTool(&sdk.Tool{Name: "insert", Description: "Append a name.", InputSchema: schema},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			f, err := os.OpenFile(*file, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
			if err == nil {
				_, err = fmt.Fprintln(f, name(req))
				f.Close()
			}
			if err != nil {
				return nil, err
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "inserted " + name(req)}}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "count", Description: "Count a name's lines.", InputSchema: schema, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			data, _ := os.ReadFile(*file)
			n := 0
			for _, l := range strings.Split(string(data), "\n") {
				if l == name(req) {
					n++
				}
			}
			b, _ := json.Marshal(map[string]int{"n": n})
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "echo", Description: "Answer the name (the overhead benchmark's call).", InputSchema: schema, Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: name(req)}}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "crash", Description: "Exit at once.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "upstream:", err)
		os.Exit(1)
	}
}
