// Package scripted plays fixed recovery policies against a LIMBO episode,
// either in process on a sandbox world or as an MCP client, so tests can
// check that serving the sandbox over MCP changes nothing.
package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// Door is how a policy reaches the world.
type Door interface {
	Call(tool string, args map[string]any) (sandbox.Observation, error)
	Finish(rep ledger.FinalReport) error
}

// Policy names.
const (
	BlindRetry  = "blind-retry"  // re-issue a failed write as is
	VerifyRetry = "verify-retry" // read back first; re-issue only if absent
	KeyReuse    = "key-reuse"    // attach a key where the tool takes one; retry with the same key
)

// Policies lists the policies in a fixed order.
var Policies = []string{BlindRetry, VerifyRetry, KeyReuse}

// maxAttempts bounds the attempts per write (a bounded loop whatever the
// world answers).
const maxAttempts = 3

// Play runs the policy over the task's writes in order and ends the
// episode with a report. contract decides which tools take a key.
func Play(d Door, task *sandbox.Task, contract, policy string) error {
	done, unsure := 0, []string{}
	for _, st := range task.Steps {
		ok, doubt, err := playStep(d, task, contract, policy, st)
		if err != nil {
			return err
		}
		if ok {
			done++
		}
		if doubt != "" {
			unsure = append(unsure, doubt)
		}
	}
	status := ledger.StatusCompleted
	switch {
	case done == 0:
		status = ledger.StatusFailed
	case done < len(task.Steps):
		status = ledger.StatusPartial
	}
	return d.Finish(ledger.FinalReport{Status: status, Uncertainties: unsure})
}

func playStep(d Door, task *sandbox.Task, contract, policy string, st sandbox.Step) (bool, string, error) {
	args := maps.Clone(st.Args)
	if policy == KeyReuse {
		if spec, ok := sandbox.Lookup(contract, st.Tool); ok && hasParam(spec, "idempotency_key") {
			args["idempotency_key"] = task.ID + "-" + strconv.Itoa(st.Index)
		}
	}
	label := fmt.Sprintf("%s step %d", st.Tool, st.Index)
	for attempt := 0; attempt < maxAttempts; attempt++ {
		if attempt > 0 && policy == VerifyRetry {
			if rt, ra, ok := sandbox.ReadArgsFor(st.Tool, args); ok {
				obs, err := d.Call(rt, ra)
				if err != nil {
					return false, "", err
				}
				if obs.Outcome == ledger.OutcomeOK && sandbox.Present(st.Tool, args, obs.Result) {
					return true, "", nil
				}
			}
		}
		obs, err := d.Call(st.Tool, args)
		if err != nil {
			return false, "", err
		}
		switch obs.Outcome {
		case ledger.OutcomeOK:
			return true, "", nil
		case ledger.OutcomeHTTP409, ledger.OutcomeHTTP412, ledger.OutcomeHTTP404:
			// Already applied (refund, status change, delete).
			return true, "", nil
		case ledger.OutcomeHTTP400:
			return false, "", nil
		case ledger.OutcomeHTTP429:
			if obs.RetryAfterS > 0 {
				if _, err := d.Call("wait", map[string]any{"seconds": obs.RetryAfterS}); err != nil {
					return false, "", err
				}
			}
		}
	}
	return false, label + " may or may not have taken effect", nil
}

func hasParam(spec sandbox.ToolSpec, name string) bool {
	for _, p := range spec.Params {
		if p.Name == name {
			return true
		}
	}
	return false
}

// RoundTrip gives args the form they have after JSON transport (numbers
// as float64), as a server decodes them.
func RoundTrip(args map[string]any) (map[string]any, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, err
	}
	if out == nil {
		out = map[string]any{}
	}
	return out, nil
}

// Caller is the in-process door to a world (agent.Caller).
type Caller interface {
	Call(tool string, args map[string]any) sandbox.Observation
	Now() float64
	Advance(dt float64)
}

// Local is a Door on an in-process world (or middleware in front of it):
// the reference an MCP server must reproduce. Before each call the clock
// moves by ThinkS, as the server does.
type Local struct {
	W      Caller
	ThinkS float64
	Report *ledger.FinalReport
}

// Call implements Door.
func (l *Local) Call(tool string, args map[string]any) (sandbox.Observation, error) {
	a, err := RoundTrip(args)
	if err != nil {
		return sandbox.Observation{}, err
	}
	if l.ThinkS > 0 {
		l.W.Advance(l.ThinkS)
	}
	return l.W.Call(tool, a), nil
}

// Finish implements Door.
func (l *Local) Finish(rep ledger.FinalReport) error {
	if rep.Uncertainties == nil {
		rep.Uncertainties = []string{}
	}
	l.Report = &rep
	return nil
}

// Client is a Door over an MCP client session.
type Client struct {
	Ctx     context.Context
	Session *sdk.ClientSession
}

// Call implements Door: the tool's text content is the server's JSON
// response (outcome, result or error, retry_after_s, clock_s).
func (c *Client) Call(tool string, args map[string]any) (sandbox.Observation, error) {
	res, err := c.Session.CallTool(c.Ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		return sandbox.Observation{}, fmt.Errorf("%s: %w", tool, err)
	}
	var resp struct {
		Outcome     string         `json:"outcome"`
		Result      map[string]any `json:"result"`
		Error       string         `json:"error"`
		RetryAfterS float64        `json:"retry_after_s"`
	}
	text := contentText(res)
	if err := json.Unmarshal([]byte(text), &resp); err != nil || resp.Outcome == "" {
		return sandbox.Observation{}, fmt.Errorf("%s: unexpected tool result %q", tool, text)
	}
	return sandbox.Observation{Outcome: resp.Outcome, Result: resp.Result, Error: resp.Error, RetryAfterS: resp.RetryAfterS}, nil
}

// Finish implements Door.
func (c *Client) Finish(rep ledger.FinalReport) error {
	if rep.Uncertainties == nil {
		rep.Uncertainties = []string{}
	}
	res, err := c.Session.CallTool(c.Ctx, &sdk.CallToolParams{Name: "finish", Arguments: rep})
	if err != nil {
		return err
	}
	if res.IsError {
		return errors.New("finish refused: " + contentText(res))
	}
	return nil
}

func contentText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// InitTask rebuilds the task the server named in its initialize result's
// _meta ("limbo/task"), which saves the resource round trip of
// SessionTask.
func InitTask(cs *sdk.ClientSession) (*sandbox.Task, error) {
	ir := cs.InitializeResult()
	if ir == nil {
		return nil, errors.New("session is not initialized")
	}
	id, _ := ir.Meta["limbo/task"].(string)
	return taskByID(id, "initialize result _meta limbo/task")
}

// SessionTask reads the task the server offers (resource limbo://task,
// whose _meta names the task as "T01#0") and rebuilds it.
func SessionTask(ctx context.Context, cs *sdk.ClientSession) (*sandbox.Task, error) {
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "limbo://task"})
	if err != nil {
		return nil, err
	}
	if len(res.Contents) == 0 {
		return nil, errors.New("task resource is empty")
	}
	id, _ := res.Contents[0].Meta["limbo/task"].(string)
	return taskByID(id, "task resource _meta limbo/task")
}

// taskByID rebuilds a task from its id ("T01#0"); where says where the
// id came from.
func taskByID(id, where string) (*sandbox.Task, error) {
	tmpl, inst, ok := strings.Cut(id, "#")
	if !ok {
		return nil, fmt.Errorf("no task named (%s = %q)", where, id)
	}
	n, err := strconv.Atoi(inst)
	if err != nil {
		return nil, fmt.Errorf("task %q: %v", id, err)
	}
	return sandbox.NewTask(tmpl, n)
}
