package proxy

import (
	"errors"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
)

// TestParseContractErrors: a contract that does not parse names the file,
// the line and the field.
func TestParseContractErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "c.yaml: empty contract"},
		{"tools: [", "c.yaml:1: not YAML"},
		{"tool:\n  a: {}\n", "c.yaml:1: tool: unknown key"},
		{"tools: 3\n", "c.yaml:1: tools: want a mapping"},
		{"tools:\n  a:\n    kind: maybe\n", `c.yaml:3: tools.a.kind: "maybe": want read or write`},
		{"tools:\n  a:\n    idempotent: often\n", `c.yaml:3: tools.a.idempotent: "often": want true or false`},
		{"tools:\n  a:\n    effect: /to\n", "c.yaml:3: tools.a.effect: want a list of JSON pointers"},
		{"tools:\n  a:\n    effect: [/to, subject]\n", `c.yaml:3: tools.a.effect[1]: "subject": a JSON pointer starts with "/"`},
		{"tools:\n  a:\n    batch: rows\n", `c.yaml:3: tools.a.batch: "rows"`},
		{"tools:\n  a:\n    speed: 3\n", "c.yaml:3: tools.a.speed: unknown key"},
		{"tools:\n  a:\n    kind: read\n    kind: write\n", "c.yaml:4: tools.a.kind: given twice"},
		{"tools:\n  a: {}\n  a: {}\n", "c.yaml:3: tools.a: listed twice"},
		{"tools:\n  a:\n    verify: {args: {}}\n", "c.yaml:3: tools.a.verify.tool: missing"},
		{"tools:\n  a:\n    verify: {tool: r, count: n}\n", `c.yaml:3: tools.a.verify.count: "n"`},
		{"tools: {}\n---\ntools: {}\n", "c.yaml:2: a contract is one YAML document"},
	} {
		_, err := ParseContract("c.yaml", []byte(c.in))
		var ce *ContractError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q…", c.in, err, c.want)
		}
	}
}

func tool(name, schema string, ann *sdk.ToolAnnotations) *sdk.Tool {
	return &sdk.Tool{Name: name, InputSchema: schemaMap(jsonRaw(schema)), Annotations: ann}
}

func jsonRaw(s string) any {
	var v any
	if err := jsonUnmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return v
}

var contractTools = []*sdk.Tool{
	tool("send", `{"type":"object","properties":{"to":{"type":"string"},"subject":{"type":"string"},"key":{"type":"string"}}}`, nil),
	tool("put", `{"type":"object","properties":{"id":{"type":"string"}}}`, &sdk.ToolAnnotations{IdempotentHint: true}),
	tool("list", `{"type":"object","properties":{"q":{"type":"string"}}}`, &sdk.ToolAnnotations{ReadOnlyHint: true}),
	tool("many", `{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"}}}}}}`, nil),
	tool("free", `{"type":"object"}`, nil),
}

// TestResolve: annotations decide what the file leaves out; the file's
// tools and pointers must fit the upstream's schemas.
func TestResolve(t *testing.T) {
	c, err := ParseContract("c.yaml", []byte("tools:\n  send:\n    effect: [/to, /subject]\n    key: key\n  many:\n    batch: /rows\n    effect: [/rows/id]\n  free:\n    effect: [/anything/deep]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Resolve(contractTools); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]ledger.ToolRule{
		"send": {Kind: ledger.KindWrite, Effect: []string{"/to", "/subject"}, Key: "key", KeyHonoured: true},
		"put":  {Kind: ledger.KindWrite, Idempotent: true},
		"list": {Kind: ledger.KindRead},
		"many": {Kind: ledger.KindWrite, Effect: []string{"/rows/id"}, Batch: "/rows"},
	} {
		got := c.Tools[name].Rule()
		if got.Kind != want.Kind || got.Idempotent != want.Idempotent || strings.Join(got.Effect, ",") != strings.Join(want.Effect, ",") ||
			got.Key != want.Key || got.KeyHonoured != want.KeyHonoured || got.Batch != want.Batch {
			t.Errorf("%s: %+v, want %+v", name, got, want)
		}
	}
	for _, bad := range []struct{ in, want string }{
		{"tools:\n  mail:\n    kind: write\n", `c.yaml:2: tools.mail: the upstream has no tool "mail" (it has send, put, list, many, free)`},
		{"tools:\n  send:\n    effect: [/to, /cc]\n", "c.yaml:3: tools.send.effect[1]: /cc names no argument of send's input schema"},
		{"tools:\n  send:\n    key: idem\n", `c.yaml:3: tools.send.key: "idem" is no argument`},
		{"tools:\n  many:\n    batch: /rows/0\n", "c.yaml:3: tools.many.batch: /rows/0 names no array argument"},
		{"tools:\n  many:\n    batch: /rows\n    effect: [/rows/0/id]\n", "c.yaml:4: tools.many.effect[0]: /rows/0/id names no argument of many's input schema (the batch /rows stands for one item)"},
		{"tools:\n  list:\n    effect: [/q]\n", "c.yaml:3: tools.list.effect: given for a read"},
		{"tools:\n  send:\n    verify: {tool: put, args: {}}\n", "c.yaml:3: tools.send.verify.tool: put is not a read"},
		{"tools:\n  send:\n    verify: {tool: list, args: {q: \"{cc}\"}}\n", "c.yaml:3: tools.send.verify.args: {cc} names no argument"},
	} {
		c, err := ParseContract("c.yaml", []byte(bad.in))
		if err != nil {
			t.Fatalf("%q: %v", bad.in, err)
		}
		err = c.Resolve(contractTools)
		var ce *ContractError
		if !errors.As(err, &ce) || !strings.HasPrefix(err.Error(), bad.want) {
			t.Errorf("%q: %v, want %q…", bad.in, err, bad.want)
		}
	}
}

// TestMarshalRoundTrip: the printed contract reads back as the contract
// it was printed from.
func TestMarshalRoundTrip(t *testing.T) {
	c, err := ParseContract("c.yaml", []byte("tools:\n  send:\n    effect: [/to, /subject]\n    key: key\n    verify: {tool: list, args: {q: \"{to}: {subject}\"}, count: /n}\n  many:\n    batch: /rows\n"))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Resolve(contractTools); err != nil {
		t.Fatal(err)
	}
	out := c.Marshal(contractTools, "test 1.0")
	back, err := ParseContract("printed.yaml", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if err := back.Resolve(contractTools); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for name, spec := range c.Tools {
		a, b := spec.Rule(), back.Tools[name].Rule()
		if a.Kind != b.Kind || a.Idempotent != b.Idempotent || strings.Join(a.Effect, ",") != strings.Join(b.Effect, ",") || a.Key != b.Key || a.Batch != b.Batch {
			t.Errorf("%s: printed %+v, read back %+v\n%s", name, a, b, out)
		}
	}
	if v := back.Tools["send"].Verify; v == nil || v.Args["q"] != "{to}: {subject}" || v.Count != "/n" {
		t.Errorf("verify read back as %+v\n%s", v, out)
	}
	if !strings.Contains(string(out), "put:  # annotations: idempotentHint") || !strings.Contains(string(out), "free:  # no annotations") {
		t.Errorf("the notes on where each kind came from are missing:\n%s", out)
	}
}

// FuzzParseContract: whatever the file holds, the parser returns a
// contract or a *ContractError, never panics, and a contract it accepts
// resolves or fails with a *ContractError.
func FuzzParseContract(f *testing.F) {
	for _, s := range []string{
		"tools:\n  send:\n    effect: [/to]\n",
		"tools:\n  many: {batch: /rows, effect: [/rows/id]}\n",
		"tools:\n  send:\n    verify: {tool: list, args: {q: \"{to}\"}, count: /n}\n",
		"tools: ~\n", "tools:\n  a: [1]\n", "{", "- a\n", "tools:\n  \"\": {}\n", "tools:\n  send:\n    kind: !!binary aGk=\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseContract("f.yaml", data)
		var ce *ContractError
		if err != nil {
			if !errors.As(err, &ce) {
				t.Fatalf("%q: %T %v", data, err, err)
			}
			return
		}
		if err := c.Resolve(contractTools); err != nil && !errors.As(err, &ce) {
			t.Fatalf("%q: resolve: %T %v", data, err, err)
		}
	})
}
