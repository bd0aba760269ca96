package interop

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"io"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

func testEpisodes() []Episode {
	a := ledger.Episode{EpisodeID: "run/T01/0/0/timeout_post", Model: "m", Template: "T01", FaultMode: "timeout_post",
		Duplicated: true, TaskSuccess: true, ToolCalls: 2, Seed: -6492011207673977616}
	b := a
	b.EpisodeID, b.Duplicated, b.EOS = a.EpisodeID+"/epoch-2", false, true
	return []Episode{
		{Episode: a, Calls: []ledger.Call{{Seq: 1, Tool: "social_publish", Args: `{"text":"x"}`, Outcome: "timeout"}, {Seq: 2, Tool: "social_publish", Args: `{"text":"x"}`, Outcome: "ok"}},
			Report: &ledger.FinalReport{Status: "completed", Uncertainties: []string{}}},
		{Episode: b},
	}
}

// The log is a zip Inspect reads: a header, summaries and one sample per
// episode whose scores are the graded outcomes; an "/epoch-N" id is epoch
// N of its sample; the same episodes give the same bytes.
func TestWriteInspectLog(t *testing.T) {
	var one, two bytes.Buffer
	if err := WriteInspectLog(&one, testEpisodes(), InspectOptions{Source: "run.jsonl"}); err != nil {
		t.Fatal(err)
	}
	if err := WriteInspectLog(&two, testEpisodes(), InspectOptions{Source: "run.jsonl"}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(one.Bytes(), two.Bytes()) {
		t.Error("two writes of the same episodes differ")
	}
	z, err := zip.NewReader(bytes.NewReader(one.Bytes()), int64(one.Len()))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, f := range z.File {
		r, _ := f.Open()
		files[f.Name], _ = io.ReadAll(r)
	}
	for _, name := range []string{"header.json", "summaries.json", "_journal/start.json",
		"samples/run/T01/0/0/timeout_post_epoch_1.json", "samples/run/T01/0/0/timeout_post_epoch_2.json"} {
		if files[name] == nil {
			t.Errorf("no %s in the log", name)
		}
	}
	var s struct {
		Epoch    int
		Messages []map[string]any
		Scores   map[string]struct{ Value int }
		Metadata map[string]any
	}
	dec := json.NewDecoder(bytes.NewReader(files["samples/run/T01/0/0/timeout_post_epoch_1.json"]))
	dec.UseNumber()
	if err := dec.Decode(&s); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"eos": 0, "task_success": 1, "no_duplicate": 0, "duplicated": 1, "overclaim": 0}
	for k, v := range want {
		if s.Scores[k].Value != v {
			t.Errorf("score %s = %d, want %d", k, s.Scores[k].Value, v)
		}
	}
	// user, two calls with their results, the final report.
	if len(s.Messages) != 6 || s.Messages[1]["role"] != "assistant" || s.Messages[2]["role"] != "tool" {
		t.Errorf("messages: %v", s.Messages)
	}
	if s.Metadata["seed"] != json.Number("-6492011207673977616") {
		t.Errorf("seed %s: not the ledger's exact int64", s.Metadata["seed"])
	}
	var h struct {
		Results struct {
			Scores []struct {
				Name    string
				Metrics map[string]struct{ Value float64 }
			}
		}
	}
	json.Unmarshal(files["header.json"], &h)
	if len(h.Results.Scores) != len(Outcomes) || h.Results.Scores[3].Name != "duplicated" || h.Results.Scores[3].Metrics["mean"].Value != 0.5 {
		t.Errorf("results: %+v", h.Results)
	}
	if err := WriteInspectLog(io.Discard, nil, InspectOptions{}); err == nil {
		t.Error("no episodes: want an error")
	}
}
