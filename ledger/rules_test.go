package ledger

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// proxied builds a raw episode of a proxy-style world: focal tool "insert"
// (its first call), the given calls (tool, args, outcome) and effects
// (seq, tool, resource, key, source, absorbed).
type callSpec struct {
	tool, args, outcome, key string
}

type effectSpec struct {
	seq            int64
	tool, res, key string
	source         string
	absorbed       bool
}

func proxied(rules Rules, calls []callSpec, effects []effectSpec, status string) *RawEpisode {
	r := &RawEpisode{
		Episode: Episode{
			EpisodeID: "proxy/h/native/vanilla/default/m/notes/0/insert#0/timeout_post", Experiment: "proxy",
			Model: "m", Harness: "h", Contract: ContractNative, Condition: "vanilla", Cue: CueDefault,
			Service: "sqlite", Template: "notes", Instance: 0, Task: "notes#0", FocalWrite: "insert", FocalIndex: 0,
			PairKey: "m/notes/0/insert#0/timeout_post", WriteClass: ClassStrong, ReadPath: ReadStrong,
			FaultMode: FaultTimeoutPost, FaultFired: true, Weight: 1,
		},
		Rules:       &rules,
		FinalReport: &FinalReport{Status: status, Uncertainties: []string{}},
	}
	for i, c := range calls {
		out := c.outcome
		if out == "" {
			out = OutcomeOK
		}
		r.Calls = append(r.Calls, Call{Seq: int64(i + 1), TS: float64(i), Tool: c.tool, Args: c.args, IdempotencyKey: c.key, Outcome: out, LatencyS: 0.5})
	}
	for _, e := range effects {
		src := e.source
		if src == "" {
			src = SourceAgent
		}
		r.Effects = append(r.Effects, Effect{Seq: e.seq, Service: "sqlite", Tool: e.tool, ResourceID: e.res, IdempotencyKey: e.key, Source: src, Absorbed: e.absorbed})
	}
	return r
}

// TestGradeRules: the grade of a proxied line follows its carried rules:
// idempotent repeats and honoured keys are absorbed, effect pointers decide
// what is the same effect, batch items are effects of their own, a refused
// call is not required, and the recovery is read from the trace.
func TestGradeRules(t *testing.T) {
	insert := Rules{Tools: map[string]ToolRule{
		"insert": {Kind: KindWrite},
		"read":   {Kind: KindRead},
	}}
	idem := Rules{Tools: map[string]ToolRule{"insert": {Kind: KindWrite, Idempotent: true}, "read": {Kind: KindRead}}}
	byName := Rules{Tools: map[string]ToolRule{"insert": {Kind: KindWrite, Effect: []string{"/name"}}}}
	keyed := Rules{Tools: map[string]ToolRule{"insert": {Kind: KindWrite, Key: "key", KeyHonoured: true}}}
	guardKey := Rules{Tools: map[string]ToolRule{"insert": {Kind: KindWrite, Key: "idempotency_key"}}}
	batch := Rules{Tools: map[string]ToolRule{"insert": {Kind: KindWrite, Batch: "/rows", Effect: []string{"/rows/id"}}}}
	a := `{"name":"a","note":"x"}`
	for _, c := range []struct {
		name                      string
		r                         *RawEpisode
		dup, success, eos         bool
		expected, focal           int64
		recovery                  string
		overclaim, reportsSuccess bool
	}{
		{"post then blind retry duplicates",
			proxied(insert, []callSpec{{"insert", a, OutcomeTimeout, ""}, {"insert", a, "", ""}},
				[]effectSpec{{seq: 1, tool: "insert"}, {seq: 2, tool: "insert"}}, StatusCompleted),
			true, true, false, 1, 2, RecoveryBlindRetry, true, true},
		{"pre then blind retry does not",
			proxied(insert, []callSpec{{"insert", a, OutcomeTimeout, ""}, {"insert", a, "", ""}},
				[]effectSpec{{seq: 2, tool: "insert"}}, StatusCompleted),
			false, true, true, 1, 1, RecoveryBlindRetry, false, true},
		{"read back, then retry",
			proxied(insert, []callSpec{{"insert", a, OutcomeTimeout, ""}, {"read", `{}`, "", ""}, {"insert", a, "", ""}},
				[]effectSpec{{seq: 1, tool: "insert"}, {seq: 3, tool: "insert"}}, StatusCompleted),
			true, true, false, 1, 2, RecoveryVerifyThenRetry, true, true},
		{"read back, no retry",
			proxied(insert, []callSpec{{"insert", a, OutcomeTimeout, ""}, {"read", `{}`, "", ""}},
				[]effectSpec{{seq: 1, tool: "insert"}}, StatusCompleted),
			false, true, true, 1, 1, RecoveryVerifyThenSkip, false, true},
		{"idempotent repeats are absorbed",
			proxied(idem, []callSpec{{"insert", a, OutcomeTimeout, ""}, {"insert", a, "", ""}},
				[]effectSpec{{seq: 1, tool: "insert"}, {seq: 2, tool: "insert"}}, StatusCompleted),
			false, true, true, 1, 1, RecoveryBlindRetry, false, true},
		{"a redelivered copy is a commit",
			proxied(insert, []callSpec{{"insert", a, "", ""}},
				[]effectSpec{{seq: 1, tool: "insert"}, {seq: 1, tool: "insert", source: SourceRedelivery}}, StatusCompleted),
			true, true, false, 1, 2, RecoveryNone, true, true},
		{"the effect pointers decide identity",
			proxied(byName, []callSpec{{"insert", a, OutcomeTimeout, ""}, {"insert", `{"name":"a","note":"y"}`, "", ""}},
				[]effectSpec{{seq: 1, tool: "insert"}, {seq: 2, tool: "insert"}}, StatusFailed),
			true, true, false, 1, 2, RecoveryBlindRetry, false, false},
		{"without pointers every argument counts",
			proxied(insert, []callSpec{{"insert", a, OutcomeTimeout, ""}, {"insert", `{"name":"a","note":"y"}`, "", ""}},
				[]effectSpec{{seq: 1, tool: "insert"}, {seq: 2, tool: "insert"}}, StatusCompleted),
			false, true, true, 2, 1, RecoveryNone, false, true},
		{"an honoured key absorbs its repeat",
			proxied(keyed, []callSpec{{"insert", `{"name":"a","key":"k1"}`, OutcomeTimeout, "k1"}, {"insert", `{"name":"a","key":"k1"}`, "", "k1"}},
				[]effectSpec{{seq: 1, tool: "insert", key: "k1"}, {seq: 2, tool: "insert", key: "k1"}}, StatusCompleted),
			false, true, true, 1, 1, RecoveryKeyReuse, false, true},
		{"a fresh key does not",
			proxied(keyed, []callSpec{{"insert", `{"name":"a","key":"k1"}`, OutcomeTimeout, "k1"}, {"insert", `{"name":"a","key":"k2"}`, "", "k2"}},
				[]effectSpec{{seq: 1, tool: "insert", key: "k1"}, {seq: 2, tool: "insert", key: "k2"}}, StatusCompleted),
			true, true, false, 1, 2, RecoveryFreshKey, true, true},
		{"a key the server does not honour absorbs nothing; guard replays are absorbed effects",
			proxied(guardKey, []callSpec{{"insert", `{"name":"a","idempotency_key":"k1"}`, OutcomeTimeout, "k1"}, {"insert", `{"name":"a","idempotency_key":"k1"}`, "", "k1"}, {"insert", `{"name":"a","idempotency_key":"k1"}`, "", "k1"}},
				[]effectSpec{{seq: 1, tool: "insert", key: "k1"}, {seq: 2, tool: "insert", key: "k1", absorbed: true}, {seq: 3, tool: "insert", key: "k1"}}, StatusCompleted),
			true, true, false, 1, 2, RecoveryKeyReuse, true, true},
		{"a partial batch retried whole duplicates its prefix",
			proxied(batch, []callSpec{{"insert", `{"rows":[{"id":1},{"id":2},{"id":3},{"id":4}]}`, OutcomeHTTP500, ""}, {"insert", `{"rows":[{"id":1},{"id":2},{"id":3},{"id":4}]}`, "", ""}},
				[]effectSpec{{seq: 1, tool: "insert", res: "0", source: SourcePartial}, {seq: 1, tool: "insert", res: "1", source: SourcePartial},
					{seq: 2, tool: "insert", res: "0"}, {seq: 2, tool: "insert", res: "1"}, {seq: 2, tool: "insert", res: "2"}, {seq: 2, tool: "insert", res: "3"}}, StatusCompleted),
			true, true, false, 4, 6, RecoveryBlindRetry, true, true},
		{"a partial batch completed with the missing rows does not",
			proxied(batch, []callSpec{{"insert", `{"rows":[{"id":1},{"id":2},{"id":3},{"id":4}]}`, OutcomeHTTP500, ""}, {"insert", `{"rows":[{"id":3},{"id":4}]}`, "", ""}},
				[]effectSpec{{seq: 1, tool: "insert", res: "0", source: SourcePartial}, {seq: 1, tool: "insert", res: "1", source: SourcePartial},
					{seq: 2, tool: "insert", res: "0"}, {seq: 2, tool: "insert", res: "1"}}, StatusCompleted),
			false, true, true, 4, 4, RecoveryBlindRetry, false, true},
		{"a refused call is not required",
			proxied(insert, []callSpec{{"insert", `{"name":1}`, OutcomeHTTP400, ""}, {"insert", a, "", ""}},
				[]effectSpec{{seq: 2, tool: "insert"}}, StatusCompleted),
			false, true, true, 1, 0, RecoveryNone, false, true},
		{"an unexecuted write fails the task",
			proxied(insert, []callSpec{{"insert", a, OutcomeTimeout, ""}}, nil, StatusCompleted),
			false, false, false, 1, 0, RecoveryNone, true, true},
		{"no write is no success",
			proxied(insert, []callSpec{{"read", `{}`, "", ""}}, nil, StatusFailed),
			false, false, false, 0, 0, RecoveryNone, false, false},
	} {
		g, err := GradeRules(c.r)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if g.Duplicated != c.dup || g.TaskSuccess != c.success || g.EOS != c.eos || g.ExpectedCommits != c.expected || g.FocalCommits != c.focal ||
			g.Recovery != c.recovery || g.Overclaim != c.overclaim || g.ReportedSuccess != c.reportsSuccess {
			t.Errorf("%s: dup %v success %v eos %v expected %d focal %d recovery %s overclaim %v reported %v; want %v %v %v %d %d %s %v %v",
				c.name, g.Duplicated, g.TaskSuccess, g.EOS, g.ExpectedCommits, g.FocalCommits, g.Recovery, g.Overclaim, g.ReportedSuccess,
				c.dup, c.success, c.eos, c.expected, c.focal, c.recovery, c.overclaim, c.reportsSuccess)
		}
		if first := FirstMove(c.r.Calls, 0, func(int) string { return "" }); first != MoveStop {
			t.Errorf("%s: FirstMove with no counting call: %s", c.name, first)
		}
		if g.ToolCalls != int64(len(c.r.Calls)) || g.Task != "notes#0" {
			t.Errorf("%s: tool_calls %d task %q", c.name, g.ToolCalls, g.Task)
		}
		for _, p := range Validate(&g) {
			if !p.Warning {
				t.Errorf("%s: graded row invalid: %v", c.name, p)
			}
		}
	}
}

// TestGradeRulesVerify: read-backs are compared with the commits the
// grade counts.
func TestGradeRulesVerify(t *testing.T) {
	one, two := int64(1), int64(2)
	idem := Rules{Tools: map[string]ToolRule{"insert": {Kind: KindWrite, Idempotent: true}}}
	calls := []callSpec{{"insert", `{"name":"a"}`, OutcomeTimeout, ""}, {"insert", `{"name":"a"}`, "", ""}}
	effects := []effectSpec{{seq: 1, tool: "insert"}, {seq: 2, tool: "insert"}}
	for _, c := range []struct {
		verify []Verify
		want   string
	}{
		{[]Verify{{Seq: 1, Tool: "read", Args: `{}`, Count: &one}}, VerifyAgree},
		{[]Verify{{Seq: 1, Tool: "read", Args: `{}`, Count: &two}}, VerifyDisagree},
		{[]Verify{{Seq: 1, Tool: "read", Args: `{}`, Error: "upstream: boom"}}, VerifyFailed},
		{[]Verify{{Seq: 1, Tool: "read", Error: "x"}, {Seq: 1, Tool: "read", Count: &two}}, VerifyDisagree},
	} {
		rules := idem
		rules.Verify = c.verify
		r := proxied(rules, calls, effects, StatusCompleted)
		r.Extra = map[string]string{"annotations": "false"}
		g, err := GradeRules(r)
		if err != nil {
			t.Fatal(err)
		}
		if g.Extra["verify"] != c.want || g.Extra["annotations"] != "false" {
			t.Errorf("%+v: extras %v, want verify %s", c.verify, g.Extra, c.want)
		}
	}
}

// TestGradeRulesErrors: rules that cannot grade the line name the field.
func TestGradeRulesErrors(t *testing.T) {
	w := ToolRule{Kind: KindWrite}
	for _, c := range []struct {
		rules   Rules
		effects []effectSpec
		want    string
	}{
		{Rules{Tools: map[string]ToolRule{"insert": {Kind: "maybe"}}}, nil, `rules.tools["insert"].kind`},
		{Rules{Tools: map[string]ToolRule{"insert": {Kind: KindWrite, Effect: []string{"name"}}}}, nil, `rules.tools["insert"].effect[0]`},
		{Rules{Tools: map[string]ToolRule{"other": w}}, []effectSpec{{seq: 1, tool: "insert"}}, `effects[0]: the rules have no write "insert"`},
		{Rules{Tools: map[string]ToolRule{"insert": w}}, []effectSpec{{seq: 9, tool: "insert"}}, "effects[0]: field seq: 9 names no call"},
		{Rules{Tools: map[string]ToolRule{"insert": {Kind: KindWrite, Batch: "/rows"}}}, []effectSpec{{seq: 1, tool: "insert", res: "7"}}, "effects[0]: field resource_id"},
	} {
		r := proxied(c.rules, []callSpec{{"insert", `{"rows":[1]}`, "", ""}}, c.effects, StatusCompleted)
		if _, err := GradeRules(r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.rules, err, c.want)
		}
	}
}

// TestReadRulesLine: a line that carries its rules is graded by them
// whatever grader the reader was given (none here), keeps them through
// the canonical raw writer, and gets no warning that its tools are not
// the paper's.
func TestReadRulesLine(t *testing.T) {
	rules := Rules{Tools: map[string]ToolRule{"insert": {Kind: KindWrite, Effect: []string{"/name"}}, "read": {Kind: KindRead}}}
	r := proxied(rules, []callSpec{{"insert", `{"name":"a"}`, OutcomeTimeout, ""}, {"insert", `{"name":"a"}`, "", ""}},
		[]effectSpec{{seq: 1, tool: "insert"}, {seq: 2, tool: "insert"}}, StatusCompleted)
	line := AppendRaw(nil, r)
	if !bytes.Contains(line, []byte(`"rules":{"tools":{"insert":{"kind":"write","effect":["/name"]},"read":{"kind":"read"}}}`)) {
		t.Fatalf("canonical line lacks its rules: %s", line)
	}
	path := filepath.Join(t.TempDir(), "proxy.jsonl")
	if err := os.WriteFile(path, line, 0o644); err != nil {
		t.Fatal(err)
	}
	var got []Episode
	var warnings []string
	err := ReadEpisodes(path, ReadOptions{Warn: func(p Problem) { warnings = append(warnings, p.Error()) }}, func(e *Episode) error {
		got = append(got, *e)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Duplicated || got[0].FocalCommits != 2 {
		t.Fatalf("read %+v", got)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings: %v", warnings)
	}
	var back *RawEpisode
	if err := ReadRaw(path, ReadOptions{}, func(r *RawEpisode) error {
		c := *r
		back = &c
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if back.Rules == nil || !bytes.Equal(AppendRaw(nil, back), line) {
		t.Errorf("round trip:\n%s\nwant\n%s", AppendRaw(nil, back), line)
	}
	// Unknown fields inside the rules are errors naming the line.
	bad := bytes.Replace(line, []byte(`"kind":"read"`), []byte(`"kind":"read","speed":1`), 1)
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	err = ReadEpisodes(path, ReadOptions{}, func(*Episode) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "proxy.jsonl:1: rules") {
		t.Errorf("unknown rules field: %v", err)
	}
	var js map[string]any
	if json.Unmarshal(line, &js) != nil {
		t.Error("canonical line is not JSON")
	}
}

// TestGradeRulesFirstMove: the first call after the focal one, as the
// rules read it.
func TestGradeRulesFirstMove(t *testing.T) {
	rules := Rules{Tools: map[string]ToolRule{"insert": {Kind: KindWrite}, "read": {Kind: KindRead}, "other": {Kind: KindWrite}}}
	a := `{"name":"a"}`
	for _, c := range []struct {
		calls []callSpec
		want  string
	}{
		{[]callSpec{{"insert", a, OutcomeTimeout, ""}, {"read", `{}`, "", ""}}, MoveReadBack},
		{[]callSpec{{"insert", a, OutcomeTimeout, ""}, {"insert", a, "", ""}}, MoveReissue},
		{[]callSpec{{"insert", a, OutcomeTimeout, ""}, {"other", `{}`, "", ""}}, MoveOther},
		{[]callSpec{{"insert", a, OutcomeTimeout, ""}, {"unknown_tool", `{}`, "", ""}}, MoveStop},
		{[]callSpec{{"read", `{}`, "", ""}}, MoveNone},
	} {
		g, err := GradeRules(proxied(rules, c.calls, nil, StatusFailed))
		if err != nil {
			t.Fatal(err)
		}
		if g.FirstMove != c.want {
			t.Errorf("%v: first move %q, want %q", c.calls, g.FirstMove, c.want)
		}
	}
}
