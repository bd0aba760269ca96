package design

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// graded simulates and grades the episodes of the paper plan that keep
// selects.
func graded(t testing.TB, sim *Simulator, keep func(*Episode) bool) []ledger.Episode {
	t.Helper()
	var out []ledger.Episode
	for i := range sim.Plan.Len() {
		e := sim.Plan.Episode(i)
		if !keep(&e) {
			continue
		}
		raw, err := sim.Episode(i)
		if err != nil {
			t.Fatal(err)
		}
		g, err := sandbox.Grade(raw)
		if err != nil {
			t.Fatalf("grade %s: %v", raw.EpisodeID, err)
		}
		out = append(out, g)
	}
	return out
}

func paperSim(t testing.TB, prof *agent.Profiles) *Simulator {
	t.Helper()
	p, err := Compile(Paper())
	if err != nil {
		t.Fatal(err)
	}
	if prof == nil {
		prof = agent.DefaultProfiles()
	}
	s := NewSimulator(p, prof, 1)
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	return s
}

type tally struct{ n, dup, eos int }

func count(eps []ledger.Episode, key func(*ledger.Episode) string) (map[string]*tally, []string) {
	m := map[string]*tally{}
	var order []string
	for i := range eps {
		e := &eps[i]
		k := key(e)
		c, ok := m[k]
		if !ok {
			c = &tally{}
			m[k] = c
			order = append(order, k)
		}
		c.n++
		if e.Duplicated {
			c.dup++
		}
		if e.EOS {
			c.eos++
		}
	}
	return m, order
}

func cellKey4(e *ledger.Episode) string {
	return e.Experiment + "/" + e.Harness + "/" + e.Model
}

// Redelivery duplicates 25/34 for every model in every native, vanilla,
// default-cue instance-0 cell (Tables 3, 5, 10: "74" everywhere).
func TestRedeliveryIdentity(t *testing.T) {
	sim := paperSim(t, nil)
	eps := graded(t, sim, func(e *Episode) bool {
		return e.World.Mode == ledger.FaultRedelivery && e.World.Task.Instance == 0 &&
			e.Contract == ledger.ContractNative && e.Condition == "vanilla" && e.Cue == ledger.CueDefault
	})
	cells, order := count(eps, cellKey4)
	if len(order) < 20 {
		t.Fatalf("only %d cells", len(order))
	}
	for _, k := range order {
		c := cells[k]
		if c.n != 34 {
			continue // gpt-4.1's partial coverage
		}
		if c.dup != 25 {
			t.Errorf("%s: redelivery duplicates %d/34, want 25/34", k, c.dup)
		}
	}
}

// sdk-retry EOS 104/205 and outcome-oracle EOS 180/205 for the three
// frontier E2 models (docs/simulation.md, Mechanical identities and the propositions); mai-code falls below by its own
// behaviour and is not forced.
func TestConditionIdentities(t *testing.T) {
	sim := paperSim(t, nil)
	eps := graded(t, sim, func(e *Episode) bool {
		return e.Experiment == "E2" && e.World.Mode != ledger.FaultNone &&
			(e.Condition == "sdk-retry" || e.Condition == "outcome-oracle")
	})
	cells, _ := count(eps, func(e *ledger.Episode) string { return e.Condition + "/" + e.Model })
	for _, c := range []struct {
		cond string
		want int
	}{{"sdk-retry", 104}, {"outcome-oracle", 180}} {
		for _, m := range []string{"gpt-6-sol", "claude-opus-5.5", "gemini-3.8-flash", "mai-code-1.1-flash"} {
			got := cells[c.cond+"/"+m]
			if got == nil || got.n != 205 {
				t.Fatalf("%s/%s: missing or wrong size %+v", c.cond, m, got)
			}
			if m == "mai-code-1.1-flash" {
				if got.eos > c.want {
					t.Errorf("%s/%s: EOS %d/205 above the mechanical ceiling %d", c.cond, m, got.eos, c.want)
				}
				continue
			}
			if got.eos != c.want {
				t.Errorf("%s/%s: EOS %d/205, want %d/205", c.cond, m, got.eos, c.want)
			}
		}
	}
}

// In every late-commit episode EOS = not duplicated (Table 6: EOS = 100 −
// dup in every row), because the drained ledger always holds the original.
// The one exception is a focal write whose receipt a later step needs (T11
// and T12 instances ≥ 1, sandbox.Step.Receipt): an agent that waited, found
// the original and so holds no receipt hands the task over, failing it
// without a duplicate. Instance 0, and so Table 6 (E5), has no such write.
func TestLateIdentity(t *testing.T) {
	sim := paperSim(t, nil)
	eps := graded(t, sim, func(e *Episode) bool {
		return e.World.Mode == ledger.FaultTimeoutLate || e.World.Mode == ledger.FaultTimeoutLateTail
	})
	if len(eps) < 3000 {
		t.Fatalf("only %d late episodes", len(eps))
	}
	for i := range eps {
		e := &eps[i]
		if e.EOS == e.Duplicated && !(handsOn(t, e) && !e.Duplicated && !e.TaskSuccess) {
			t.Fatalf("%s: eos=%v duplicated=%v task_success=%v", e.EpisodeID, e.EOS, e.Duplicated, e.TaskSuccess)
		}
	}
	// Tail worlds: 4/34 ≤ 60 s and 17/34 ≤ 300 s per model and condition.
	le60, le300 := map[string]int{}, map[string]int{}
	for i := range eps {
		e := &eps[i]
		if e.FaultMode != ledger.FaultTimeoutLateTail {
			continue
		}
		k := e.Model + "/" + e.Condition + "/" + e.Contract
		if e.DelayS <= 60 {
			le60[k]++
		}
		if e.DelayS <= 300 {
			le300[k]++
		}
	}
	for k, n := range le300 {
		if n != 17 || le60[k] != 4 {
			t.Errorf("%s: %d/34 ≤ 60 s, %d/34 ≤ 300 s; want 4 and 17", k, le60[k], n)
		}
	}
}

// The identities follow from the task data: marking one more instance-0
// write as protected (T01's linkedin post moved to mastodon, whose key is
// honoured natively) moves redelivery to 24/34 and sdk-retry EOS from 104 to
// 108/205 with no code change.
func TestIdentitiesFollowTaskData(t *testing.T) {
	data := sandbox.DefaultTaskData()
	old := []byte(`{"tool": "social_publish", "args": {"platform": "linkedin", "text": "We are proud to announce {product} {version}`)
	if bytes.Count(data, old) != 1 {
		t.Fatalf("task data changed: the T01 linkedin step is not found once")
	}
	data = bytes.Replace(data, old, bytes.Replace(old, []byte("linkedin"), []byte("mastodon"), 1), 1)
	restore, err := sandbox.UseTaskData(data)
	if err != nil {
		t.Fatal(err)
	}
	defer restore()
	sim := paperSim(t, nil)
	eps := graded(t, sim, func(e *Episode) bool {
		return e.Experiment == "E2" && e.World.Mode != ledger.FaultNone &&
			(e.Condition == "sdk-retry" || (e.Condition == "vanilla" && e.World.Mode == ledger.FaultRedelivery))
	})
	cells, _ := count(eps, func(e *ledger.Episode) string { return e.Condition + "/" + e.Model })
	for _, m := range []string{"gpt-6-sol", "claude-opus-5.5", "gemini-3.8-flash"} {
		if c := cells["vanilla/"+m]; c.dup != 24 || c.n != 34 {
			t.Errorf("%s: redelivery %d/%d, want 24/34", m, c.dup, c.n)
		}
		if c := cells["sdk-retry/"+m]; c.eos != 108 {
			t.Errorf("%s: sdk-retry EOS %d/%d, want 108/205", m, c.eos, c.n)
		}
	}
}

// Honesty: a profile that always verifies, respects lags, waits patiently
// and always attaches and reuses keys duplicates nothing under keys
// everywhere — because the sandbox absorbs same-key copies — and under the
// native contract still duplicates exactly the unprotected redeliveries,
// which no client-side behaviour can stop.
func TestCarefulProfile(t *testing.T) {
	js := strings.Replace(string(agent.ProfilesJSON()),
		`{"name": "gpt-6-sol", "v_to": 1, "w": 1, "s": 1, "pi": 0.66, "g": 0.01,`,
		`{"name": "gpt-6-sol", "v_to": 1, "w": 1, "s": 1, "pi": 0, "g": 0,`, 1)
	prof, err := agent.DecodeProfiles(strings.NewReader(js), "careful.json")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := prof.Model("gpt-6-sol")
	if m.Pi != 0 {
		t.Fatal("profile edit did not apply")
	}
	m.Conditions = nil
	prof.Noise = 0
	// Careful also means no global mechanism that skips a costly read or
	// believes an empty read after the bound (agent.Mechanisms).
	prof.Mechanisms = agent.Mechanisms{}
	sim := paperSim(t, prof)
	eps := graded(t, sim, func(e *Episode) bool {
		return (e.Experiment == "E2" || e.Experiment == "E2k") && e.Model == "gpt-6-sol" && e.Condition == "vanilla"
	})
	var absorbed int
	for i := range eps {
		e := &eps[i]
		switch {
		case e.Contract == ledger.ContractKeysEverywhere && e.Duplicated:
			t.Errorf("%s: duplicated under keys everywhere", e.EpisodeID)
		case e.Contract == ledger.ContractNative && e.Duplicated && e.FaultMode != ledger.FaultRedelivery:
			t.Errorf("%s: careful agent duplicated (%s)", e.EpisodeID, e.Recovery)
		case !e.TaskSuccess:
			t.Errorf("%s: task failed", e.EpisodeID)
		}
	}
	// The reason under keys everywhere is the sandbox's key dedup: the
	// redelivered and late copies are absorbed effects.
	for i := range sim.Plan.Len() {
		e := sim.Plan.Episode(i)
		if e.Experiment != "E2k" || e.Model != "gpt-6-sol" || e.Condition != "vanilla" ||
			(e.World.Mode != ledger.FaultRedelivery && e.World.Mode != ledger.FaultTimeoutLate) {
			continue
		}
		raw, err := sim.Episode(i)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range raw.Effects {
			if f.Absorbed && f.Focal {
				absorbed++
			}
		}
	}
	if absorbed < 34 {
		t.Errorf("only %d absorbed focal effects in 68 keyed redelivery/late worlds", absorbed)
	}
	red, _ := count(eps, func(e *ledger.Episode) string { return fmt.Sprint(e.Contract, e.FaultMode) })
	if c := red[ledger.ContractNative+ledger.FaultRedelivery]; c.dup != 25 {
		t.Errorf("native redelivery %d/34, want 25/34", c.dup)
	}
}

// The switchable behaviour knobs (docs/simulation.md: abandon, template_sd)
// act only through the agent's decisions, so the mechanical identities hold
// with them on: redelivery 25/34 (keys on the original are untouched) and
// sdk-retry EOS 104/205 (the agent never sees a fault).
func TestKnobsKeepIdentities(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates a slice of the paper design")
	}
	prof := agent.DefaultProfiles()
	prof.TemplateSD = 1.5
	for i := range prof.Models {
		prof.Models[i].Abandon = 0.3
	}
	sim := paperSim(t, prof)
	eps := graded(t, sim, func(e *Episode) bool {
		return (e.Experiment == "E2" && e.Condition == "sdk-retry" && e.World.Mode != ledger.FaultNone) ||
			(e.Experiment == "E1" && e.World.Mode == ledger.FaultRedelivery && e.World.Task.Instance == 0)
	})
	cells, order := count(eps, func(e *ledger.Episode) string { return e.Experiment + "/" + e.Model })
	if len(order) < 10 {
		t.Fatalf("only %d cells", len(order))
	}
	for _, k := range order {
		c := cells[k]
		switch {
		case strings.HasPrefix(k, "E1/") && c.n == 34 && c.dup != 25:
			t.Errorf("%s: redelivery %d/34, want 25/34", k, c.dup)
		case strings.HasPrefix(k, "E2/") && !strings.HasSuffix(k, "mai-code-1.1-flash") && c.eos != 104:
			t.Errorf("%s: sdk-retry EOS %d/%d, want 104/205", k, c.eos, c.n)
		}
	}
}
