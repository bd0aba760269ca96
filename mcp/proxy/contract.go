package proxy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.yaml.in/yaml/v3"

	"github.com/limbo-toolkit/limbo/internal/jsonptr"
	"github.com/limbo-toolkit/limbo/internal/readlimit"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Contract says, per tool of the upstream, what the proxy and the grader
// need to know: whether it writes, whether a repeat of one of its effects
// is absorbed, what identifies the effect, which argument carries an
// idempotency key the upstream honours, which array holds a batch's items,
// and how to read an effect back. It comes from the user's contract file
// and, for what the file leaves out, the upstream's tool annotations.
type Contract struct {
	File  string               // the file it was read from ("" without one)
	Tools map[string]*ToolSpec // by tool name
}

// ToolSpec is one tool's entry.
type ToolSpec struct {
	Kind       string   // ledger.KindRead or ledger.KindWrite
	Idempotent bool     // repeats of one effect are absorbed by the upstream
	Effect     []string // JSON pointers into the arguments; none: every argument but Key
	Key        string   // the argument the upstream deduplicates by
	Batch      string   // JSON pointer to an array of items, each its own effect
	Verify     *VerifySpec

	// From says where the kind and idempotency came from: "contract",
	// "annotations" or "default" (an unannotated tool).
	From string

	line   int            // of the tool's entry in the file (0: none)
	fields map[string]int // line of each field given in the file
	auto   bool           // made by Resolve for a tool the contract did not name
}

// VerifySpec is a read-back: after the session the proxy calls Tool with
// Args, in which a string "{POINTER}" (or "{name}", short for "{/name}")
// stands for the value at that pointer in the focal write's arguments
// (inside a longer string, for its text), and reads the count of the
// effect at the pointer Count of the result (a number, or an array whose
// length is the count).
type VerifySpec struct {
	Tool  string
	Args  map[string]any
	Count string
}

// Rule is the ledger's grading rule of the tool.
func (t *ToolSpec) Rule() ledger.ToolRule {
	return ledger.ToolRule{Kind: t.Kind, Idempotent: t.Idempotent, Effect: slices.Clone(t.Effect), Key: t.Key, KeyHonoured: t.Key != "", Batch: t.Batch}
}

// ContractError is a contract that does not fit its upstream or does not
// parse: a usage error naming the file, line and the tool's field.
type ContractError struct {
	File  string
	Line  int
	Field string // tools.NAME.field
	Msg   string
}

func (e *ContractError) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// maxContractBytes bounds a contract file: a few hundred tools at most.
const maxContractBytes = 4 << 20

// ParseContract reads a contract file's YAML:
//
//	tools:
//	  NAME:
//	    kind: read | write
//	    idempotent: true | false
//	    effect: [/pointer, ...]
//	    key: ARGUMENT
//	    batch: /pointer
//	    verify: {tool: NAME, args: {...}, count: /pointer}
//
// Unknown keys, wrong types and malformed pointers are errors naming the
// line and the field; whether the tools and pointers fit the upstream is
// Check's.
func ParseContract(name string, data []byte) (*Contract, error) {
	c := &Contract{File: name, Tools: map[string]*ToolSpec{}}
	if len(data) > maxContractBytes {
		return nil, &ContractError{File: name, Msg: fmt.Sprintf("larger than %d bytes", maxContractBytes)}
	}
	fail := func(n *yaml.Node, field, format string, a ...any) error {
		line := 0
		if n != nil {
			line = n.Line
		}
		return &ContractError{File: name, Line: line, Field: field, Msg: fmt.Sprintf(format, a...)}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, errEOF) {
			return nil, fail(nil, "", "empty contract (want a mapping with tools:)")
		}
		return nil, &ContractError{File: name, Line: yamlErrLine(err), Msg: "not YAML: " + yamlErrMsg(err)}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, fail(&extra, "", "a contract is one YAML document")
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, fail(root, "", "want a mapping with tools:")
	}
	var tools *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if k.Value != "tools" {
			return nil, fail(k, k.Value, "unknown key (a contract has only tools:)")
		}
		tools = v
	}
	if tools == nil {
		return nil, fail(root, "tools", "missing")
	}
	if tools.Kind != yaml.MappingNode {
		if tools.Tag == "!!null" {
			return c, nil
		}
		return nil, fail(tools, "tools", "want a mapping of tool names to entries")
	}
	for i := 0; i+1 < len(tools.Content); i += 2 {
		k, v := tools.Content[i], tools.Content[i+1]
		tool := k.Value
		field := "tools." + tool
		if k.Kind != yaml.ScalarNode || tool == "" {
			return nil, fail(k, "tools", "a tool name is a non-empty string")
		}
		if _, dup := c.Tools[tool]; dup {
			return nil, fail(k, field, "listed twice")
		}
		t := &ToolSpec{From: "contract", line: k.Line, fields: map[string]int{}}
		if v.Kind != yaml.MappingNode {
			return nil, fail(v, field, "want a mapping (kind, idempotent, effect, key, batch, verify)")
		}
		for j := 0; j+1 < len(v.Content); j += 2 {
			fk, fv := v.Content[j], v.Content[j+1]
			f := field + "." + fk.Value
			if _, dup := t.fields[fk.Value]; dup {
				return nil, fail(fk, f, "given twice")
			}
			t.fields[fk.Value] = fk.Line
			switch fk.Value {
			case "kind":
				if fv.Kind != yaml.ScalarNode || (fv.Value != ledger.KindRead && fv.Value != ledger.KindWrite) {
					return nil, fail(fv, f, "%q: want read or write", fv.Value)
				}
				t.Kind = fv.Value
			case "idempotent":
				if err := fv.Decode(&t.Idempotent); err != nil || fv.Kind != yaml.ScalarNode {
					return nil, fail(fv, f, "%q: want true or false", fv.Value)
				}
			case "effect":
				var ptrs []string
				if fv.Kind != yaml.SequenceNode || fv.Decode(&ptrs) != nil {
					return nil, fail(fv, f, "want a list of JSON pointers, e.g. [/to, /subject]")
				}
				for n, p := range ptrs {
					if _, err := jsonptr.Parse(p); err != nil || p == "" {
						return nil, fail(fv.Content[n], fmt.Sprintf("%s[%d]", f, n), "%q: %s", p, pointerMsg(err))
					}
				}
				t.Effect = ptrs
			case "key":
				if fv.Kind != yaml.ScalarNode || fv.Value == "" {
					return nil, fail(fv, f, "want the name of the argument the upstream deduplicates by")
				}
				t.Key = fv.Value
			case "batch":
				if fv.Kind != yaml.ScalarNode {
					return nil, fail(fv, f, "want a JSON pointer to the array of items")
				}
				if _, err := jsonptr.Parse(fv.Value); err != nil || fv.Value == "" {
					return nil, fail(fv, f, "%q: %s", fv.Value, pointerMsg(err))
				}
				t.Batch = fv.Value
			case "verify":
				vs, err := parseVerify(fv, f, fail)
				if err != nil {
					return nil, err
				}
				t.Verify = vs
			default:
				return nil, fail(fk, f, "unknown key (want kind, idempotent, effect, key, batch or verify)")
			}
		}
		c.Tools[tool] = t
	}
	return c, nil
}

// errEOF is the decoder's end of input.
var errEOF = func() error {
	var n yaml.Node
	return yaml.NewDecoder(bytes.NewReader(nil)).Decode(&n)
}()

func pointerMsg(err error) string {
	if err == nil {
		return `a JSON pointer starts with "/"`
	}
	return err.Error()
}

func parseVerify(v *yaml.Node, field string, fail func(*yaml.Node, string, string, ...any) error) (*VerifySpec, error) {
	if v.Kind != yaml.MappingNode {
		return nil, fail(v, field, "want a mapping with tool, args and count")
	}
	vs := &VerifySpec{}
	seen := map[string]bool{}
	for j := 0; j+1 < len(v.Content); j += 2 {
		k, x := v.Content[j], v.Content[j+1]
		f := field + "." + k.Value
		if seen[k.Value] {
			return nil, fail(k, f, "given twice")
		}
		seen[k.Value] = true
		switch k.Value {
		case "tool":
			if x.Kind != yaml.ScalarNode || x.Value == "" {
				return nil, fail(x, f, "want the name of a read tool")
			}
			vs.Tool = x.Value
		case "args":
			var args map[string]any
			if x.Kind != yaml.MappingNode || x.Decode(&args) != nil {
				return nil, fail(x, f, "want a mapping of arguments")
			}
			// Through JSON, so values have the types a client sends.
			b, err := json.Marshal(args)
			if err != nil || json.Unmarshal(b, &vs.Args) != nil {
				return nil, fail(x, f, "arguments that JSON cannot carry")
			}
		case "count":
			if _, err := jsonptr.Parse(x.Value); err != nil || x.Kind != yaml.ScalarNode {
				return nil, fail(x, f, "%q: %s", x.Value, pointerMsg(err))
			}
			vs.Count = x.Value
		default:
			return nil, fail(k, f, "unknown key (want tool, args or count)")
		}
	}
	if vs.Tool == "" {
		return nil, fail(v, field+".tool", "missing")
	}
	if vs.Args == nil {
		vs.Args = map[string]any{}
	}
	return vs, nil
}

// yamlErrLine and yamlErrMsg take the line out of a yaml.v3 error
// ("yaml: line 3: ...").
func yamlErrLine(err error) int {
	var te *yaml.TypeError
	msg := err.Error()
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg = te.Errors[0]
	}
	if _, rest, ok := strings.Cut(msg, "line "); ok {
		n, _, _ := strings.Cut(rest, ":")
		if v, err := strconv.Atoi(n); err == nil {
			return v
		}
	}
	return 0
}

func yamlErrMsg(err error) string {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if _, rest, ok := strings.Cut(msg, "line "); ok {
		if _, m, ok := strings.Cut(rest, ": "); ok {
			return m
		}
	}
	return msg
}

// Resolve completes the contract for the upstream's tools: a tool the file
// does not list gets its kind and idempotency from its annotations
// (readOnlyHint: read; idempotentHint: an idempotent write; neither: a
// non-idempotent write), and so do the fields an entry leaves out. It
// checks the file against the tools: a tool the upstream lacks, an effect,
// key or batch that names no argument of the tool's input schema, a
// verify tool that is not a read: a *ContractError.
func (c *Contract) Resolve(tools []*sdk.Tool) error {
	byName := map[string]*sdk.Tool{}
	for _, t := range tools {
		byName[t.Name] = t
	}
	for _, name := range slices.Sorted(maps.Keys(c.Tools)) {
		t := c.Tools[name]
		if byName[name] == nil {
			return c.errAt(t.line, "tools."+name, "the upstream has no tool %q (it has %s)", name, toolList(tools))
		}
	}
	for _, ut := range tools {
		t := c.Tools[ut.Name]
		if t == nil {
			t = &ToolSpec{fields: map[string]int{}, auto: true}
			c.Tools[ut.Name] = t
		}
		a := ut.Annotations
		from := "annotations"
		if a == nil {
			from = "default"
		}
		if _, set := t.fields["kind"]; !set {
			t.Kind = ledger.KindWrite
			if a != nil && a.ReadOnlyHint {
				t.Kind = ledger.KindRead
			}
			t.From = from
		}
		if _, set := t.fields["idempotent"]; !set && t.Kind == ledger.KindWrite {
			t.Idempotent = a != nil && a.IdempotentHint
		}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Tools)) {
		if err := c.check(name, c.Tools[name], byName); err != nil {
			return err
		}
	}
	return nil
}

func (c *Contract) errAt(line int, field, format string, a ...any) error {
	return &ContractError{File: c.File, Line: line, Field: field, Msg: fmt.Sprintf(format, a...)}
}

// check checks one entry's pointers against the tool's input schema.
func (c *Contract) check(name string, t *ToolSpec, byName map[string]*sdk.Tool) error {
	field := "tools." + name
	at := func(f string) int {
		if l := t.fields[f]; l > 0 {
			return l
		}
		return t.line
	}
	if t.Kind == ledger.KindRead {
		for _, f := range []string{"idempotent", "effect", "key", "batch", "verify"} {
			if _, set := t.fields[f]; set {
				return c.errAt(at(f), field+"."+f, "given for a read (only writes have effects)")
			}
		}
		return nil
	}
	schema := schemaMap(byName[name].InputSchema)
	var batch jsonptr.Pointer
	if t.Batch != "" {
		batch, _ = jsonptr.Parse(t.Batch)
		s, ok := schemaAt(schema, batch, nil)
		if !ok || !isArraySchema(s) {
			return c.errAt(at("batch"), field+".batch", "%s names no array argument of %s's input schema", t.Batch, name)
		}
	}
	for i, e := range t.Effect {
		p, _ := jsonptr.Parse(e)
		if _, ok := schemaAt(schema, p, batch); !ok {
			return c.errAt(at("effect"), fmt.Sprintf("%s.effect[%d]", field, i), "%s names no argument of %s's input schema%s", e, name, batchNote(t.Batch))
		}
	}
	if t.Key != "" {
		if _, ok := schemaAt(schema, jsonptr.Pointer{t.Key}, nil); !ok {
			return c.errAt(at("key"), field+".key", "%q is no argument of %s's input schema", t.Key, name)
		}
	}
	if v := t.Verify; v != nil {
		vt := byName[v.Tool]
		switch {
		case vt == nil:
			return c.errAt(at("verify"), field+".verify.tool", "the upstream has no tool %q", v.Tool)
		case c.Tools[v.Tool] == nil || c.Tools[v.Tool].Kind != ledger.KindRead:
			return c.errAt(at("verify"), field+".verify.tool", "%s is not a read (a read-back must change nothing)", v.Tool)
		}
		for _, ref := range substitutions(v.Args) {
			p, err := refPointer(ref)
			if err != nil {
				return c.errAt(at("verify"), field+".verify.args", "{%s}: %v", ref, err)
			}
			if _, ok := schemaAt(schema, p, batch); !ok {
				return c.errAt(at("verify"), field+".verify.args", "{%s} names no argument of %s's input schema%s", ref, name, batchNote(t.Batch))
			}
		}
		if out := schemaMap(vt.OutputSchema); out != nil && v.Count != "" {
			p, _ := jsonptr.Parse(v.Count)
			if _, ok := schemaAt(out, p, nil); !ok {
				return c.errAt(at("verify"), field+".verify.count", "%s names nothing in %s's output schema", v.Count, v.Tool)
			}
		}
	}
	return nil
}

func batchNote(batch string) string {
	if batch == "" {
		return ""
	}
	return " (the batch " + batch + " stands for one item)"
}

func toolList(tools []*sdk.Tool) string {
	if len(tools) == 0 {
		return "none"
	}
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// schemaMap is a JSON schema as a map (a client holds the upstream's
// schemas as decoded JSON); nil for none.
func schemaMap(s any) map[string]any {
	switch v := s.(type) {
	case map[string]any:
		return v
	case nil:
		return nil
	}
	b, err := json.Marshal(s)
	if err != nil {
		return nil
	}
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// schemaAt walks a JSON schema along a pointer into the instances it
// describes: a token is a property (properties, or additionalProperties
// when it is a schema), or an index of an array (items). A schema that
// constrains nothing at some point (no properties, items or type) lets
// any pointer through from there. batch, if set, is a pointer at which the
// array stands for one of its items.
func schemaAt(s map[string]any, p, batch jsonptr.Pointer) (map[string]any, bool) {
	for i := 0; ; i++ {
		if batch != nil && i == len(batch) && len(p) >= i && slices.Equal(p[:i], batch) {
			if items, ok := s["items"].(map[string]any); ok {
				s = items
			}
		}
		if i == len(p) {
			return s, true
		}
		if s == nil {
			return nil, true
		}
		tok := p[i]
		props, hasProps := s["properties"].(map[string]any)
		ap, apSchema := s["additionalProperties"].(map[string]any)
		items, hasItems := s["items"].(map[string]any)
		switch {
		case hasProps && props[tok] != nil:
			s, _ = props[tok].(map[string]any)
		case apSchema:
			s = ap
		case hasItems:
			if _, isIndex := jsonptr.Index(tok); !isIndex {
				return nil, false
			}
			s = items
		case hasProps:
			return nil, false // a listed schema without the name: a typo
		default:
			return nil, true // nothing said of what is inside
		}
	}
}

func unconstrained(s map[string]any) bool {
	_, props := s["properties"]
	_, items := s["items"]
	_, ap := s["additionalProperties"]
	_, typ := s["type"]
	return !props && !items && !ap && !typ
}

func isArraySchema(s map[string]any) bool {
	if s == nil {
		return true // unconstrained
	}
	switch t := s["type"].(type) {
	case string:
		return t == "array"
	case []any:
		return slices.Contains(t, any("array"))
	}
	_, items := s["items"]
	return items || unconstrained(s)
}

// substitutions lists the {REF}s in a verify's arguments.
func substitutions(v any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			rest := x
			for {
				i := strings.IndexByte(rest, '{')
				if i < 0 {
					return
				}
				j := strings.IndexByte(rest[i:], '}')
				if j < 0 {
					return
				}
				out = append(out, rest[i+1:i+j])
				rest = rest[i+j+1:]
			}
		case map[string]any:
			for _, k := range slices.Sorted(maps.Keys(x)) {
				walk(x[k])
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return out
}

// refPointer reads a substitution: "/pointer", or "name" for "/name".
func refPointer(ref string) (jsonptr.Pointer, error) {
	if strings.HasPrefix(ref, "/") {
		return jsonptr.Parse(ref)
	}
	if ref == "" {
		return nil, errors.New("empty substitution")
	}
	return jsonptr.Pointer{ref}, nil
}

// Rules are the contract as the ledger's grading rules.
func (c *Contract) Rules() *ledger.Rules {
	r := &ledger.Rules{Tools: map[string]ledger.ToolRule{}}
	for name, t := range c.Tools {
		r.Tools[name] = t.Rule()
	}
	return r
}

// Marshal renders the contract as a contract file, tools in the order
// given (the upstream's), each with where its kind came from, for
// print-contract: a starting file the user corrects.
func (c *Contract) Marshal(tools []*sdk.Tool, server string) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# limbo-analyze proxy contract for %s.\n", server)
	b.WriteString("# kind: read | write. idempotent: a repeat of one effect changes nothing upstream.\n")
	b.WriteString("# effect: JSON pointers into the arguments that identify the effect (default: every argument but key).\n")
	b.WriteString("# key: the argument the upstream deduplicates by. batch: a pointer to an array of items, each its own effect.\n")
	b.WriteString("# verify: {tool: READ, args: {...\"{/pointer}\"...}, count: /pointer}, a read-back after the session.\n")
	b.WriteString("tools:\n")
	for _, ut := range tools {
		t := c.Tools[ut.Name]
		if t == nil {
			continue
		}
		fmt.Fprintf(&b, "  %s:%s\n", yamlString(ut.Name), annotationNote(t, ut.Annotations))
		fmt.Fprintf(&b, "    kind: %s\n", t.Kind)
		if t.Kind == ledger.KindRead {
			continue
		}
		fmt.Fprintf(&b, "    idempotent: %t\n", t.Idempotent)
		if len(t.Effect) > 0 {
			q := make([]string, len(t.Effect))
			for i, e := range t.Effect {
				q[i] = yamlString(e)
			}
			fmt.Fprintf(&b, "    effect: [%s]\n", strings.Join(q, ", "))
		}
		if t.Key != "" {
			fmt.Fprintf(&b, "    key: %s\n", yamlString(t.Key))
		}
		if t.Batch != "" {
			fmt.Fprintf(&b, "    batch: %s\n", yamlString(t.Batch))
		}
		if v := t.Verify; v != nil {
			args, _ := json.Marshal(v.Args)
			fmt.Fprintf(&b, "    verify: {tool: %s, args: %s", yamlString(v.Tool), args)
			if v.Count != "" {
				fmt.Fprintf(&b, ", count: %s", yamlString(v.Count))
			}
			b.WriteString("}\n")
		}
	}
	return b.Bytes()
}

func annotationNote(t *ToolSpec, a *sdk.ToolAnnotations) string {
	switch t.From {
	case "contract":
		return "  # from the contract file"
	case "default":
		return "  # no annotations: a non-idempotent write unless you say otherwise"
	}
	var hints []string
	if a.ReadOnlyHint {
		hints = append(hints, "readOnlyHint")
	}
	if a.IdempotentHint {
		hints = append(hints, "idempotentHint")
	}
	if a.DestructiveHint != nil && *a.DestructiveHint {
		hints = append(hints, "destructiveHint")
	}
	if len(hints) == 0 {
		return "  # annotations: no hint (a non-idempotent write)"
	}
	return "  # annotations: " + strings.Join(hints, ", ")
}

// yamlString quotes s when YAML would read it as something else.
func yamlString(s string) string {
	var v string
	if yaml.Unmarshal([]byte(s), &v) == nil && v == s && !strings.ContainsAny(s, "#:{}[],&*!|>'\"%@`") && strings.TrimSpace(s) == s {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// ReadContract reads and parses a contract file.
func ReadContract(path string) (*Contract, error) {
	data, err := readlimit.ReadFile(path, "a contract", maxContractBytes)
	if err != nil {
		return nil, err
	}
	return ParseContract(path, data)
}
