package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"strconv"
	"sync"

	"github.com/limbo-toolkit/limbo/sandbox"
)

// Guard is the MCP-server middleware of the guard condition (docs/simulation.md,
// Agents: the guard condition). It sits between an agent and the tools and, for writes:
//
//  1. fills a missing idempotency_key with a deterministic hash of (task,
//     tool, canonical arguments), only where the contract honours keys (an
//     agent's own key is left alone);
//  2. records calls whose outcome is ambiguous (timeout or HTTP 500);
//  3. on a re-issue of an ambiguous call (same tool, same canonical
//     arguments) reads back first, waiting until the documented lag has
//     passed since the original was sent, and if the effect is present
//     returns a success without forwarding; an exact repeat (same
//     arguments, same honoured key) is forwarded as it is, since the
//     service's key dedups it and returns the stored result;
//  4. for data_insert_many, forwards only the rows the read-back lacks.
//
// It uses only what a server sees (the calls, the catalogue, read tools),
// never the fault or the hidden outcome. Reads it makes are ordinary calls
// and appear in the ledger.
type Guard struct {
	Next   Caller
	TaskID string
	// Answered, if set, is told of each write the guard answers itself
	// ("already committed") without forwarding it, so that a harness can
	// record the call (sandbox.World.Answered). The paper's condition
	// leaves it nil.
	Answered func(tool string, args map[string]any)
	contract string
	specs    map[string]sandbox.ToolSpec
	pending  []ambiguousCall
}

type ambiguousCall struct {
	tool, canon string
	read        string // canonical arguments of the read that verifies it
	key         string // idempotency key it was sent with ("" if none)
	sentAt      float64
}

// NewGuard returns a guard in front of next for one task under a contract.
func NewGuard(next Caller, taskID, contract string) *Guard {
	return &Guard{Next: next, TaskID: taskID, contract: contract, specs: catalogue(contract)}
}

// catalogues caches the catalogue by contract (it is static): one map per
// contract, shared read-only by every guard.
var catalogues sync.Map

func catalogue(contract string) map[string]sandbox.ToolSpec {
	if m, ok := catalogues.Load(contract); ok {
		return m.(map[string]sandbox.ToolSpec)
	}
	m := map[string]sandbox.ToolSpec{}
	for _, s := range sandbox.Catalogue(contract) {
		m[s.Name] = s
	}
	catalogues.Store(contract, m)
	return m
}

// Now is the world's clock.
func (g *Guard) Now() float64 { return g.Next.Now() }

// Advance moves the world's clock.
func (g *Guard) Advance(dt float64) { g.Next.Advance(dt) }

// Canonical returns the canonical JSON of a write's arguments without its
// idempotency key: encoding/json's bytes (map keys sorted, HTML
// characters escaped). Arguments are JSON values, which appendJSON
// writes itself without reflection; anything else, and any string it
// would have to escape, goes to encoding/json.
func Canonical(args map[string]any) string {
	var buf [256]byte
	if b, ok := appendJSONObject(buf[:0], args, keyArg); ok {
		return string(b)
	}
	if _, ok := args[keyArg]; ok {
		args = maps.Clone(args)
		delete(args, keyArg)
	}
	b, err := json.Marshal(args)
	if err != nil {
		return ""
	}
	return string(b)
}

// appendJSONObject appends m as encoding/json writes it, without the
// member skip; ok is false when a value is one it leaves to
// encoding/json.
func appendJSONObject(b []byte, m map[string]any, skip string) ([]byte, bool) {
	if m == nil {
		return append(b, "null"...), true
	}
	var keysN [16]string
	keys := keysN[:0]
	for k := range m {
		if skip == "" || k != skip {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendJSONString(b, k); !ok {
			return b, false
		}
		b = append(b, ':')
		if b, ok = appendJSON(b, m[k]); !ok {
			return b, false
		}
	}
	return append(b, '}'), true
}

// appendJSON appends v as encoding/json writes it; ok is false for what
// it leaves to encoding/json.
func appendJSON(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case string:
		return appendJSONString(b, x)
	case bool:
		return strconv.AppendBool(b, x), true
	case float64:
		return appendJSONFloat(b, x)
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case map[string]any:
		return appendJSONObject(b, x, "")
	case []any:
		if x == nil {
			return append(b, "null"...), true
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendJSON(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	}
	return b, false
}

// appendJSONString appends a string that needs no escape under
// encoding/json (printable ASCII but '"', '\\', '<', '>' and '&');
// ok is false for any other.
func appendJSONString(b []byte, s string) ([]byte, bool) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return b, false
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), true
}

// appendJSONFloat appends a float64 as encoding/json does: the shortest
// form, in exponent form below 1e-6 and from 1e21, with a one-digit
// exponent's leading zero dropped; ok is false for NaN and the
// infinities, which it refuses.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return b, false
	}
	format := byte('f')
	if a := math.Abs(f); a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if n := len(b); format == 'e' && n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1]
		b = b[:n-1]
	}
	return b, true
}

// GuardKey is the key the guard derives for a write: a hash of (task, tool,
// canonical arguments), so a re-issue with the same arguments carries the
// same key as the original.
func GuardKey(taskID, tool, canon string) string {
	h := sha256.Sum256([]byte(taskID + "\x00" + tool + "\x00" + canon))
	return "guard-" + hex.EncodeToString(h[:12])
}

// Call applies the guard to one call.
func (g *Guard) Call(tool string, args map[string]any) sandbox.Observation {
	spec, ok := g.specs[tool]
	if !ok || !spec.Write {
		return g.Next.Call(tool, args)
	}
	// Canonical forms are computed only when needed: most writes are
	// neither keyed by the guard nor re-issues.
	canon, readKey, readable := "", "", false
	var rt string
	var ra map[string]any
	prepared := false
	prepare := func() {
		if !prepared {
			prepared = true
			canon = Canonical(args)
			if rt, ra, readable = sandbox.ReadArgsFor(tool, args); readable {
				readKey = rt + Canonical(ra)
			}
		}
	}
	if _, has := args[keyArg]; !has && spec.KeyHonouredFor(args) {
		prepare()
		args = maps.Clone(args)
		args[keyArg] = GuardKey(g.TaskID, tool, canon)
	}
	// A re-issue is a write of the same tool verified by the same read as a
	// pending ambiguous call; whether it is the same logical action is then
	// judged from the listing, so retyped arguments are caught too.
	if len(g.pending) > 0 {
		prepare()
	}
	// A repeat of the very request under an honoured key is forwarded as
	// it is: the service's key makes it safe, and its answer (the stored
	// result) is better than the guard's, which lacks the original's
	// response (a receipt a later step needs, for one).
	if i := g.find(tool, canon, readKey); prepared && i >= 0 && !g.sameKeyed(i, spec, canon, args) {
		a := g.pending[i]
		if wait := a.sentAt + spec.DocumentedLagFor(args) + 1 - g.Next.Now(); wait > 0 {
			g.Next.Advance(wait)
		}
		if readable {
			read := g.Next.Call(rt, ra)
			if read.Outcome == "ok" {
				if isBatch(tool) {
					missing := missingRows(tool, args, read.Result)
					if len(missing) == 0 {
						return g.answer(tool, args)
					}
					// Under the pending call's own honoured key the
					// service itself inserts only the missing rows, and a
					// same-key request with other rows would be rejected:
					// forward it whole. Under no key or another key (a
					// fresh one minted for the re-issue) the service
					// would insert every row again: forward only the
					// missing ones.
					if key, _ := args[keyArg].(string); key == "" || key != a.key || !spec.KeyHonouredFor(args) {
						args = maps.Clone(args)
						args["rows"] = missing
					}
				} else if sandbox.Present(tool, args, read.Result) {
					return g.answer(tool, args)
				}
			}
		}
	}
	sent := g.Next.Now()
	obs := g.Next.Call(tool, args)
	if obs.Outcome == "timeout" || obs.Outcome == "http500" {
		prepare()
		if g.find(tool, canon, readKey) < 0 {
			key, _ := args[keyArg].(string)
			g.pending = append(g.pending, ambiguousCall{tool: tool, canon: canon, read: readKey, key: key, sentAt: sent})
		}
	}
	return obs
}

// sameKeyed reports whether a write repeats pending call i exactly: the
// same arguments under the same idempotency key, which the tool honours.
func (g *Guard) sameKeyed(i int, spec sandbox.ToolSpec, canon string, args map[string]any) bool {
	key, _ := args[keyArg].(string)
	p := &g.pending[i]
	return key != "" && key == p.key && p.canon == canon && spec.KeyHonouredFor(args)
}

func (g *Guard) find(tool, canon, read string) int {
	for i := range g.pending {
		p := &g.pending[i]
		if p.tool == tool && (p.canon == canon || (read != "" && p.read == read)) {
			return i
		}
	}
	return -1
}

// answer is the guard's answer to a write it does not forward.
func (g *Guard) answer(tool string, args map[string]any) sandbox.Observation {
	if g.Answered != nil {
		g.Answered(tool, args)
	}
	return guardResult(tool)
}

// guardResult is what the guard returns instead of forwarding a re-issue
// whose effect it found committed.
func guardResult(tool string) sandbox.Observation {
	return sandbox.Observation{Outcome: "ok", Result: map[string]any{
		"status": "already_committed",
		"note":   "guard: the earlier " + tool + " request took effect; not sent again",
	}}
}

func isBatch(tool string) bool { return tool == "data_insert_many" }

// missingRows returns the rows of a batch write that a read result lacks,
// judged one row at a time with the sandbox's matching helper.
func missingRows(tool string, args map[string]any, read map[string]any) []any {
	var out []any
	for _, r := range rowList(args["rows"]) {
		one := map[string]any{"table": args["table"], "rows": []any{r}}
		if !sandbox.Present(tool, one, read) {
			out = append(out, r)
		}
	}
	return out
}

func rowList(v any) []any {
	switch x := v.(type) {
	case []any:
		return x
	case []map[string]any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = x[i]
		}
		return out
	}
	return nil
}
