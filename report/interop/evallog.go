package interop

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/limbo-toolkit/limbo/ledger"
)

// Episode is a graded episode with what the ledger holds of how it went:
// the calls in order and the agent's final report (nil when the ledger
// keeps graded rows only).
type Episode struct {
	ledger.Episode
	Calls  []ledger.Call
	Report *ledger.FinalReport
}

// Outcomes are the scores of a sample, as the Inspect task scores a served
// episode (python/src/limbo_toolkit/inspect): the good outcomes first.
var Outcomes = []string{"eos", "task_success", "no_duplicate", "duplicated", "overclaim"}

// outcome is the 0/1 value of an outcome of e.
func outcome(e *ledger.Episode, name string) int {
	v := map[string]bool{"eos": e.EOS, "task_success": e.TaskSuccess, "no_duplicate": !e.Duplicated,
		"duplicated": e.Duplicated, "overclaim": e.Overclaim}[name]
	if v {
		return 1
	}
	return 0
}

// InspectOptions say what the log names as its task and source.
type InspectOptions struct {
	// Task is the log's task name ("limbo-ledger" when empty).
	Task string
	// Source names the ledger (a path), kept in the log's metadata.
	Source string
	// ToolkitVersion is the version of the toolkit writing the log.
	ToolkitVersion string
	// Created is the log's creation time; the zero time writes the Unix
	// epoch, so that one ledger always gives the same bytes.
	Created time.Time
}

// logVersion is the version of Inspect's log format written (EvalLog.version).
const logVersion = 2

// WriteInspectLog writes eps as an Inspect evaluation log in the .eval
// format (a zip of header.json, summaries.json and samples/ID_epoch_N.json,
// deflated, in a fixed order with a fixed time, so that the same episodes
// give the same bytes). An episode id ending in "/epoch-N" (as the
// Inspect task writes them) is sample ID, epoch N; every other is epoch 1.
func WriteInspectLog(w io.Writer, eps []Episode, o InspectOptions) error {
	if len(eps) == 0 {
		return fmt.Errorf("no episodes to write")
	}
	if o.Task == "" {
		o.Task = "limbo-ledger"
	}
	created := o.Created
	if created.IsZero() {
		created = time.Unix(0, 0)
	}
	stamp := created.UTC().Format("2006-01-02T15:04:05+00:00")
	id := logID(eps)

	samples := make([]sampleJSON, len(eps))
	ids := make([]string, 0, len(eps))
	seen := map[string]bool{}
	epochs := 1
	models := map[string]bool{}
	for i := range eps {
		samples[i] = sample(&eps[i], stamp)
		if !seen[samples[i].ID] {
			seen[samples[i].ID] = true
			ids = append(ids, samples[i].ID)
		}
		epochs = max(epochs, samples[i].Epoch)
		models[eps[i].Model] = true
	}
	model := "limbo/" + eps[0].Model
	if len(models) > 1 {
		model = "limbo/mixed"
	}
	spec := map[string]any{
		"eval_id": id, "run_id": id, "task_id": id, "created": stamp, "task": o.Task, "task_version": 0,
		"dataset": map[string]any{"name": o.Task, "samples": len(ids), "sample_ids": ids, "shuffled": false},
		"model":   model,
		"config":  map[string]any{"epochs": epochs, "epochs_reducer": []string{"mean"}},
		"metadata": map[string]any{
			"limbo_source": o.Source, "limbo_toolkit_version": o.ToolkitVersion,
			"limbo_schema_version": ledger.SchemaVersion, "limbo_episodes": len(eps),
		},
	}
	header := map[string]any{
		"version": logVersion, "status": "success", "eval": spec,
		"plan":    map[string]any{"name": "plan", "steps": []any{}, "config": map[string]any{}},
		"results": results(eps),
		"stats":   map[string]any{"started_at": stamp, "completed_at": stamp, "model_usage": map[string]any{}},
	}

	zw := zip.NewWriter(w)
	zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(out, flate.BestCompression)
	})
	put := func(name string, v any) error {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		f, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: created.UTC()})
		if err != nil {
			return err
		}
		_, err = f.Write(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
		return err
	}
	if err := put("_journal/start.json", map[string]any{"version": logVersion, "eval": spec, "plan": header["plan"]}); err != nil {
		return err
	}
	summaries := make([]map[string]any, len(samples))
	for i, s := range samples {
		if err := put("samples/"+s.ID+"_epoch_"+strconv.Itoa(s.Epoch)+".json", s); err != nil {
			return err
		}
		summaries[i] = map[string]any{"id": s.ID, "epoch": s.Epoch, "input": s.Input, "target": s.Target,
			"metadata": s.Metadata, "scores": s.Scores, "completed": true, "uuid": s.UUID}
	}
	if err := put("summaries.json", summaries); err != nil {
		return err
	}
	if err := put("header.json", header); err != nil {
		return err
	}
	return zw.Close()
}

// logID is the log's id: a digest of the episode ids, so that it is the
// same for the same ledger.
func logID(eps []Episode) string {
	h := sha256.New()
	for i := range eps {
		io.WriteString(h, eps[i].EpisodeID+"\n")
	}
	return hex.EncodeToString(h.Sum(nil))[:22]
}

type sampleJSON struct {
	ID          string           `json:"id"`
	Epoch       int              `json:"epoch"`
	Input       string           `json:"input"`
	Target      string           `json:"target"`
	Messages    []map[string]any `json:"messages"`
	Output      map[string]any   `json:"output"`
	Scores      map[string]score `json:"scores"`
	Metadata    map[string]any   `json:"metadata"`
	Store       map[string]any   `json:"store"`
	Events      []any            `json:"events"`
	ModelUsage  map[string]any   `json:"model_usage"`
	StartedAt   string           `json:"started_at"`
	CompletedAt string           `json:"completed_at"`
	TotalTime   float64          `json:"total_time"`
	UUID        string           `json:"uuid"`
}

type score struct {
	Value       int            `json:"value"`
	Answer      string         `json:"answer"`
	Explanation string         `json:"explanation"`
	Metadata    map[string]any `json:"metadata,omitempty"`
}

// sampleID splits an episode id into the sample id and epoch.
func sampleID(eid string) (string, int) {
	if i := strings.LastIndex(eid, "/epoch-"); i > 0 {
		if n, err := strconv.Atoi(eid[i+len("/epoch-"):]); err == nil && n > 1 {
			return eid[:i], n
		}
	}
	return eid, 1
}

// row is the graded episode as its JSONL line's fields.
func row(e *ledger.Episode) map[string]any {
	b, _ := json.Marshal(e) // an Episode always encodes
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // 64-bit seeds stay exact
	dec.Decode(&m)
	return m
}

func sample(e *Episode, stamp string) sampleJSON {
	id, epoch := sampleID(e.EpisodeID)
	input := fmt.Sprintf("LIMBO episode %s: template %s instance %d, focal write %s (#%d) under %s, contract %s, condition %s.",
		e.EpisodeID, e.Template, e.Instance, e.FocalWrite, e.FocalIndex, e.FaultMode, e.Contract, e.Condition)
	msgs := []map[string]any{{"role": "user", "source": "input", "content": input}}
	for _, c := range e.Calls {
		callID := fmt.Sprintf("call-%d", c.Seq)
		var args any = map[string]any{}
		if c.Args != "" {
			if err := json.Unmarshal([]byte(c.Args), &args); err != nil {
				args = map[string]any{"args": c.Args}
			}
		}
		msgs = append(msgs,
			map[string]any{"role": "assistant", "source": "generate", "content": "",
				"tool_calls": []map[string]any{{"id": callID, "function": c.Tool, "arguments": args, "type": "function"}}},
			map[string]any{"role": "tool", "tool_call_id": callID, "function": c.Tool,
				"content": fmt.Sprintf("outcome %s at t=%gs (latency %gs)", c.Outcome, c.TS, c.LatencyS)})
	}
	last := "the ledger keeps no final report"
	if e.Report != nil {
		last = fmt.Sprintf("final report: status %s, uncertainties %s", e.Report.Status, strings.Join(e.Report.Uncertainties, "; "))
		if len(e.Report.Uncertainties) == 0 {
			last = fmt.Sprintf("final report: status %s, no uncertainties", e.Report.Status)
		}
	}
	msgs = append(msgs, map[string]any{"role": "assistant", "source": "generate", "content": last})
	meta := row(&e.Episode)
	scores := map[string]score{}
	for i, name := range Outcomes {
		s := score{Value: outcome(&e.Episode, name), Answer: e.EpisodeID,
			Explanation: fmt.Sprintf("%s: %s %d (recovery %s, %d calls)", e.EpisodeID, name, outcome(&e.Episode, name), e.Recovery, e.ToolCalls)}
		if i == 0 {
			s.Metadata = map[string]any{"episode": meta}
		}
		scores[name] = s
	}
	sum := sha256.Sum256([]byte(e.EpisodeID))
	return sampleJSON{
		ID: id, Epoch: epoch, Input: input, Target: "", Messages: msgs,
		Output: map[string]any{"model": "limbo/" + e.Model, "choices": []any{}, "completion": last},
		Scores: scores, Metadata: meta, Store: map[string]any{}, Events: []any{}, ModelUsage: map[string]any{},
		StartedAt: stamp, CompletedAt: stamp, TotalTime: e.AgentTimeS, UUID: hex.EncodeToString(sum[:11]),
	}
}

// results are the log's metrics: each outcome's mean over the episodes.
func results(eps []Episode) map[string]any {
	var scores []map[string]any
	for _, name := range Outcomes {
		n := 0
		for i := range eps {
			n += outcome(&eps[i].Episode, name)
		}
		scores = append(scores, map[string]any{
			"name": name, "scorer": name, "reducer": "mean", "scored_samples": len(eps), "unscored_samples": 0,
			"params":  map[string]any{},
			"metrics": map[string]any{"mean": map[string]any{"name": "mean", "value": float64(n) / float64(len(eps)), "params": map[string]any{}}},
		})
	}
	return map[string]any{"total_samples": len(eps), "completed_samples": len(eps), "scores": scores}
}

// sortCalls orders each episode's calls by seq (a Parquet calls table is
// in file order).
func sortCalls(eps []Episode) {
	for i := range eps {
		slices.SortStableFunc(eps[i].Calls, func(a, b ledger.Call) int { return int(a.Seq - b.Seq) })
	}
}
