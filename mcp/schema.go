package mcp

import (
	"encoding/json"
	"sync"

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
			// Some clients reject an array schema without items.
			prop["items"] = map[string]any{}
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

// finishSchema is the schema of the finish tool.
func finishSchema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"status": map[string]any{
				"type":        "string",
				"enum":        ledger.Statuses.Values,
				"description": "completed: every requested action was done; partial: some were; failed: none could be done; escalated: you hand the task to a human.",
			},
			"uncertainties": map[string]any{
				"type":        "array",
				"items":       map[string]any{"type": "string"},
				"description": "Anything you could not verify, e.g. an action that may or may not have taken effect.",
			},
		},
		"required":             []string{"status", "uncertainties"},
		"additionalProperties": false,
	}
}

// finishDescription is what the agent reads about the finish tool.
const finishDescription = "Report the end of the task. Call it exactly once, when you are done, with the task's status and the list of things you are unsure about. No tool can be called afterwards."

// schemaCache holds each tool's schema as JSON, per contract: every
// session's server lists the same schemas, so they are encoded once.
var schemaCache sync.Map // contract + "/" + tool → json.RawMessage

func schemaJSON(contract string, spec sandbox.ToolSpec) json.RawMessage {
	key := contract + "/" + spec.Name
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

var finishSchemaJSON = func() json.RawMessage {
	b, err := json.Marshal(finishSchema())
	if err != nil {
		panic("mcp: finish schema: " + err.Error())
	}
	return b
}()
