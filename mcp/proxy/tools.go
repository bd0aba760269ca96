package proxy

import (
	"context"
	"encoding/json"
	"maps"
	"slices"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/finish"
)

// toolState is what the proxy knows of the upstream's tools at one time:
// the list, the contract resolved against it, the grading rules, the
// tools the keys guard gives its key argument, those the fast path
// answers, and the guard's effects. A call reads the state it started
// with; a change of the upstream's list (notifications/tools/list_changed)
// replaces the state whole.
type toolState struct {
	tools    []*sdk.Tool
	contract *Contract
	rules    *ledger.Rules
	keyAdded map[string]bool         // tools the keys guard added KeyArg to
	fast     map[string]bool         // the upstream's tools, to whether they declare no output schema
	effects  map[string]guard.Effect // the guarded tools' effects (with a guard)
}

// newToolState is the state of a list of tools under its resolved
// contract. Rules of tools that prev had and the list lacks are kept, so
// that an episode's calls of a tool since removed still grade.
func (p *Proxy) newToolState(tools []*sdk.Tool, c *Contract, prev *toolState) *toolState {
	st := &toolState{tools: tools, contract: c, keyAdded: map[string]bool{}, fast: map[string]bool{}}
	keys := p.opts.Guard != nil && p.opts.Guard.Config.Policy == guard.Keys
	for name, t := range c.Tools {
		if _, added := keyArgOf(t); keys && guarded(t) && added {
			st.keyAdded[name] = true
		}
	}
	r := c.Rules()
	for name := range st.keyAdded {
		// The key the guard adds is its rule's key, which the upstream
		// does not honour (the guard absorbs repeats; its replays are
		// recorded as absorbed effects).
		t := r.Tools[name]
		t.Key, t.KeyHonoured = KeyArg, false
		r.Tools[name] = t
	}
	if prev != nil {
		for name, rule := range prev.rules.Tools {
			if _, ok := r.Tools[name]; !ok {
				r.Tools[name] = rule
			}
		}
	}
	st.rules = r
	for _, t := range tools {
		if p.opts.Finish && t.Name == finish.Name {
			continue // the proxy's own finish
		}
		st.fast[t.Name] = t.OutputSchema == nil
	}
	if p.opts.Guard != nil {
		st.effects = map[string]guard.Effect{}
		for name, t := range c.Tools {
			if !guarded(t) {
				continue
			}
			arg, _ := keyArgOf(t)
			if e, err := guard.NewEffect(t.Effect, arg); err == nil {
				st.effects[name] = e
			}
		}
	}
	return st
}

// tools is the current state.
func (p *Proxy) tools() *toolState { return p.state.Load() }

// contract is the current contract.
func (p *Proxy) contract() *Contract { return p.tools().contract }

// rules are the contract as grading rules (the identities of effects).
func (p *Proxy) rules() *ledger.Rules { return p.tools().rules }

// fastTool reports whether the fast path answers calls of the tool, and
// whether it declares no output schema.
func (p *Proxy) fastTool(name string) (structured, ok bool) {
	structured, ok = p.tools().fast[name]
	return structured, ok
}

// addTool serves one of the upstream's tools, as listed (with the keys
// guard's argument where the guard adds it), forwarded.
func (p *Proxy) addTool(t *sdk.Tool, st *toolState) {
	tool := *t
	if tool.InputSchema == nil {
		tool.InputSchema = map[string]any{"type": "object"}
	}
	if st.keyAdded[t.Name] {
		tool = *withKeyArg(&tool)
	}
	structured := tool.OutputSchema == nil
	name := t.Name
	p.srv.AddTool(&tool, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		s := p.sessionOf(req.Session)
		if s == nil {
			return textResult("the session has no episode (it ended)", true), nil
		}
		return s.call(ctx, name, req.Params.Arguments, structured, origin{header: headerOf(req), ss: req.Session, progress: req.Params.GetProgressToken()})
	})
}

// refit is the contract for a new list of the upstream's tools: the
// file's entries of the tools still listed, and the annotations for the
// rest, resolved again.
func (c *Contract) refit(tools []*sdk.Tool) (*Contract, error) {
	nc := &Contract{File: c.File, Tools: map[string]*ToolSpec{}}
	listed := map[string]bool{}
	for _, t := range tools {
		listed[t.Name] = true
	}
	for name, t := range c.Tools {
		if t.auto || !listed[name] {
			continue
		}
		cp := *t
		nc.Tools[name] = &cp
	}
	return nc, nc.Resolve(tools)
}

// refreshTools follows a change of the upstream's tools: it lists them
// again, fits the contract to them, and serves the new list (the SDK
// tells the agents: notifications/tools/list_changed). A list that does
// not fit the contract (a pointer that names no argument any more) is
// refused with a notice, and the proxy keeps the tools it had.
func (p *Proxy) refreshTools(ctx context.Context) {
	tools, err := p.up.listTools(ctx)
	if err != nil {
		p.logf("the upstream's tools changed, but listing them failed (%v): the proxy keeps the tools it had", err)
		return
	}
	old := p.tools()
	c, err := old.contract.refit(tools)
	if err != nil {
		p.logf("the upstream's tools changed and no longer fit the contract (%v): the proxy keeps the tools it had", err)
		return
	}
	st := p.newToolState(tools, c, old)
	p.state.Store(st)
	before := map[string]*sdk.Tool{}
	for _, t := range old.tools {
		before[t.Name] = t
	}
	var gone []string
	for _, t := range tools {
		if p.opts.Finish && t.Name == finish.Name {
			p.logf("the upstream now has a tool named finish: the proxy's own stays")
			continue
		}
		if b, ok := before[t.Name]; !ok || !sameJSON(b, t) || old.keyAdded[t.Name] != st.keyAdded[t.Name] {
			p.addTool(t, st)
		}
		delete(before, t.Name)
	}
	for name := range before {
		if !(p.opts.Finish && name == finish.Name) {
			gone = append(gone, name)
		}
	}
	if len(gone) > 0 {
		slices.Sort(gone)
		p.srv.RemoveTools(gone...)
	}
}

// refreshPrompts follows a change of the upstream's prompts. (The
// refreshes run one at a time: listChanged.)
func (p *Proxy) refreshPrompts(ctx context.Context) {
	prompts, err := p.up.listPrompts(ctx)
	if err != nil {
		p.logf("the upstream's prompts changed, but listing them failed (%v)", err)
		return
	}
	relist(p.prompts, prompts, func(pr *sdk.Prompt) string { return pr.Name }, p.addPrompt, p.srv.RemovePrompts)
	p.prompts = prompts
}

// relist serves a list that changed from was to now: each item new or
// changed is added again (add), and the names of those gone are removed
// at once, sorted (remove).
func relist[T any](was, now []T, name func(T) string, add func(T), remove func(...string)) {
	before := map[string]T{}
	for _, x := range was {
		before[name(x)] = x
	}
	for _, x := range now {
		if b, ok := before[name(x)]; !ok || !sameJSON(b, x) {
			add(x)
		}
		delete(before, name(x))
	}
	if len(before) > 0 {
		remove(slices.Sorted(maps.Keys(before))...)
	}
}

// refreshResources follows a change of the upstream's resources and
// resource templates.
func (p *Proxy) refreshResources(ctx context.Context) {
	resources, templates, err := p.up.listResources(ctx)
	if err != nil {
		p.logf("the upstream's resources changed, but listing them failed (%v)", err)
		return
	}
	relist(p.resources, resources, func(r *sdk.Resource) string { return r.URI },
		func(r *sdk.Resource) { p.srv.AddResource(r, p.readResource) }, p.srv.RemoveResources)
	relist(p.templates, templates, func(t *sdk.ResourceTemplate) string { return t.URITemplate },
		func(t *sdk.ResourceTemplate) { p.srv.AddResourceTemplate(t, p.readResource) }, p.srv.RemoveResourceTemplates)
	p.resources, p.templates = resources, templates
}

func (p *Proxy) addPrompt(pr *sdk.Prompt) {
	p.srv.AddPrompt(pr, func(ctx context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
		return p.up.GetPrompt(ctx, req.Params)
	})
}

func (p *Proxy) readResource(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
	return p.up.ReadResource(ctx, req.Params)
}

// sameJSON reports whether two listings encode alike.
func sameJSON(a, b any) bool {
	ab, err1 := json.Marshal(a)
	bb, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(ab) == string(bb)
}
