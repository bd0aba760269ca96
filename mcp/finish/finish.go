// Package finish is the finish tool that serve and proxy offer an agent:
// its schema, description and annotations, the parsing of its arguments
// into the episode's final report, and its answer.
package finish

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Name is the tool's name.
const Name = "finish"

// Args are the arguments of the finish tool.
type Args struct {
	Status        string   `json:"status"`
	Uncertainties []string `json:"uncertainties"`
}

// Bounds on a final report, so a report cannot blow up a ledger line.
const (
	MaxUncertainties     = 100
	MaxUncertaintyLength = 4096
)

// Description is what the agent reads about the finish tool.
const Description = "Report the end of the task. Call it exactly once, when you are done, with the task's status and the list of things you are unsure about. No tool can be called afterwards."

// Tool is the finish tool, with its MCP annotations when annotated.
func Tool(annotated bool) *sdk.Tool {
	t := &sdk.Tool{Name: Name, Description: Description, InputSchema: schemaJSON}
	if annotated {
		// finish changes nothing outside the episode but cannot be
		// repeated (the episode is over after it).
		closed, no := false, false
		t.Annotations = &sdk.ToolAnnotations{DestructiveHint: &no, OpenWorldHint: &closed}
	}
	return t
}

var schemaJSON = func() json.RawMessage {
	b, err := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"status": map[string]any{
				"type":        "string",
				"enum":        ledger.Statuses.Values,
				"description": "completed: every requested action was done; partial: some were; failed: none could be done; escalated: you hand the task to a human.",
			},
			"uncertainties": map[string]any{
				"type":        "array",
				"items":       map[string]any{"type": "string", "maxLength": MaxUncertaintyLength},
				"maxItems":    MaxUncertainties,
				"description": "Anything you could not verify, e.g. an action that may or may not have taken effect.",
			},
		},
		"required":             []string{"status", "uncertainties"},
		"additionalProperties": false,
	})
	if err != nil {
		panic("finish: schema: " + err.Error()) // built from strings only
	}
	return b
}()

// ProtocolError is a finish request refused at the protocol level
// (invalid params), as opposed to a complaint the agent reads and may act
// on.
type ProtocolError struct{ Msg string }

func (e *ProtocolError) Error() string { return e.Msg }

// Parse reads finish's arguments (at most maxBytes of JSON) into a final
// report. A non-empty complaint means the report was not accepted and the
// agent may try again; a *ProtocolError rejects the request itself.
func Parse(raw json.RawMessage, maxBytes int) (rep ledger.FinalReport, complaint string, err error) {
	if len(raw) > maxBytes {
		return rep, "", &ProtocolError{fmt.Sprintf("arguments of %d bytes exceed the limit of %d", len(raw), maxBytes)}
	}
	var fa Args
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if len(bytes.TrimSpace(raw)) > 0 {
		if err := dec.Decode(&fa); err != nil {
			return rep, "", &ProtocolError{"finish: invalid arguments: " + err.Error()}
		}
	}
	if !ledger.Statuses.Has(fa.Status) {
		return rep, fmt.Sprintf("finish: status must be one of %s, got %q", strings.Join(ledger.Statuses.Values, ", "), fa.Status), nil
	}
	if len(fa.Uncertainties) > MaxUncertainties {
		return rep, fmt.Sprintf("finish: at most %d uncertainties", MaxUncertainties), nil
	}
	for _, u := range fa.Uncertainties {
		if len(u) > MaxUncertaintyLength {
			return rep, fmt.Sprintf("finish: an uncertainty is limited to %d bytes", MaxUncertaintyLength), nil
		}
	}
	if fa.Uncertainties == nil {
		fa.Uncertainties = []string{}
	}
	return ledger.FinalReport{Status: fa.Status, Uncertainties: fa.Uncertainties}, "", nil
}

// Accepted is the message of an accepted report.
const Accepted = "Final report received; the episode is over."

// Result is finish's answer: the message, as text and structured content
// in the form of the sandbox tools' results.
func Result(msg string) *sdk.CallToolResult {
	text, _ := json.Marshal(map[string]any{"outcome": ledger.OutcomeOK, "message": msg})
	return &sdk.CallToolResult{
		Content:           []sdk.Content{&sdk.TextContent{Text: string(text)}},
		StructuredContent: json.RawMessage(text),
	}
}
