package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/ledger"
)

// GuardOptions deploy a guard (package guard) in the proxy: between the
// agent and the commit boundary, on every non-idempotent write of the
// contract (docs/proxy.md, The guard).
type GuardOptions struct {
	// Config is the guard's policy and options (guard.Keys or
	// guard.Derived here).
	Config guard.Config
	// Store keeps the keys: a sqlitestore for a deployed proxy, whose
	// transitions are durable before the agent is answered.
	Store guard.Store
}

// KeyArg is the argument the keys guard adds to each non-idempotent write
// that has no key of its own: the agent's idempotency key.
const KeyArg = "idempotency_key"

// keyDescription is what the keys guard adds to such a tool's description.
const keyDescription = "\n\nidempotency_key (optional): a key of your choosing for this call. Send the same key when you retry the call with the same arguments: a repeat under a key already used is answered with the first result instead of acting again."

// guarded reports whether the guard stands in front of a tool: a
// non-idempotent write (an idempotent one needs none).
func guarded(t *ToolSpec) bool {
	return t != nil && t.Kind == ledger.KindWrite && !t.Idempotent
}

// keyArgOf is the argument that carries the agent's key for a guarded
// tool under the keys guard: the upstream's own key argument when the
// contract names one (passed on), else the one the guard adds (KeyArg,
// taken off before forwarding).
func keyArgOf(t *ToolSpec) (arg string, added bool) {
	if t.Key != "" {
		return t.Key, false
	}
	return KeyArg, true
}

// withKeyArg is the tool as the keys guard lists it: its input schema with
// the optional key argument and its description saying what the key does.
func withKeyArg(t *sdk.Tool) *sdk.Tool {
	cp := *t
	schema := maps.Clone(schemaMap(t.InputSchema))
	if schema == nil {
		schema = map[string]any{"type": "object"}
	}
	props := maps.Clone(mapOf(schema["properties"]))
	if props == nil {
		props = map[string]any{}
	}
	props[KeyArg] = map[string]any{"type": "string", "maxLength": 255, "description": "Idempotency key: send the same key when you retry this call."}
	schema["properties"] = props
	cp.InputSchema = schema
	cp.Description = t.Description + keyDescription
	return &cp
}

func mapOf(v any) map[string]any {
	m, _ := v.(map[string]any)
	return m
}

// upstreamKeyScope is the namespace of the keys of tools whose upstream
// honours the key itself (the contract's key): their guard reforwards an
// unknown outcome (Proposition 2), and shares the store with the other.
const upstreamKeyScope = "upstream-key"

// guardMiddleware is the guard on the call path: it decides each guarded
// call from its key's stored state (forward, wait, replay, refuse) and
// records how a forwarded one ended, durably, before the agent is
// answered. Under keys, a tool whose upstream honours the key (the
// contract's key) is sent again when its outcome is unknown: the upstream
// absorbs the copy (Proposition 2, guard.Config.ReforwardUnknown).
func (p *Proxy) guardMiddleware(o *GuardOptions) (Middleware, error) {
	g, err := guard.New(o.Config, o.Store)
	if err != nil {
		return nil, err
	}
	reforward := g
	if o.Config.Policy == guard.Keys && !o.Config.ReforwardUnknown {
		cfg := o.Config
		cfg.ReforwardUnknown = true
		if reforward, err = guard.New(cfg, o.Store); err != nil {
			return nil, err
		}
	}
	policy := g.Config().Policy
	return func(next Handler) Handler {
		return func(ctx context.Context, c *Call) Answer {
			st := p.tools()
			t := st.contract.Tools[c.Tool]
			effect, ok := st.effects[c.Tool]
			if !guarded(t) || !ok {
				return next(ctx, c)
			}
			fp, err := effect.FingerprintJSON(c.Tool, c.Args)
			if err != nil {
				return Answer{Err: &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}, Outcome: ledger.OutcomeHTTP400}
			}
			call := guard.Call{Tool: c.Tool, Fingerprint: fp}
			gd := g
			if policy == guard.Keys {
				call.Key = c.Key
				if t.Key != "" {
					gd, call.Scope = reforward, upstreamKeyScope
				}
			}
			return p.guardCall(ctx, gd, call, c, next)
		}
	}, nil
}

// guardCall carries one guarded call through the guard's decisions.
func (p *Proxy) guardCall(ctx context.Context, g *guard.Guard, call guard.Call, c *Call, next Handler) Answer {
	for range 8 { // a waiter asks again after an original that did not succeed
		d, err := g.Begin(ctx, call, time.Now())
		if err != nil {
			// Nothing was decided: the call must not go on.
			return p.guardError(ledger.OutcomeHTTP500, "the guard's store failed: "+err.Error())
		}
		if d.Outcome == guard.UnknownOutcome {
			if d, err = p.settle(ctx, g, call, c, d); err != nil {
				return p.guardError(ledger.OutcomeHTTP409, err.Error())
			}
		}
		switch d.Outcome {
		case guard.Forward:
			a := next(ctx, c)
			end, result := guardEnd(a)
			if err := g.Finish(ctx, d.Ticket, end, result, time.Now()); err != nil {
				// The key's state is not on disk: the agent is not told
				// the call succeeded.
				return p.guardError(ledger.OutcomeHTTP500, "the guard could not record the call: "+err.Error())
			}
			return a
		case guard.Wait:
			end, result, err := g.Await(ctx, call)
			if err != nil {
				return p.guardError(ledger.OutcomeTimeout, "the original call with this key did not finish: "+err.Error())
			}
			if end == guard.Succeeded {
				return replayed(result, false)
			}
			continue
		case guard.Replay:
			return replayed(d.Result, false)
		case guard.ReplayError:
			return replayed(d.Result, true)
		case guard.RefuseInFlight:
			return p.guardError(ledger.OutcomeHTTP409, "conflict: a request with this idempotency key is still being processed; retry later")
		case guard.Conflict:
			return p.guardError(ledger.OutcomeHTTP400, "idempotency key reused with different arguments")
		case guard.UnknownOutcome:
			return p.guardError(ledger.OutcomeHTTP409, "the outcome of an earlier call with this key is unknown")
		case guard.AtCapacity:
			return p.guardError(ledger.OutcomeHTTP429, "the guard holds its maximum number of keys; retry later")
		default:
			return p.guardError(ledger.OutcomeHTTP400, "refused by the guard ("+d.Outcome.String()+")")
		}
	}
	return p.guardError(ledger.OutcomeHTTP409, "the original call with this key keeps failing; retry later")
}

// settle verifies an earlier attempt whose outcome is unknown by the
// contract's read-back (verify) and records what it found (Resolve): found,
// the call is replayed; not found, forwarded, once the in-flight bound
// (VerifyAfter) has passed since the attempt was sent. Without a
// read-back, or before the bound, or when a batch is found in part, the
// outcome stays unknown and the call is refused, retryably: it may have
// taken effect, so it is never answered as a success, nor sent again
// blind.
func (p *Proxy) settle(ctx context.Context, g *guard.Guard, call guard.Call, c *Call, d guard.Decision) (guard.Decision, error) {
	unknown := fmt.Errorf("the outcome of an earlier call with this key (sent %s) is unknown: it may have taken effect; check before sending it again", d.Since.UTC().Format(time.RFC3339))
	vs := p.readBacks(c.Tool, c.Seq, c.Args)
	if len(vs) == 0 {
		return d, unknown
	}
	found := 0
	for _, v := range vs {
		if v.Count == nil {
			return d, unknown
		}
		if *v.Count > 0 {
			found++
		}
	}
	if found != 0 && found != len(vs) {
		return d, unknown // a batch in part: neither replay nor resend is right
	}
	executed := found > 0
	var result []byte
	if executed {
		result, _ = json.Marshal(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "done: an earlier call with this key took effect (the proxy read it back); it was not repeated"}}})
	}
	nd, err := g.Resolve(ctx, call, executed, result, time.Now())
	if errors.Is(err, guard.ErrTooEarly) {
		return d, fmt.Errorf("%w (a read-back found nothing, but a request may stay in flight until %s)", unknown, d.VerifyAt.UTC().Format(time.RFC3339))
	}
	if err != nil {
		return d, fmt.Errorf("%w (%v)", unknown, err)
	}
	return nd, nil
}

// guardEnd is how a forwarded call ended, as far as the proxy learned, and
// the answer to store: a success is stored and replayed; an error the
// upstream answered is definite (nothing was done: the key is released);
// a fault's timeout or 500 is lost (the outcome is unknown, never replayed
// as a success).
func guardEnd(a Answer) (guard.End, []byte) {
	switch {
	case a.Outcome == ledger.OutcomeOK && a.hasResult() && !a.isError():
		b, err := a.resultJSON()
		if err != nil {
			return guard.Lost, nil
		}
		return guard.Succeeded, b
	case a.Outcome == ledger.OutcomeHTTP400:
		return guard.Failed, nil
	}
	return guard.Lost, nil
}

// replayed is a stored answer given again without forwarding.
func replayed(result []byte, isErr bool) Answer {
	a := Answer{Replayed: !isErr}
	if t := bytes.TrimSpace(result); len(t) > 0 && t[0] == '{' && json.Valid(t) {
		a.raw, a.rawErr = t, resultIsError(t)
	} else {
		a.Result = textResult("already done: the first call with this key succeeded", false)
	}
	a.Outcome = ledger.OutcomeOK
	if isErr || a.isError() {
		a.Outcome = ledger.OutcomeHTTP400
	}
	return a
}

// guardError is a refusal of the guard, in the form of serve's errors.
func (p *Proxy) guardError(outcome, msg string) Answer {
	return Answer{Result: faultResult(outcome, msg, 0, true), Outcome: outcome}
}
