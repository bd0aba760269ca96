package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// TestReceiptEnforcedOverMCP plays a gated deploy pipeline (T11 instance 1)
// through the server with the real client: the stage after build lists a
// receipt argument, a call that omits it or quotes a forged one is a tool
// error saying what is missing and which earlier write carries it, and
// neither commits anything, so the recorded episode counts the stage as not
// done. Quoting build's receipt then works, and the same tool in instance 0
// (no hand-off) lists no receipt argument.
func TestReceiptEnforcedOverMCP(t *testing.T) {
	task, err := sandbox.NewTask("T11", 1)
	if err != nil {
		t.Fatal(err)
	}
	// Staging (step 2) is the focal write, so the episode counts its commits.
	plan := onePlan(t, Episode{Template: "T11", Instance: 1, FocalIndex: 1, FaultMode: ledger.FaultNone, Seed: 5})
	srv, url, path := httpServer(t, plan, Options{})
	ctx := testContext(t)
	cs := connectHTTP(t, ctx, url)
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if tl.Name != "deploy_trigger" {
			continue
		}
		b, _ := json.Marshal(tl.InputSchema)
		if !strings.Contains(string(b), `"receipt"`) {
			t.Errorf("T11#1 deploy_trigger schema lacks the receipt argument: %s", b)
		}
	}
	call := func(step int, receipt string) *sdk.CallToolResult {
		t.Helper()
		args := map[string]any{}
		for k, v := range task.Steps[step].Args {
			args[k] = v
		}
		if receipt != "" {
			args["receipt"] = receipt
		}
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "deploy_trigger", Arguments: args})
		if err != nil {
			t.Fatalf("step %d: %v", step+1, err)
		}
		return r
	}
	text := func(r *sdk.CallToolResult) string {
		var b strings.Builder
		for _, c := range r.Content {
			if tc, ok := c.(*sdk.TextContent); ok {
				b.WriteString(tc.Text)
			}
		}
		return b.String()
	}
	build := call(0, "")
	var out struct {
		Result map[string]any `json:"result"`
	}
	if err := json.Unmarshal([]byte(text(build)), &out); err != nil || build.IsError {
		t.Fatalf("build: %v %s", err, text(build))
	}
	receipt, _ := out.Result["receipt"].(string)
	if receipt == "" {
		t.Fatalf("build's response carries no receipt: %s", text(build))
	}
	for _, c := range []struct {
		name, receipt string
		want          []string
	}{
		{"omitted", "", []string{`missing argument \"receipt\"`, "deploy_trigger of step 1", `env \"build\"`}},
		{"forged", "rcpt_forged", []string{`receipt \"rcpt_forged\" was not returned`, "deploy_trigger of step 1"}},
	} {
		r := call(1, c.receipt)
		if !r.IsError {
			t.Errorf("staging, receipt %s: not a tool error: %s", c.name, text(r))
		}
		for _, s := range c.want {
			if !strings.Contains(text(r), s) {
				t.Errorf("staging, receipt %s: %s lacks %s", c.name, text(r), s)
			}
		}
	}
	fin, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "finish", Arguments: map[string]any{"status": "failed", "uncertainties": []string{}}})
	if err != nil || fin.IsError {
		t.Fatalf("finish: %v %+v", err, fin)
	}
	cs.Close()
	<-srv.Done()
	eps := readLedger(t, path)
	if len(eps) != 1 {
		t.Fatalf("%d episodes recorded, want 1", len(eps))
	}
	if e := eps[0]; e.TaskSuccess || e.FocalCommits != 0 || e.ToolCalls != 3 {
		t.Errorf("recorded episode: task success %v, staging committed %d times, %d calls; want staging not done after 3 calls", e.TaskSuccess, e.FocalCommits, e.ToolCalls)
	}

	// Quoting build's receipt is accepted (a fresh episode: the first one
	// is recorded).
	plan = onePlan(t, Episode{Template: "T11", Instance: 1, FaultMode: ledger.FaultNone, Seed: 5})
	srv, url, _ = httpServer(t, plan, Options{})
	cs = connectHTTP(t, ctx, url)
	build = call(0, "")
	json.Unmarshal([]byte(text(build)), &out)
	receipt, _ = out.Result["receipt"].(string)
	if r := call(1, receipt); r.IsError {
		t.Errorf("staging quoting build's receipt: %s", text(r))
	}
	cs.Close()
	<-srv.Done()

	// Instance 0 has no hand-off: no receipt argument in the schema.
	plan = onePlan(t, Episode{Template: "T11", Instance: 0, FaultMode: ledger.FaultNone, Seed: 5})
	_, url, _ = httpServer(t, plan, Options{})
	cs = connectHTTP(t, ctx, url)
	defer cs.Close()
	res, err = cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range res.Tools {
		if b, _ := json.Marshal(tl.InputSchema); tl.Name == "deploy_trigger" && strings.Contains(string(b), `"receipt"`) {
			t.Errorf("T11#0 deploy_trigger schema lists a receipt: %s", b)
		}
	}
}
