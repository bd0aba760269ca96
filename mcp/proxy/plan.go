package proxy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/limbo-toolkit/limbo/internal/planjson"
	"github.com/limbo-toolkit/limbo/internal/readlimit"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Episode is one planned proxied episode: the world (task label, focal
// tool and its occurrence, fault mode, repetition) and the labels its
// ledger line carries. Zero values take the defaults documented on each
// field (Normalize).
type Episode struct {
	EpisodeID  string  `json:"episode_id,omitempty"` // default: derived (Key)
	Experiment string  `json:"experiment,omitempty"` // default "proxy"
	Model      string  `json:"model,omitempty"`      // default "unknown"
	Harness    string  `json:"harness,omitempty"`    // default "unknown"
	Condition  string  `json:"condition,omitempty"`  // default "vanilla"
	Task       string  `json:"task,omitempty"`       // the task label (the ledger's template); default "proxy"
	Rep        int     `json:"rep"`                  // the repetition (the ledger's instance)
	Tool       string  `json:"tool,omitempty"`       // the focal tool; "" only under none: the session's first write
	Occurrence int     `json:"occurrence,omitempty"` // which call of Tool is focal, from 1; default 1
	FaultMode  string  `json:"fault_mode"`           // one of Modes()
	DelayS     float64 `json:"delay_s,omitempty"`    // the late delay (s); default: the proxy's, or drawn for the tail
	Weight     float64 `json:"weight,omitempty"`     // default 1
	// Prompt is the task text a driven harness gets (drive's {task});
	// it is not recorded.
	Prompt string `json:"prompt,omitempty"`
}

// Defaults of a planned episode.
const (
	DefaultExperiment = "proxy"
	DefaultLabel      = "unknown"
	DefaultCondition  = "vanilla"
	DefaultTask       = "proxy"
)

// anyTool stands in the pair key for the focal tool of a no-fault episode
// without one (its first write).
const anyTool = "*"

// Normalize fills the defaults and checks the fields; the error names the
// field. HTTP says whether the transport faults can be injected.
func (e *Episode) Normalize(http bool) error {
	if e.Experiment == "" {
		e.Experiment = DefaultExperiment
	}
	if e.Model == "" {
		e.Model = DefaultLabel
	}
	if e.Harness == "" {
		e.Harness = DefaultLabel
	}
	if e.Condition == "" {
		e.Condition = DefaultCondition
	}
	if e.Task == "" {
		e.Task = DefaultTask
	}
	if e.Occurrence == 0 {
		e.Occurrence = 1
	}
	if e.Weight == 0 {
		e.Weight = 1
	}
	switch {
	case !slices.Contains(proxyModes, e.FaultMode):
		return fieldErr("fault_mode", "%q: want one of %s", e.FaultMode, strings.Join(proxyModes, ", "))
	case HTTPOnly(e.FaultMode) && !http:
		return fieldErr("fault_mode", "%s is a fault of the HTTP transport: the proxy must serve streamable HTTP", e.FaultMode)
	case e.Tool == "" && e.FaultMode != ledger.FaultNone:
		return fieldErr("tool", "missing: a fault needs the tool whose call it hits")
	case e.Occurrence < 1:
		return fieldErr("occurrence", "%d: the first call is 1", e.Occurrence)
	case e.Rep < 0:
		return fieldErr("rep", "negative repetition %d", e.Rep)
	case !(e.DelayS >= 0) || e.DelayS > 1e7:
		return fieldErr("delay_s", "%v out of range [0, 1e7]", e.DelayS)
	case !(e.Weight > 0) || e.Weight > 1e12:
		return fieldErr("weight", "%v must be positive and finite", e.Weight)
	}
	for _, f := range []struct{ name, v string }{{"experiment", e.Experiment}, {"model", e.Model}, {"harness", e.Harness}, {"condition", e.Condition}, {"task", e.Task}} {
		if strings.ContainsAny(f.v, "/#") {
			return fieldErr(f.name, "%q: a label has no / or # (they separate the parts of episode ids and pair keys)", f.v)
		}
	}
	return nil
}

// PairKey is model/task/rep/tool#k/fault_mode (k the occurrence from 0):
// the same for every arm of one world (conditions, guards, contracts),
// so paired analyses match them.
func (e *Episode) PairKey() string {
	tool := e.Tool
	if tool == "" {
		tool = anyTool
	}
	return e.Model + "/" + e.Task + "/" + strconv.Itoa(e.Rep) + "/" + tool + "#" + strconv.Itoa(e.Occurrence-1) + "/" + e.FaultMode
}

// Key is the episode id derived from the design fields, in serve's form:
// experiment/harness/contract/condition/cue/pair key.
func (e *Episode) Key(contract string) string {
	return e.Experiment + "/" + e.Harness + "/" + contract + "/" + e.Condition + "/" + ledger.CueDefault + "/" + e.PairKey()
}

// fieldErr is a problem with one field of an episode (ParsePlan names it).
var fieldErr = planjson.FieldErr

// ReadPlan reads a plan file: {"episodes": [...]} or a bare JSON array
// of episodes, unknown fields refused. Errors name the file, the line of
// the episode and the field. http says whether the transport faults can
// be planned; contract names the arm (ids are derived with it).
func ReadPlan(path string, http bool, contract string) ([]Episode, error) {
	data, err := readlimit.ReadFile(path, "a plan", readlimit.Manifest)
	if err != nil {
		return nil, err
	}
	return ParsePlan(path, data, http, contract)
}

// ParsePlan parses plan JSON; name is used in messages.
func ParsePlan(name string, data []byte, http bool, contract string) ([]Episode, error) {
	perr := func(off int64, field, msg string) error {
		return ledger.Problem{File: name, Line: planjson.Line(data, off), Field: field, Msg: msg}
	}
	var eps []Episode
	err := planjson.Episodes(data, perr, func(e *Episode) (string, error) {
		if err := e.Normalize(http); err != nil {
			return "", err
		}
		if e.EpisodeID == "" {
			e.EpisodeID = e.Key(contract)
		}
		return e.EpisodeID, nil
	}, func(e Episode) { eps = append(eps, e) })
	if err != nil {
		return nil, err
	}
	if len(eps) == 0 {
		return nil, ledger.Problem{File: name, Msg: "plan has no episodes"}
	}
	return eps, nil
}

// checkTools checks the focal tools of the episodes against the contract:
// a tool the upstream has, and a batch for partial_batch. The error names
// the episode's index.
func checkTools(eps []Episode, c *Contract) error {
	for i := range eps {
		e := &eps[i]
		if e.Tool == "" {
			continue
		}
		t := c.Tools[e.Tool]
		switch {
		case t == nil:
			return &episodeError{i, fieldErr("tool", "the upstream has no tool %q", e.Tool)}
		case e.FaultMode == ledger.FaultPartialBatch && t.Batch == "":
			return &episodeError{i, fieldErr("fault_mode", "partial_batch needs a batch: the contract gives %s none (batch: /pointer-to-the-items)", e.Tool)}
		}
	}
	return nil
}

// episodeError is a planned episode that does not fit the upstream.
type episodeError struct {
	index int
	err   error
}

func (e *episodeError) Error() string { return fmt.Sprintf("episodes[%d].%v", e.index, e.err) }
func (e *episodeError) Unwrap() error { return e.err }
