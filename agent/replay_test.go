package agent

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/guard"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// replayDefaults are design/replay.json's constants.
func replayDefaults(fault, window, guardArm string, focal int) Replay {
	return Replay{Fault: fault, Window: window, Guard: guardArm, Focal: focal,
		Perturb: Perturbation{Rate: 0.31}, RestartMinS: 5, RestartMaxS: 60, SecondMinS: 0, SecondMaxS: 20,
		DerivedTTLS: 86400, KeysTTLS: 86400, InFlightBoundS: 300, Seed: 3, World: "w"}
}

// playReplay runs one agent-side episode of model in world (tpl#0, focal,
// mode) and grades it.
func playReplay(t *testing.T, model, tpl string, focal int, mode string, r Replay) (ledger.Episode, *ledger.RawEpisode) {
	t.Helper()
	w := world(t, tpl, focal, mode, ledger.ContractNative, 0)
	prof := DefaultProfiles()
	p, err := prof.Effective(model, "minimal", "vanilla", ledger.CueDefault)
	if err != nil {
		t.Fatal(err)
	}
	cond, _ := ParseCondition("vanilla")
	key := model + "/" + tpl + "/" + mode + "/" + string(rune('0'+focal))
	r.World = key
	r.Other = NewDraws(r.Seed, key+"/other", key+"/other", prof.Noise)
	rep, err := RunReplay(w, w.Tools(), ledger.ContractNative, p, prof.Time, cond, NewDraws(r.Seed, key, key, prof.Noise), r)
	if err != nil {
		t.Fatal(err)
	}
	raw := w.Finish(rep)
	raw.EpisodeID, raw.Experiment, raw.Model, raw.Harness, raw.Condition, raw.Cue, raw.PairKey = "ep", "R1", model, "minimal", "vanilla", "default", key
	raw.AgentFault, raw.CrashWindow, raw.Guard = r.Fault, r.Window, r.Guard
	ep, err := sandbox.Grade(raw)
	if err != nil {
		t.Fatal(err)
	}
	if ps := ledger.ValidateRaw(raw); len(ps) > 0 {
		t.Fatalf("invalid raw episode: %v", ps)
	}
	return ep, raw
}

// The perturbation model: about Rate of the writes that have something to
// vary come out different, every one of them still its step's action
// (sandbox.Task.ActionOf); writes that have nothing to vary are always
// repeated; the draws decide everything.
func TestPerturbation(t *testing.T) {
	m := Perturbation{Rate: 0.31}
	for _, tpl := range []string{"T01", "T03", "T05", "T07", "T09", "T10", "T11", "T04"} {
		task, _ := sandbox.NewTask(tpl, 0)
		for i, st := range task.Steps {
			r := rand.New(rand.NewPCG(1, uint64(i)))
			changed, n := 0, 4000
			kinds := map[string]int{}
			for range n {
				out, kind := m.Resynthesize(st.Tool, st.Args, r)
				same := Canonical(out) == Canonical(st.Args)
				if same != (kind == "") {
					t.Fatalf("%s step %d: kind %q but arguments same=%v", task.ID, i, kind, same)
				}
				if kind != "" {
					changed++
					kinds[kind]++
					if got := task.ActionOf(st.Tool, out); got != i {
						t.Fatalf("%s step %d: %v is the action of step %d", task.ID, i, out, got)
					}
				}
			}
			varies := len(perturbKinds(nil, st.Tool, st.Args)) > 0
			rate := float64(changed) / float64(n)
			switch {
			case !varies && changed > 0:
				t.Errorf("%s step %d (%s): nothing to vary but %d perturbed", task.ID, i, st.Tool, changed)
			case varies && math.Abs(rate-0.31) > 4*math.Sqrt(0.31*0.69/float64(n)):
				t.Errorf("%s step %d (%s): rate %.3f, want 0.31", task.ID, i, st.Tool, rate)
			}
			if varies && len(kinds) != len(perturbKinds(nil, st.Tool, st.Args)) {
				t.Errorf("%s step %d: kinds drawn %v", task.ID, i, kinds)
			}
		}
	}
	a, _ := m.Resynthesize("social_publish", map[string]any{"platform": "x", "text": "hello world"}, rand.New(rand.NewPCG(9, 9)))
	b, _ := m.Resynthesize("social_publish", map[string]any{"platform": "x", "text": "hello world"}, rand.New(rand.NewPCG(9, 9)))
	if Canonical(a) != Canonical(b) {
		t.Error("the same draws gave other arguments")
	}
}

// A crash before the journal write resends the focal write with the
// journaled arguments; after it, the run goes on from the next step. With
// no guard the first duplicates a write that had committed and the second
// does not; client keys (the run's step key survives the restart) and the
// action ledger absorb the first.
func TestCrashWindows(t *testing.T) {
	for _, c := range []struct {
		window, guard string
		dup           bool
		answers       int64
	}{
		{ledger.WindowBeforeJournal, ledger.GuardNone, true, 0},
		{ledger.WindowAfterJournal, ledger.GuardNone, false, 0},
		{ledger.WindowBeforeJournal, ledger.GuardKeys, false, 1},
		{ledger.WindowBeforeJournal, ledger.GuardLedger, false, 1},
		{ledger.WindowBeforeJournal, ledger.GuardDerived, false, 1},
		{ledger.WindowBeforeJournal, ledger.GuardPaper, true, 0}, // it reads back only after an ambiguous answer
	} {
		ep, raw := playReplay(t, "gpt-6-astra", "T07", 0, ledger.FaultNone, replayDefaults(ledger.AgentFaultCrashResume, c.window, c.guard, 0))
		if ep.Duplicated != c.dup || ep.GuardAnswers != c.answers || !ep.TaskSuccess {
			t.Errorf("%s/%s: duplicated %v (want %v), guard answers %d (want %d), task success %v", c.window, c.guard, ep.Duplicated, c.dup, ep.GuardAnswers, c.answers, ep.TaskSuccess)
		}
		sends := 0
		for _, call := range raw.Calls {
			if call.Tool == "mail_send" {
				sends++
			}
		}
		if want := 2 + map[bool]int{true: 1}[c.window == ledger.WindowBeforeJournal]; sends != want {
			t.Errorf("%s/%s: %d mail calls, want %d", c.window, c.guard, sends, want)
		}
	}
}

// A crash before the journal write while the focal write is still in
// flight (timeout_late): the replay commits before the original, so with
// no guard, derived keys or client keys (which settle the unknown outcome
// by a read-back as soon as the documented lag allows) the late original
// is a second effect (Proposition 1); the action ledger waits out its
// bound on in-flight time and finds the original.
func TestCrashInFlight(t *testing.T) {
	for _, c := range []struct {
		guard string
		dup   bool
	}{{ledger.GuardNone, true}, {ledger.GuardDerived, true}, {ledger.GuardKeys, true}, {ledger.GuardLedger, false}} {
		ep, _ := playReplay(t, "gpt-6-astra", "T11", 0, ledger.FaultTimeoutLate, replayDefaults(ledger.AgentFaultCrashResume, ledger.WindowBeforeJournal, c.guard, 0))
		if ep.Duplicated != c.dup || (c.dup && !ep.ExactDuplicated) {
			t.Errorf("%s: duplicated %v exact %v, want duplicated %v", c.guard, ep.Duplicated, ep.ExactDuplicated, c.dup)
		}
	}
}

// Derived keys catch every exact repeat of a write whose attempt
// succeeded or whose answer was lost, within the TTL (the guard replays it,
// or settles it by a read-back, never forwards it as new), and miss every
// perturbed one (forwarded as new); the action ledger binds every write
// the agents send, perturbed or not, to an authorised action.
func TestGuardDecisions(t *testing.T) {
	faults := []struct{ fault, window string }{
		{ledger.AgentFaultCrashResume, ledger.WindowBeforeJournal}, {ledger.AgentFaultRunRetry, ""},
		{ledger.AgentFaultReplan, ""}, {ledger.AgentFaultDelegate, ""}, {ledger.AgentFaultConcurrent, ""},
	}
	caught, missed := 0, 0
	for _, tpl := range []string{"T01", "T03", "T05", "T07", "T10", "T13", "T14"} {
		task, _ := sandbox.NewTask(tpl, 0)
		for focal := range task.Steps {
			for _, mode := range []string{ledger.FaultNone, ledger.FaultTimeoutPost, ledger.FaultTimeoutLate} {
				for _, f := range faults {
					// Derived keys.
					r := replayDefaults(f.fault, f.window, ledger.GuardDerived, focal)
					// fingerprint → how its latest forward ended (0 while in flight)
					ended := map[string]guard.End{}
					r.observe = func(ev proxyEvent) {
						fp := ev.Call.Fingerprint
						if ev.End != 0 {
							ended[fp] = ev.End
							return
						}
						end, seen := ended[fp]
						exact := seen && (end == 0 || end == guard.Succeeded || end == guard.Lost)
						if ev.Decision.Outcome == guard.Forward {
							defer func() { ended[fp] = 0 }()
						}
						switch {
						case exact && ev.Decision.Outcome == guard.Forward:
							t.Errorf("%s focal %d %s %s: an exact repeat forwarded as new", tpl, focal, mode, f.fault)
						case exact:
							caught++
						case !seen && ev.Decision.Outcome == guard.Forward:
							// A first send, or a perturbed re-send (counted below).
						case !seen:
							t.Errorf("%s focal %d %s %s: a new fingerprint decided %v", tpl, focal, mode, f.fault, ev.Decision.Outcome)
						}
					}
					ep, raw := playReplay(t, "gpt-5.6-sol", tpl, focal, mode, r)
					// Every perturbed issue reached the service.
					if ep.Perturbed {
						missed++
						for _, c := range raw.Calls {
							if c.Outcome == ledger.OutcomeGuardReplay || c.Outcome == ledger.OutcomeGuardRefused {
								if perturbedCall(task, raw, c) {
									t.Errorf("%s focal %d %s %s: a perturbed write was answered by the guard", tpl, focal, mode, f.fault)
								}
							}
						}
					}
					// The action ledger.
					r = replayDefaults(f.fault, f.window, ledger.GuardLedger, focal)
					r.observe = func(ev proxyEvent) {
						if ev.End == 0 && ev.Decision.Outcome == guard.Unauthorised {
							t.Errorf("%s focal %d %s %s: the ledger has no authorisation for a %s the task wants", tpl, focal, mode, f.fault, ev.Tool)
						}
					}
					if ep, _ := playReplay(t, "gpt-5.6-sol", tpl, focal, mode, r); ep.Duplicated || ep.Suppressed {
						t.Errorf("%s focal %d %s %s: ledger: duplicated %v, suppressed %v", tpl, focal, mode, f.fault, ep.Duplicated, ep.Suppressed)
					}
				}
			}
		}
	}
	if caught == 0 || missed == 0 {
		t.Errorf("caught %d exact repeats, missed %d perturbed episodes: the test exercised too little", caught, missed)
	}
}

// perturbedCall reports whether call c's arguments are not those of the
// first issue of its action in raw.
func perturbedCall(task *sandbox.Task, raw *ledger.RawEpisode, c ledger.Call) bool {
	for _, d := range raw.Calls {
		if d.Tool != c.Tool {
			continue
		}
		if d.Seq == c.Seq {
			return false
		}
		strip := func(s string) string {
			if i := strings.Index(s, `"idempotency_key":`); i >= 0 {
				j := strings.Index(s[i:], ",")
				if j < 0 {
					return s[:i]
				}
				return s[:i] + s[i+j+1:]
			}
			return s
		}
		if strip(d.Args) == strip(c.Args) {
			return false
		}
	}
	return true
}

// Two workers overlap in virtual time: the second sends while the first's
// write is in flight at the guard, waits for it, and is answered with its
// result (derived keys, for an exact copy) or the consumed authorisation
// (the action ledger); with no guard both commit.
func TestTwoWorkersOverlap(t *testing.T) {
	for _, c := range []struct {
		guard      string
		waits, dup bool
	}{{ledger.GuardLedger, true, false}, {ledger.GuardNone, false, true}} {
		waited := false
		r := replayDefaults(ledger.AgentFaultConcurrent, "", c.guard, 0)
		r.SecondMinS, r.SecondMaxS = 0, 0 // both start at once
		r.observe = func(ev proxyEvent) {
			if ev.End == 0 && ev.Decision.Outcome == guard.Wait {
				waited = true
			}
		}
		ep, raw := playReplay(t, "gpt-6-astra", "T11", 0, ledger.FaultTimeoutLate, r)
		if waited != c.waits || ep.Duplicated != c.dup {
			t.Errorf("%s: waited %v (want %v), duplicated %v (want %v)", c.guard, waited, c.waits, ep.Duplicated, c.dup)
		}
		ts := make([]float64, 0, len(raw.Calls))
		for _, call := range raw.Calls {
			ts = append(ts, call.TS)
		}
		if !slices.IsSorted(ts) {
			t.Errorf("%s: calls out of time order", c.guard)
		}
	}
}

// RunReplay refuses what it cannot simulate.
func TestCheckReplay(t *testing.T) {
	ok := replayDefaults(ledger.AgentFaultReplan, "", ledger.GuardNone, 0)
	if err := CheckReplay(ok); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		r    Replay
		want string
	}{
		{replayDefaults("crash", "", ledger.GuardNone, 0), "no mechanics"},
		{replayDefaults(ledger.AgentFaultCrashResume, "", ledger.GuardNone, 0), "crash window"},
		{replayDefaults(ledger.AgentFaultReplan, ledger.WindowAfterJournal, ledger.GuardNone, 0), "crash window"},
		{replayDefaults(ledger.AgentFaultReplan, "", "magic", 0), "guard"},
		{replayDefaults(ledger.AgentFaultDelegate, "", ledger.GuardNone, 0), "other agent"},
	} {
		if err := CheckReplay(c.r); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.r, err, c.want)
		}
	}
}

// The proxy's fingerprint (the tool and the sandbox's canonical
// arguments) tells two calls apart exactly when guard.Effect's does, over
// the task suite's writes and their re-syntheses.
func TestFingerprintsAgree(t *testing.T) {
	eff, err := guard.NewEffect(nil, keyArg)
	if err != nil {
		t.Fatal(err)
	}
	var calls []struct {
		tool string
		args map[string]any
	}
	m := Perturbation{Rate: 1}
	r := rand.New(rand.NewPCG(5, 5))
	for _, tpl := range append(sandbox.Templates(), sandbox.TemplatesOf(sandbox.SuiteRepeats)...) {
		task, _ := sandbox.NewTask(tpl, 0)
		for _, st := range task.Steps {
			calls = append(calls, struct {
				tool string
				args map[string]any
			}{st.Tool, st.Args})
			for range 3 {
				out, _ := m.Resynthesize(st.Tool, st.Args, r)
				calls = append(calls, struct {
					tool string
					args map[string]any
				}{st.Tool, out})
			}
			keyed := map[string]any{keyArg: "k-1"}
			for k, v := range st.Args {
				keyed[k] = v
			}
			calls = append(calls, struct {
				tool string
				args map[string]any
			}{st.Tool, keyed})
		}
	}
	p := &proxy{arm: ledger.GuardDerived, task: &sandbox.Task{}}
	for i, a := range calls {
		for _, b := range calls[i:] {
			fa, _ := eff.Fingerprint(a.tool, a.args)
			fb, _ := eff.Fingerprint(b.tool, b.args)
			if (fa == fb) != (p.call(a.tool, a.args).Fingerprint == p.call(b.tool, b.args).Fingerprint) {
				t.Fatalf("fingerprints disagree on %v and %v", a.args, b.args)
			}
		}
	}
}

// An episode's storage is reused by the next (episodeState): an episode
// comes out the same whatever ran before it, each fault and guard after
// every other one.
func TestEpisodeStorageReused(t *testing.T) {
	type arm struct{ fault, window, guard string }
	var arms []arm
	for _, f := range []string{ledger.AgentFaultCrashResume, ledger.AgentFaultRunRetry, ledger.AgentFaultReplan, ledger.AgentFaultDelegate, ledger.AgentFaultConcurrent} {
		w := ""
		if f == ledger.AgentFaultCrashResume {
			w = ledger.WindowBeforeJournal
		}
		for _, g := range []string{ledger.GuardNone, ledger.GuardPaper, ledger.GuardDerived, ledger.GuardKeys, ledger.GuardLedger} {
			arms = append(arms, arm{f, w, g})
		}
	}
	play := func(a arm) string {
		_, raw := playReplay(t, "gpt-4.1", "T03", 1, "timeout_late", replayDefaults(a.fault, a.window, a.guard, 1))
		return string(ledger.AppendRaw(nil, raw))
	}
	alone := make([]string, len(arms))
	for i, a := range arms {
		alone[i] = play(a)
	}
	for i, a := range arms {
		for j, b := range arms {
			if i == j {
				continue
			}
			play(b)
			if got := play(a); got != alone[i] {
				t.Fatalf("%v after %v differs from %v in order:\n%s\n%s", a, b, a, got, alone[i])
			}
		}
	}
}
