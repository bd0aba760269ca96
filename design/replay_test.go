package design

import (
	"bytes"
	"runtime"
	"slices"
	"testing"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// replayEpisodes simulates and grades the whole replay design at seed.
func replayEpisodes(t testing.TB, seed uint64) []ledger.Episode {
	t.Helper()
	p, err := Compile(Replay())
	if err != nil {
		t.Fatal(err)
	}
	sim := NewSimulator(p, agent.DefaultProfiles(), seed)
	if err := sim.Check(); err != nil {
		t.Fatal(err)
	}
	out := make([]ledger.Episode, 0, p.Len())
	if err := generate(sim, 0, p.Len(), runtime.GOMAXPROCS(0), false, true, func(c *Chunk) error {
		out = append(out, c.Eps...)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// The replay design: 41,265 episodes, every one in the replay column
// group, arms crossed as the manifest says.
func TestReplayPlan(t *testing.T) {
	p, err := Compile(Replay())
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != 41265 {
		t.Errorf("%d episodes, want 41265 (9 models × 131 worlds × 7 agent-side arms × 5 guards)", p.Len())
	}
	if g := p.Groups(); !slices.Equal(g, []string{ledger.GroupReplay}) {
		t.Errorf("groups %v", g)
	}
	arms := map[string]int{}
	ids := map[string]bool{}
	for i := range p.Len() {
		e := p.Episode(i)
		arms[e.Guard+"/"+e.AgentFault+"/"+e.Window]++
		if ids[e.ID()] {
			t.Fatalf("episode id %s twice", e.ID())
		}
		ids[e.ID()] = true
	}
	if len(arms) != 35 {
		t.Errorf("%d arms, want 35", len(arms))
	}
	for a, n := range arms {
		if n != 9*131 {
			t.Errorf("arm %s: %d episodes, want %d", a, n, 9*131)
		}
	}
	paper, err := Compile(Paper())
	if err != nil {
		t.Fatal(err)
	}
	if g := paper.Groups(); g != nil {
		t.Errorf("the paper's plan carries groups %v", g)
	}
}

// worldKey names the world and agent-side arm of an episode apart from its
// guard.
func armKey(e *ledger.Episode, guard string) string {
	return guard + "|" + e.AgentFault + "|" + e.CrashWindow + "|" + e.PairKey
}

// The mechanical identities of the agent-side design, at every seed
// (docs/simulation.md, Agent-side faults: what each guard does with each
// fault):
//
//   - the action ledger admits no duplicate and suppresses nothing, in any
//     world;
//   - no guard answers nothing, so suppresses nothing;
//   - with no guard, a crash before the journal write duplicates exactly
//     when the focal write had committed (or was to) and is not naturally
//     idempotent; a crash after it duplicates exactly when the same world
//     without an agent fault does;
//   - derived keys leak an exact duplicate only where a late commit was
//     still in flight when the proxy read back (Proposition 1); every
//     other duplicate under them is a perturbed re-issue, and a re-plan or
//     a delegation of a focal write that committed duplicates exactly when
//     the re-synthesised write is perturbed;
//   - client keys catch a crash's replay of a write that succeeded (the
//     resumed run keeps its step keys) and nothing of a new run, so a
//     retried run, a sub-agent and a second worker duplicate under them as
//     with no guard;
//   - two workers with no guard duplicate exactly when the task has a
//     write that is not naturally idempotent; a delegation with no guard,
//     exactly when the focal write is not;
//   - without a service fault the paper's guard has nothing ambiguous to
//     read back, so where it fills no key it acts as no guard.
func TestReplayIdentities(t *testing.T) {
	seeds := []uint64{1, 2, 3}
	if testing.Short() {
		seeds = seeds[:1]
	}
	paperTpl := sandbox.Templates()
	natural := func(tool string) bool { t, _ := ledger.ToolByName(tool); return t.Natural }
	committed := func(mode string) bool { m, _ := ledger.FaultByName(mode); return m.Fate != ledger.FateNotExecuted }
	taskHasUnnatural, taskNativelyKeyed := map[string]bool{}, map[string]bool{}
	native, _ := ledger.ContractByName(ledger.ContractNative)
	for _, tpl := range append(paperTpl, sandbox.TemplatesOf(sandbox.SuiteRepeats)...) {
		task, _ := sandbox.NewTask(tpl, 0)
		for _, s := range task.Steps {
			if !natural(s.Tool) {
				taskHasUnnatural[task.ID] = true
			}
			if tool, _ := ledger.ToolByName(s.Tool); native.Honours(tool, s.Platform) {
				taskNativelyKeyed[task.ID] = true
			}
		}
	}
	for _, seed := range seeds {
		eps := replayEpisodes(t, seed)
		byArm := map[string]*ledger.Episode{}
		for i := range eps {
			e := &eps[i]
			byArm[armKey(e, e.Guard)] = e
		}
		bad := 0
		fail := func(e *ledger.Episode, why string) {
			if bad++; bad <= 10 {
				t.Errorf("seed %d: %s: %s (dup %v exact %v perturbed %v suppressed %v)", seed, e.EpisodeID, why, e.Duplicated, e.ExactDuplicated, e.Perturbed, e.Suppressed)
			}
		}
		for i := range eps {
			e := &eps[i]
			paper := slices.Contains(paperTpl, e.Template)
			fault, fm := e.AgentFault, e.FaultMode
			switch e.Guard {
			case ledger.GuardLedger:
				if e.Duplicated || e.Suppressed || e.ErrorReplayed {
					fail(e, "the action ledger let a duplicate through or suppressed work")
				}
			case ledger.GuardNone:
				if e.Suppressed || e.ErrorReplayed || e.GuardAnswers != 0 {
					fail(e, "no guard answered a call")
				}
				if fault == ledger.AgentFaultCrashResume && paper {
					want := committed(fm) && !natural(e.FocalWrite)
					if e.CrashWindow == ledger.WindowAfterJournal {
						want = byArm[ledger.GuardNone+"|"+ledger.AgentFaultNone+"||"+e.PairKey].Duplicated
					}
					if e.Duplicated != want {
						fail(e, "a crash's duplicate is not its window's and the write's fate")
					}
				}
				if fm == ledger.FaultNone && fault == ledger.AgentFaultConcurrent && e.Duplicated != taskHasUnnatural[e.Task] {
					fail(e, "two workers with no guard")
				}
				if fm == ledger.FaultNone && fault == ledger.AgentFaultDelegate && paper && e.Duplicated != !natural(e.FocalWrite) {
					fail(e, "a delegation with no guard")
				}
			case ledger.GuardDerived:
				if e.ExactDuplicated && !slices.Contains(ledger.LateModes, fm) {
					fail(e, "derived keys let an exact duplicate through without a late commit")
				}
				if e.Duplicated && !e.ExactDuplicated && !e.Perturbed {
					fail(e, "a duplicate of distinct arguments without a perturbed re-issue")
				}
				if fm == ledger.FaultNone && paper && (fault == ledger.AgentFaultReplan || fault == ledger.AgentFaultDelegate) &&
					e.Duplicated != (e.Perturbed && !natural(e.FocalWrite)) {
					fail(e, "a re-synthesised write under derived keys duplicates iff perturbed")
				}
			case ledger.GuardPaper:
				// With no service fault nothing is ambiguous: the paper's
				// guard forwards every write as it is, so where it fills no
				// key (no natively keyed write) it acts as no guard.
				if fm == ledger.FaultNone && !taskNativelyKeyed[e.Task] {
					if none := byArm[ledger.GuardNone+"|"+fault+"|"+e.CrashWindow+"|"+e.PairKey]; none == nil || none.Duplicated != e.Duplicated || e.GuardAnswers != 0 {
						fail(e, "the paper's guard without an ambiguous answer should act as no guard")
					}
				}
			case ledger.GuardKeys:
				if fm == ledger.FaultNone && fault == ledger.AgentFaultCrashResume && paper && e.Duplicated {
					fail(e, "client keys let a crash's replay of a success through")
				}
				if fm == ledger.FaultNone && paper && (fault == ledger.AgentFaultRunRetry || fault == ledger.AgentFaultDelegate || fault == ledger.AgentFaultConcurrent) {
					if none := byArm[ledger.GuardNone+"|"+fault+"|"+e.CrashWindow+"|"+e.PairKey]; none == nil || none.Duplicated != e.Duplicated {
						fail(e, "client keys of a new run should act as no guard")
					}
				}
			}
		}
	}
}

// Same seed, same bytes, whatever the workers and GOMAXPROCS: the
// coroutines of two workers and the guards' stores are deterministic.
func TestReplayDeterminism(t *testing.T) {
	p, err := Compile(Replay())
	if err != nil {
		t.Fatal(err)
	}
	sim := NewSimulator(p, agent.DefaultProfiles(), 7)
	// Every 7th chunk of the design: all arms and guards appear.
	run := func(procs, jobs int) []byte {
		old := runtime.GOMAXPROCS(procs)
		defer runtime.GOMAXPROCS(old)
		var buf bytes.Buffer
		for lo := 0; lo < p.Len(); lo += 7 * chunkSize {
			hi := min(lo+chunkSize, p.Len())
			if err := Generate(sim, lo, hi, jobs, true, func(c *Chunk) error {
				buf.Write(c.Buf)
				for i := range c.Eps {
					buf.WriteString(c.Eps[i].Recovery)
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		return buf.Bytes()
	}
	a, b := run(1, 1), run(4, 3)
	if !bytes.Equal(a, b) {
		t.Fatal("GOMAXPROCS 1, one job and GOMAXPROCS 4, three jobs give other bytes")
	}
	if len(a) < 1e6 {
		t.Fatalf("only %d bytes simulated", len(a))
	}
}
