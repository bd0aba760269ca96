package mcp

import (
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// TestDefaultPlan checks the built-in plan against the task suite: every
// instance-0 write under each of the six E2 modes, partial_batch on each
// batch write, at most one no-fault episode per template (docs/simulation.md,
// Task suite: 6·34 + 1 faulted), native, vanilla, unique ids.
func TestDefaultPlan(t *testing.T) {
	p, err := DefaultPlan(1, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	writes, batch := 0, 0
	for _, tmpl := range sandbox.Templates() {
		task, err := sandbox.NewTask(tmpl, 0)
		if err != nil {
			t.Fatal(err)
		}
		writes += len(task.Steps)
		for _, st := range task.Steps {
			if st.Class == ledger.ClassBatch {
				batch++
			}
		}
	}
	count := map[string]int{}
	ids := map[string]bool{}
	for _, e := range p.Episodes {
		count[e.FaultMode]++
		if e.Contract != ledger.ContractNative || e.Condition != "vanilla" || e.Instance != 0 || e.Model != "m" || e.Harness != "h" || e.Experiment != "E2" {
			t.Errorf("%s: not an E2 native vanilla instance-0 episode: %+v", e.EpisodeID, e)
		}
		if ids[e.EpisodeID] {
			t.Errorf("duplicate id %s", e.EpisodeID)
		}
		ids[e.EpisodeID] = true
	}
	for _, m := range E2Modes {
		if count[m] != writes {
			t.Errorf("%s: %d episodes, want one per instance-0 write (%d)", m, count[m], writes)
		}
	}
	if count[ledger.FaultPartialBatch] != batch {
		t.Errorf("partial_batch: %d episodes, want %d", count[ledger.FaultPartialBatch], batch)
	}
	if n := count[ledger.FaultNone]; n > len(sandbox.Templates()) {
		t.Errorf("%d no-fault episodes for %d templates", n, len(sandbox.Templates()))
	}
	if faulted := p.Len() - count[ledger.FaultNone]; faulted != len(E2Modes)*writes+batch {
		t.Errorf("%d faulted episodes, want %d", faulted, len(E2Modes)*writes+batch)
	}
	// The late episodes carry the fixed delay.
	for _, e := range p.Episodes {
		if e.FaultMode == ledger.FaultTimeoutLate && e.DelayS != DefaultLateDelayS {
			t.Errorf("%s: delay %v", e.EpisodeID, e.DelayS)
		}
	}
	// Same seed, same plan; the round trip through a file keeps it.
	q, err := ParsePlan("p.json", mustMarshal(t, p))
	if err != nil {
		t.Fatal(err)
	}
	for i := range p.Episodes {
		if p.Episodes[i].EpisodeID != q.Episodes[i].EpisodeID || p.Episodes[i].Seed != q.Episodes[i].Seed {
			t.Fatalf("episode %d changed in the round trip", i)
		}
	}
}

// E2Modes lists the six modes of experiment E2 on every focal write
// (docs/simulation.md, Task suite), used to check the default plan.
var E2Modes = []string{
	ledger.FaultTimeoutPre, ledger.FaultTimeoutPost, ledger.FaultTimeoutLate,
	ledger.FaultHTTP500Pre, ledger.FaultHTTP500Post, ledger.FaultRedelivery,
}

func mustMarshal(t *testing.T, p *Plan) []byte {
	t.Helper()
	b, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParsePlanErrors: errors name the file, the line of the episode and
// the field.
func TestParsePlanErrors(t *testing.T) {
	cases := []struct {
		name, json, want string
	}{
		{"not json", `nope`, "p.json:1: not a JSON plan"},
		{"empty", `[]`, "plan has no episodes"},
		{"bad mode", "[\n{\"template\":\"T01\",\"fault_mode\":\"timeout_pre\"},\n{\"template\":\"T01\",\"fault_mode\":\"boom\"}\n]", `p.json:3: episodes[1].fault_mode: unknown fault mode "boom"`},
		{"unknown field", "{\"episodes\": [\n  {\"template\":\"T01\",\"fault_mode\":\"none\",\"colour\":1}]}", `p.json:2: episodes[0]: json: unknown field "colour"`},
		{"wrong type", "[{\"template\":\"T01\",\"fault_mode\":\"none\",\"instance\":\"zero\"}]", "episodes[0].instance: want int"},
		{"template", `[{"template":"T99","fault_mode":"none"}]`, `episodes[0].template: unknown task template "T99"`},
		{"focal", `[{"template":"T01","fault_mode":"none","focal_index":99}]`, "episodes[0].focal_index: focal index 99 out of range"},
		{"contract", `[{"template":"T01","fault_mode":"none","contract":"x"}]`, `episodes[0].contract: unknown contract "x"`},
		{"tail delay", `[{"template":"T01","fault_mode":"timeout_late_tail"}]`, "episodes[0].delay_s: timeout_late_tail needs a positive delay_s"},
		{"oracle", `[{"template":"T01","fault_mode":"none","oracles":["crystal_ball"]}]`, `episodes[0].oracles: unknown oracle "crystal_ball"`},
		{"duplicate", `[{"template":"T01","fault_mode":"none"},{"template":"T01","fault_mode":"none"}]`, "episodes[1].episode_id: duplicate episode id"},
		{"trailing", `[{"template":"T01","fault_mode":"none"}] x`, "unexpected content after the plan"},
		{"object key", `{"runs": []}`, `runs: unknown field`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParsePlan("p.json", []byte(c.json))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want it to contain %q", err, c.want)
			}
		})
	}
}

// TestEpisodeDefaults: defaults fill in, the id is the simulator's form.
func TestEpisodeDefaults(t *testing.T) {
	p, err := ParsePlan("p.json", []byte(`[{"template":"T03","focal_index":1,"fault_mode":"timeout_late","seed":5,"condition":"state-oracle","guard":true}]`))
	if err != nil {
		t.Fatal(err)
	}
	e := p.Episodes[0]
	if e.Contract != ledger.ContractNative || e.Cue != ledger.CueDefault || e.ClientTimeoutS != 30 || e.DelayS != 90 || e.Weight != 1 {
		t.Errorf("defaults not filled: %+v", e)
	}
	if len(e.Oracles) != 1 || e.Oracles[0] != OracleState {
		t.Errorf("oracles %v, want [%s] from the condition", e.Oracles, OracleState)
	}
	if want := "mcp/unknown/native/state-oracle+guard/default/unknown/T03/0/1/timeout_late"; e.EpisodeID != want {
		t.Errorf("id %q, want %q", e.EpisodeID, want)
	}
}

// TestPrompt: the exactly-once sentence is in every prompt but the plain
// cue's, and each prompt condition adds its sentence.
func TestPrompt(t *testing.T) {
	task, err := sandbox.NewTask("T07", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		cond, cue, want string
		exactlyOnce     bool
	}{
		{"vanilla", "default", "", true},
		{"vanilla", "plain", "", false},
		{"aware", "default", sentenceAware, true},
		{"reflect", "default", sentenceReflect, true},
		{"rules", "default", sentenceRules, true},
		{"vbr", "default", sentenceVBR, true},
		{"wait-120", "default", "until 120 seconds after you sent it", true},
		{"my-own-condition", "default", "", true},
	} {
		p := Prompt(&Episode{Condition: c.cond, Cue: c.cue}, task)
		if !strings.HasPrefix(p, task.Instruction) || !strings.HasSuffix(p, sentenceFinish) {
			t.Errorf("%s/%s: prompt %q lacks the instruction or the finish sentence", c.cond, c.cue, p)
		}
		if strings.Contains(p, sentenceExactlyOnce) != c.exactlyOnce {
			t.Errorf("%s/%s: exactly-once sentence present = %v", c.cond, c.cue, !c.exactlyOnce)
		}
		if c.want != "" && !strings.Contains(p, c.want) {
			t.Errorf("%s/%s: prompt lacks %q", c.cond, c.cue, c.want)
		}
	}
}

// FuzzParsePlan: a plan file never panics the parser; an accepted plan
// survives its own round trip.
func FuzzParsePlan(f *testing.F) {
	for _, s := range []string{`[{"template":"T01","fault_mode":"none"}]`, `{"episodes":[{"template":"T09","fault_mode":"partial_batch","seed":3}]}`, `{`, `[1]`, `{"episodes":{}}`, `[{"template":"T01","fault_mode":"none","focal_index":-1}]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParsePlan("fuzz.json", data)
		if err != nil {
			return
		}
		b, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		q, err := ParsePlan("again.json", b)
		if err != nil || q.Len() != p.Len() {
			t.Fatalf("round trip: %v", err)
		}
	})
}

// TestPromptDetails: an instruction that says its data is "given below"
// is followed by that data (the posts' texts, the rows), every step's, so
// a real agent is told what to write.
func TestPromptDetails(t *testing.T) {
	for _, c := range []struct {
		template string
		want     []string
	}{
		{"T01", []string{
			"\n\nmastodon: Aurora 2.0 is out today. Release notes: https://example.com/releases/2.0\n",
			"\nlinkedin: We are proud to announce Aurora 2.0",
			"\nweibo: Aurora 2.0 今天发布！",
		}},
		{"T09", []string{
			"\n\n" + `{"id":"B0501-01","qty":40,"sku":"SKU-1101","source":"warehouse-north"}` + "\n",
			"\n" + `{"id":"B0501-04","qty":8,"sku":"SKU-3090","source":"warehouse-north"}` + "\n\n" + sentenceExactlyOnce,
		}},
	} {
		task, err := sandbox.NewTask(c.template, 0)
		if err != nil {
			t.Fatal(err)
		}
		p := Prompt(&Episode{Condition: "vanilla", Cue: "default"}, task)
		if len(task.Details) != len(task.Steps) && c.template == "T01" {
			t.Errorf("%s: %d detail lines for %d steps", c.template, len(task.Details), len(task.Steps))
		}
		for _, w := range c.want {
			if !strings.Contains(p, w) {
				t.Errorf("%s: prompt lacks %q:\n%s", c.template, w, p)
			}
		}
		if !strings.HasPrefix(p, task.Instruction+"\n\n") || !strings.HasSuffix(p, sentenceFinish) {
			t.Errorf("%s: prompt %q lacks the instruction or the finish sentence", c.template, p)
		}
	}
	// An instruction that says everything gets no block.
	task, err := sandbox.NewTask("T03", 0)
	if err != nil {
		t.Fatal(err)
	}
	if p := Prompt(&Episode{Condition: "vanilla"}, task); strings.Contains(p, "\n") {
		t.Errorf("T03: prompt has a details block: %q", p)
	}
}
