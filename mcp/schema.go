package mcp

import (
	"encoding/json"
	"sync"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// InputSchema is the JSON schema (draft 2020-12) of a sandbox tool's
// arguments, derived from its parameters: an object with one property per
// parameter, the required ones listed, and no other properties (the
// sandbox rejects extra arguments).
func InputSchema(params []sandbox.Param) map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, p := range params {
		prop := map[string]any{"type": jsonType(p.Type)}
		if p.Doc != "" {
			prop["description"] = p.Doc
		}
		if p.Type == "array" {
			// Some clients reject an array schema without items. The only
			// array parameter (data_insert_many's rows) holds objects.
			prop["items"] = map[string]any{"type": "object"}
		}
		// The limits the sandbox enforces, stated in the schema too, so
		// that a client can check a call before sending it.
		if len(p.Enum) > 0 {
			prop["enum"] = p.Enum
		}
		if p.Minimum != nil {
			prop["minimum"] = *p.Minimum
		}
		if p.Maximum != nil {
			prop["maximum"] = *p.Maximum
		}
		if p.MaxLength > 0 {
			prop["maxLength"] = p.MaxLength
		}
		if p.MinItems > 0 {
			prop["minItems"] = p.MinItems
		}
		if p.MaxItems > 0 {
			prop["maxItems"] = p.MaxItems
		}
		props[p.Name] = prop
		if p.Required {
			required = append(required, p.Name)
		}
	}
	return map[string]any{
		"type":                 "object",
		"properties":           props,
		"required":             required,
		"additionalProperties": false,
	}
}

// jsonType maps a sandbox parameter type to a JSON schema type; unknown
// types are left unconstrained as strings would be too strict.
func jsonType(t string) any {
	switch t {
	case "string", "integer", "number", "boolean", "array", "object":
		return t
	}
	return []string{"string", "integer", "number", "boolean", "array", "object", "null"}
}

// schemaCache holds each tool's schema as JSON, per contract: every
// session's server lists the same schemas, so they are encoded once.
var schemaCache sync.Map // contract + "/" + tool → json.RawMessage

func schemaJSON(contract string, spec sandbox.ToolSpec) json.RawMessage {
	key := contract + "/" + spec.Name
	if n := len(spec.Params); n > 0 && spec.Params[n-1].Name == "receipt" {
		// A hand-off world lists the receipt argument on its gated tools
		// (sandbox.World.Tools): another schema under the same name.
		key += "/receipt"
	}
	if v, ok := schemaCache.Load(key); ok {
		return v.(json.RawMessage)
	}
	b, err := json.Marshal(InputSchema(spec.Params))
	if err != nil {
		panic("mcp: tool schema: " + err.Error()) // built from strings and bools only
	}
	schemaCache.Store(key, json.RawMessage(b))
	return b
}

// ToolAnnotations are the MCP hints of a sandbox tool, derived from the
// catalogue. Reads are read-only and idempotent. A write is destructive
// when it changes or removes what exists (delete, refund, status update,
// upsert: in this catalogue exactly the naturally idempotent writes) and
// additive otherwise (create, publish, insert, send, trigger, comment);
// idempotentHint is natural idempotency, not the key, which only helps
// when the agent repeats it. The six services stand for external systems
// (open world); the oracle and wait tools are the harness's own.
func ToolAnnotations(spec sandbox.ToolSpec) *sdk.ToolAnnotations {
	t, _ := ledger.ToolByName(spec.Name)
	open := t.Kind != ledger.ToolOracle
	a := &sdk.ToolAnnotations{ReadOnlyHint: !spec.Write, OpenWorldHint: &open}
	if spec.Write {
		destructive := spec.Idempotent
		a.DestructiveHint = &destructive
		a.IdempotentHint = spec.Idempotent
	} else {
		a.IdempotentHint = true
	}
	return a
}
