package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/internal/jsonptr"
	"github.com/limbo-toolkit/limbo/ledger"
)

// noFocal is the focal_write of a no-fault episode without a tool in
// which the agent made no write.
const noFocal = "-"

// record makes the verify read-backs, grades the episode by its rules and
// appends its raw line to the ledger (synced before it returns).
func (s *session) record(reason string, rep *ledger.FinalReport) error {
	s.mu.Lock()
	calls := slices.Clone(s.calls)
	execs := slices.Clone(s.effects)
	focalTool, focalSeq, fired := s.focalTool, s.focalSeq, s.fired
	s.mu.Unlock()
	effects := s.p.effectsOf(execs)
	if rep == nil {
		// No report: the agent reported no success.
		rep = &ledger.FinalReport{Status: ledger.StatusFailed, Uncertainties: []string{}}
	}
	rules := &ledger.Rules{Tools: maps.Clone(s.p.rules().Tools)}
	if focalSeq > 0 {
		rules.Verify = s.verify(focalTool, calls[focalSeq-1])
	}
	raw := &ledger.RawEpisode{Episode: s.design(focalTool, fired), Calls: calls, Effects: effects, FinalReport: rep, Rules: rules}
	if raw.Calls == nil {
		raw.Calls = []ledger.Call{}
	}
	if raw.Effects == nil {
		raw.Effects = []ledger.Effect{}
	}
	if info := s.p.up.Info(); info != nil && info.ServerInfo != nil {
		raw.Extra = map[string]string{"upstream": strings.TrimSpace(info.ServerInfo.Name + " " + info.ServerInfo.Version)}
	}
	g, err := ledger.GradeRules(raw)
	if err != nil {
		return fmt.Errorf("grading: %w", err)
	}
	line, err := encodeLine(raw, g)
	if err != nil {
		return err
	}
	if l := s.p.opts.Ledger; l != nil {
		if err := l.AppendLine(g.EpisodeID, line); err != nil {
			return err
		}
	}
	verdict := ""
	if v := g.Extra["verify"]; v != "" {
		verdict = ", verify " + v
	}
	s.p.logf("episode %s ended (%s): %d calls, %s fired=%t, duplicated=%t task_success=%t%s",
		g.EpisodeID, reason, g.ToolCalls, g.FaultMode, g.FaultFired, g.Duplicated, g.TaskSuccess, verdict)
	if s.p.opts.OnEpisode != nil {
		s.p.opts.OnEpisode(raw, g)
	}
	return nil
}

// design is the episode's design fields.
func (s *session) design(focalTool string, fired bool) ledger.Episode {
	e := &s.ep
	if focalTool == "" {
		focalTool = noFocal
	}
	class, readPath := s.p.classOf(focalTool)
	delay := 0.0
	if slices.Contains(ledger.LateModes, e.FaultMode) {
		delay = s.delay.Seconds()
	}
	return ledger.Episode{
		EpisodeID: e.EpisodeID, Experiment: e.Experiment, Model: e.Model, Harness: e.Harness,
		Contract: s.p.opts.ContractLabel, Condition: e.Condition, Cue: ledger.CueDefault, Service: s.p.opts.Service,
		Template: e.Task, Instance: int64(e.Rep), Task: e.Task + "#" + strconv.Itoa(e.Rep),
		FocalWrite: focalTool, FocalIndex: int64(e.Occurrence - 1), PairKey: e.PairKey(),
		WriteClass: class, ReadPath: readPath, FaultMode: e.FaultMode, FaultFired: fired, DelayS: delay,
		Weight: e.Weight, Seed: int64(s.p.opts.Seed), AgentTimeS: s.since(),
	}
}

// classOf is the write class and read path of the focal tool under the
// contract (docs/proxy.md, The ledger): keyed (a key the upstream or the
// guard honours), batch, idempotent, else strong when the upstream has a
// read tool (assumed to read its own writes) and missing when it has none.
func (p *Proxy) classOf(tool string) (class, readPath string) {
	readPath = ledger.ReadNone
	for _, t := range p.contract().Tools {
		if t.Kind == ledger.KindRead {
			readPath = ledger.ReadStrong
			break
		}
	}
	t := p.contract().Tools[tool]
	switch {
	case t == nil || t.Kind != ledger.KindWrite:
		return ledger.ClassMissing, readPath
	case t.Key != "" || p.opts.ContractLabel == ledger.ContractKeysEverywhere:
		return ledger.ClassKeyed, readPath
	case t.Batch != "":
		return ledger.ClassBatch, readPath
	case t.Idempotent:
		return ledger.ClassIdempotent, readPath
	case readPath == ledger.ReadStrong:
		return ledger.ClassStrong, readPath
	}
	return ledger.ClassMissing, readPath
}

// verify makes the focal write's read-backs (its contract's verify), one
// per batch item, after the session: the count each found, or why not.
func (s *session) verify(tool string, c ledger.Call) []ledger.Verify {
	return s.p.readBacks(tool, c.Seq, json.RawMessage(c.Args))
}

// readBacks makes a write's read-backs (its contract's verify), one per
// batch item: the count each found, or why not; nil without a verify.
func (p *Proxy) readBacks(tool string, seq int64, rawArgs json.RawMessage) []ledger.Verify {
	spec := p.contract().Tools[tool]
	if spec == nil || spec.Verify == nil {
		return nil
	}
	args, err := decodeObject(rawArgs)
	if err != nil {
		return nil
	}
	docs := []any{args}
	resources := []string{""}
	if spec.Batch != "" {
		ptr, _ := jsonptr.Parse(spec.Batch)
		if v, ok := ptr.Get(args); ok {
			if items, isArr := v.([]any); isArr {
				docs, resources = docs[:0], resources[:0]
				for i, it := range items {
					d, _ := ptr.With(args, it)
					docs = append(docs, d)
					resources = append(resources, strconv.Itoa(i))
				}
			}
		}
	}
	out := make([]ledger.Verify, 0, len(docs))
	for i, d := range docs {
		v := ledger.Verify{Seq: seq, ResourceID: resources[i], Tool: spec.Verify.Tool}
		vargs := substitute(spec.Verify.Args, d)
		b, _ := json.Marshal(vargs)
		v.Args = string(b)
		n, err := p.readBack(spec.Verify, b)
		if err != nil {
			v.Error = err.Error()
		} else {
			v.Count = &n
		}
		out = append(out, v)
	}
	return out
}

// readBack calls the verify tool and reads the count.
func (p *Proxy) readBack(vs *VerifySpec, args json.RawMessage) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), p.opts.CallTimeout)
	defer cancel()
	res, err := p.up.CallTool(ctx, vs.Tool, args)
	if err != nil {
		return 0, fmt.Errorf("%s: %s", vs.Tool, oneLine(err))
	}
	if res.IsError {
		return 0, fmt.Errorf("%s answered an error: %s", vs.Tool, truncate(resultText(res), 200))
	}
	doc, err := resultJSON(res)
	if err != nil {
		return 0, fmt.Errorf("%s: %v", vs.Tool, err)
	}
	ptr, _ := jsonptr.Parse(vs.Count)
	v, ok := ptr.Get(doc)
	if !ok {
		return 0, fmt.Errorf("%s: the result has nothing at %s", vs.Tool, vs.Count)
	}
	switch x := v.(type) {
	case []any:
		return int64(len(x)), nil
	case float64:
		if x >= 0 && x == math.Trunc(x) && x < 1<<53 {
			return int64(x), nil
		}
	}
	return 0, fmt.Errorf("%s: %s is not a count (a whole number or an array)", vs.Tool, vs.Count)
}

// resultJSON is a tool result as JSON: its structured content, or its
// text parsed as JSON.
func resultJSON(res *sdk.CallToolResult) (any, error) {
	var v any
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err == nil && json.Unmarshal(b, &v) == nil {
			return v, nil
		}
	}
	text := resultText(res)
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, errors.New("the result is not JSON: " + truncate(text, 80))
	}
	return v, nil
}

func resultText(res *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// substitute fills a verify's arguments from the write's: a string that
// is one "{REF}" becomes the value at REF (null when absent); a "{REF}"
// inside a longer string, that value's text.
func substitute(v any, doc any) any {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "{") && strings.HasSuffix(x, "}") && strings.Count(x, "{") == 1 {
			val, _ := lookup(x[1:len(x)-1], doc)
			return val
		}
		var b strings.Builder
		rest := x
		for {
			i := strings.IndexByte(rest, '{')
			j := -1
			if i >= 0 {
				j = strings.IndexByte(rest[i:], '}')
			}
			if i < 0 || j < 0 {
				b.WriteString(rest)
				return b.String()
			}
			b.WriteString(rest[:i])
			val, _ := lookup(rest[i+1:i+j], doc)
			if sv, ok := val.(string); ok {
				b.WriteString(sv)
			} else if val != nil {
				vb, _ := json.Marshal(val)
				b.Write(vb)
			}
			rest = rest[i+j+1:]
		}
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			m[k] = substitute(e, doc)
		}
		return m
	case []any:
		a := make([]any, len(x))
		for i, e := range x {
			a[i] = substitute(e, doc)
		}
		return a
	}
	return v
}

func lookup(ref string, doc any) (any, bool) {
	p, err := refPointer(ref)
	if err != nil {
		return nil, false
	}
	return p.Get(doc)
}
