package proxy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// clock drops the episode's real time from a fault's answer.
var clock = regexp.MustCompile(`"clock_s":[0-9.e-]+`)

// TestRecordReplay: a run recorded against the upstream is served again
// from the recording alone: the agent gets the same answers, the episode
// the same grade, and the upstream sees nothing; a call the recording
// lacks is an error naming it, or goes live.
func TestRecordReplay(t *testing.T) {
	st, up := connectStore(t)
	path := filepath.Join(t.TempDir(), "run.rec.jsonl")
	rec, err := CreateRecording(path, up)
	if err != nil {
		t.Fatal(err)
	}
	play := func(f *fixture) []string {
		var answers []string
		for _, args := range []map[string]any{{"name": "a"}, {"name": "b"}} {
			first, failed := callText(t, f.cs, "insert", args)
			answers = append(answers, clock.ReplaceAllString(first, ""))
			if failed {
				again, _ := callText(t, f.cs, "insert", args)
				answers = append(answers, again)
			}
		}
		text, _ := callText(t, f.cs, "count", map[string]any{"name": "a"})
		return append(answers, text)
	}
	ep := Episode{Tool: "insert", FaultMode: ledger.FaultTimeoutPost}
	f := startProxy(t, up, storeContract, ep, nil)
	recorded := play(f)
	g1 := f.close(t)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	rows := len(st.rows)

	replayed, err := OpenReplay(path, MissError, nil)
	if err != nil {
		t.Fatal(err)
	}
	f = startProxy(t, replayed, storeContract, ep, nil)
	again := play(f)
	g2 := f.close(t)
	if strings.Join(again, "\n") != strings.Join(recorded, "\n") {
		t.Errorf("replayed answers\n%s\nrecorded\n%s", strings.Join(again, "\n"), strings.Join(recorded, "\n"))
	}
	if g1.ep.Duplicated != g2.ep.Duplicated || g1.ep.FocalCommits != g2.ep.FocalCommits || len(g2.raw.Effects) != len(g1.raw.Effects) || !g2.ep.Duplicated {
		t.Errorf("recorded %+v, replayed %+v", g1.ep, g2.ep)
	}
	if len(st.rows) != rows {
		t.Errorf("the replay reached the upstream: %d rows, then %d", rows, len(st.rows))
	}
	if len(replayed.Tools) != len(up.Tools) || replayed.Name() != "store" {
		t.Errorf("replayed lists: %d tools, name %q", len(replayed.Tools), replayed.Name())
	}

	// A call the recording lacks.
	replayed, err = OpenReplay(path, MissError, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = replayed.CallTool(context.Background(), "insert", []byte(`{"name":"z"}`))
	var re *ReplayError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), `no recorded answer for insert {"name":"z"}`) || len(replayed.Missed()) != 1 {
		t.Errorf("miss: %v", err)
	}
	live, err := OpenReplay(path, MissLive, up)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := live.CallTool(context.Background(), "insert", []byte(`{"name":"z"}`)); err != nil || st.count("z") != 1 {
		t.Errorf("live miss: %v %+v", err, res)
	}
	if _, err := OpenReplay(filepath.Join("testdata", "missing.jsonl"), MissError, nil); err == nil {
		t.Error("a missing recording opened")
	}
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{`{"call":{"tool":"x","args":{}}}` + "\n", "bad.jsonl:1: upstream: missing"},
		{`{"upstream":{"initialize":{"protocolVersion":"2025-06-18"}}}` + "\n" + `{"cal":{}}` + "\n", "bad.jsonl:2: not a recording line"},
		{"", "bad.jsonl: empty recording"},
	} {
		bad := filepath.Join(dir, "bad.jsonl")
		if err := os.WriteFile(bad, []byte(c.body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := OpenReplay(bad, MissError, nil); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
}

// FuzzParseReplay: whatever a recording holds, reading it never panics,
// and a recording it reads answers the calls it holds.
func FuzzParseReplay(f *testing.F) {
	for _, s := range []string{
		`{"upstream":{"initialize":{"protocolVersion":"2025-06-18"},"tools":[]}}` + "\n" + `{"call":{"tool":"x","args":{"a":1},"result":{"content":[{"type":"text","text":"ok"}]}}}`,
		`{"upstream":{"initialize":{}}}` + "\n" + `{"prompt":{"name":"p","result":{"messages":[]}}}`,
		`{"call":{}}`, "{", "\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		u, err := parseReplay("f.jsonl", data, MissError, nil)
		if err != nil {
			return
		}
		_, _ = u.CallTool(context.Background(), "x", []byte(`{"a":1}`))
	})
}
