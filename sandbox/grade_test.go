package sandbox

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// fillDesign fills the design fields the simulator owns, so the ledger's
// validator can check what the sandbox wrote.
func fillDesign(raw *ledger.RawEpisode) {
	raw.Experiment, raw.Model, raw.Harness, raw.Condition, raw.Cue, raw.PairKey = "E1", "m", "minimal", "vanilla", "default", "pk"
	if raw.EpisodeID == "" {
		raw.EpisodeID = "ep"
	}
}

// Recovery classification from scripted traces after a timeout on T07#0's
// first mail (E write, read path mail_search_sent).
func TestRecoveryClassification(t *testing.T) {
	type step func(w *World, s Step)
	issue := func(key string) step {
		return func(w *World, s Step) {
			a := s.Args
			if key != "" {
				a = withKey(s.Args, key)
			}
			w.Call(s.Tool, a)
		}
	}
	read := func(w *World, s Step) { rt, ra, _ := ReadArgsFor(s.Tool, s.Args); w.Call(rt, ra) }
	wait := func(w *World, s Step) { w.Call(ToolWait, map[string]any{"seconds": 130.0}) }
	cases := []struct {
		name   string
		first  string // key on the focal issue
		after  []step
		status string
		want   string
	}{
		{"blind", "", []step{issue("")}, ledger.StatusCompleted, ledger.RecoveryBlindRetry},
		{"verify retry", "", []step{read, issue("")}, ledger.StatusCompleted, ledger.RecoveryVerifyThenRetry},
		{"verify skip", "", []step{read}, ledger.StatusCompleted, ledger.RecoveryVerifyThenSkip},
		{"wait verify", "", []step{wait, read}, ledger.StatusCompleted, ledger.RecoveryWaitThenVerify},
		{"wait verify retry", "", []step{wait, read, issue("")}, ledger.StatusCompleted, ledger.RecoveryWaitThenVerify},
		{"key reuse", "k1", []step{issue("k1")}, ledger.StatusCompleted, ledger.RecoveryKeyReuse},
		{"fresh key", "k1", []step{read, issue("k2")}, ledger.StatusCompleted, ledger.RecoveryFreshKey},
		{"give up", "", nil, ledger.StatusFailed, ledger.RecoveryGiveUp},
		{"escalate", "", []step{read}, ledger.StatusEscalated, ledger.RecoveryEscalate},
		{"proceed", "", nil, ledger.StatusCompleted, ledger.RecoveryNone},
	}
	for _, c := range cases {
		w := world(t, "T07", 0, ledger.FaultTimeoutPre, ledger.ContractNative)
		s := w.Task().Steps[0]
		issue(c.first)(w, s)
		for _, f := range c.after {
			f(w, s)
		}
		ep, err := Grade(w.Finish(ledger.FinalReport{Status: c.status}))
		if err != nil {
			t.Fatal(err)
		}
		if ep.Recovery != c.want {
			t.Errorf("%s: recovery %s, want %s", c.name, ep.Recovery, c.want)
		}
	}
}

func TestGradeOutcomes(t *testing.T) {
	// Duplicate under timeout_late, reported completed with no uncertainty:
	// the paper's overclaim (H5).
	w := world(t, "T07", 0, ledger.FaultTimeoutLate, ledger.ContractNative)
	verifyClient(w)
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	fillDesign(raw)
	for _, p := range ledger.ValidateRaw(raw) {
		t.Errorf("raw episode: %v", p)
	}
	ep, err := Grade(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ledger.Validate(&ep) {
		if !p.Warning {
			t.Errorf("graded episode: %v", p)
		}
	}
	if !ep.Duplicated || !ep.TaskSuccess || ep.EOS || !ep.ReportedSuccess || !ep.Overclaim || ep.UncertaintyListed {
		t.Errorf("late duplicate: %+v", ep)
	}
	if ep.ExpectedCommits != 2 || ep.FocalCommits != 2 || ep.ToolCalls != int64(len(raw.Calls)) {
		t.Errorf("expected %d focal %d calls %d", ep.ExpectedCommits, ep.FocalCommits, ep.ToolCalls)
	}
	if ep.WriteClass != ledger.ClassEventual || ep.ReadPath != ledger.ReadEventual || ep.Reversible || ep.DelayS != 90 {
		t.Errorf("catalogue facts: class %s read %s reversible %v delay %v", ep.WriteClass, ep.ReadPath, ep.Reversible, ep.DelayS)
	}
	// Same world, honest report: no overclaim.
	w = world(t, "T07", 0, ledger.FaultTimeoutLate, ledger.ContractKeysEverywhere)
	verifyClient(w)
	ep, _ = Grade(w.Finish(ledger.FinalReport{Status: ledger.StatusPartial, Uncertainties: []string{"mail may have gone twice"}}))
	if ep.Overclaim || ep.ReportedSuccess || !ep.UncertaintyListed || ep.WriteClass != ledger.ClassKeyed {
		t.Errorf("honest report: %+v", ep)
	}
	// An unrequested effect spoils eos.
	w = world(t, "T07", 0, ledger.FaultNone, ledger.ContractNative)
	verifyClient(w)
	w.Call("mail_send", map[string]any{"to": "someone@else.example", "subject": "hi", "body": "b"})
	ep, _ = Grade(w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted}))
	if !ep.TaskSuccess || ep.Duplicated || ep.EOS {
		t.Errorf("unrequested mail: ts %v dup %v eos %v, want true false false", ep.TaskSuccess, ep.Duplicated, ep.EOS)
	}
}

func TestGradeErrors(t *testing.T) {
	if _, err := Grade(nil); err == nil {
		t.Error("nil: want error")
	}
	raw := &ledger.RawEpisode{Episode: ledger.Episode{EpisodeID: "e", Template: "T99"}}
	if _, err := Grade(raw); err == nil {
		t.Error("unknown template: want error")
	}
	raw = &ledger.RawEpisode{Episode: ledger.Episode{EpisodeID: "e", Template: "T01", FocalIndex: 9}}
	if _, err := Grade(raw); err == nil {
		t.Error("focal index out of range: want error")
	}
	raw = &ledger.RawEpisode{Episode: ledger.Episode{EpisodeID: "e", Template: "T01"},
		Calls: []ledger.Call{{Seq: 1, Tool: "social_publish", Args: "{bad"}}}
	if _, err := Grade(raw); err == nil {
		t.Error("bad args JSON: want error")
	}
	raw = &ledger.RawEpisode{Episode: ledger.Episode{EpisodeID: "e", Template: "T01"},
		Effects: []ledger.Effect{{Seq: 4, Tool: "social_publish", Source: "agent"}}}
	if _, err := Grade(raw); err == nil {
		t.Error("effect naming no call: want error")
	}
}

// Same seed, same bytes; the raw episode survives a JSON round trip with
// the same grade.
func TestDeterminism(t *testing.T) {
	run := func(seed uint64) []byte {
		task, _ := NewTask("T12", 1)
		w, _ := NewWorld(Spec{Task: task, FocalIndex: 3, Fault: ledger.FaultRedelivery, Seed: seed, EpisodeID: "d"})
		verifyClient(w)
		w.Advance(200)
		rt, ra, _ := ReadArgsFor(task.Steps[3].Tool, task.Steps[3].Args)
		w.Call(rt, ra)
		raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted, Uncertainties: []string{}})
		b, err := json.Marshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	a, b := run(42), run(42)
	if !bytes.Equal(a, b) {
		t.Fatal("same seed: raw episodes differ")
	}
	if bytes.Equal(a, run(43)) {
		t.Error("different seeds: identical raw episodes (latencies and ids should differ)")
	}
	var raw ledger.RawEpisode
	if err := json.Unmarshal(a, &raw); err != nil {
		t.Fatal(err)
	}
	ep1, _ := Grade(&raw)
	var raw2 ledger.RawEpisode
	json.Unmarshal(a, &raw2)
	ep2, _ := Grade(&raw2)
	if !reflect.DeepEqual(ep1, ep2) {
		t.Error("grading is not deterministic")
	}
	if !ep1.Duplicated || ep1.FocalCommits != 2 {
		t.Errorf("redelivered mail: focal commits %d, want 2", ep1.FocalCommits)
	}
}

// Worlds share no mutable state: parallel episodes give the bytes serial
// ones do.
func TestParallelEqualsSerial(t *testing.T) {
	episode := func(i int) []byte {
		fws := FocalWrites()
		fw := fws[i%len(fws)]
		task, _ := NewTask(fw.Template, 0)
		sim := ledger.FaultNames(func(m ledger.FaultMode) bool { return m.InjectedBy(ledger.SiteSandbox) }) // the sandbox's modes
		mode := sim[i%len(sim)]
		if mode == ledger.FaultPartialBatch && task.Steps[fw.FocalIndex].Tool != "data_insert_many" {
			mode = ledger.FaultTimeoutPost
		}
		w, err := NewWorld(Spec{Task: task, FocalIndex: fw.FocalIndex, Fault: mode, DelayS: 400, Seed: uint64(i)})
		if err != nil {
			t.Error(err)
			return nil
		}
		verifyClient(w)
		raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
		ep, err := Grade(raw)
		if err != nil {
			t.Error(err)
		}
		raw.Episode = ep
		b, _ := json.Marshal(raw)
		return b
	}
	const n = 48
	serial := make([][]byte, n)
	for i := range n {
		serial[i] = episode(i)
	}
	par := make([][]byte, n)
	done := make(chan bool)
	for g := range 4 {
		go func() {
			for i := g; i < n; i += 4 {
				par[i] = episode(i)
			}
			done <- true
		}()
	}
	for range 4 {
		<-done
	}
	for i := range n {
		if !bytes.Equal(serial[i], par[i]) {
			t.Fatalf("episode %d differs between serial and parallel runs", i)
		}
	}
}
