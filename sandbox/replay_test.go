package sandbox

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/ledger"
)

// The paper's suite is what a design that names no template gets; the
// repeats suite is named. Every paper task wants each action once, every
// repeats task wants one action twice with the same arguments.
func TestSuites(t *testing.T) {
	paper := Templates()
	if len(paper) != 12 || paper[0] != "T01" || paper[11] != "T12" {
		t.Fatalf("Templates() = %v, want T01…T12", paper)
	}
	rep := TemplatesOf(SuiteRepeats)
	if !slices.Equal(rep, []string{"T13", "T14"}) {
		t.Fatalf("TemplatesOf(repeats) = %v", rep)
	}
	for _, tpl := range append(paper, rep...) {
		for inst := range Instances(tpl) {
			task, err := NewTask(tpl, inst)
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]int{}
			repeats := 0
			for _, s := range task.Steps {
				for _, id := range s.ids {
					if want[id]++; want[id] == 2 {
						repeats++
					}
				}
			}
			if paperTpl := slices.Contains(paper, tpl); paperTpl != (repeats == 0) {
				t.Errorf("%s: %d repeated actions", task.ID, repeats)
			}
		}
	}
}

// Two texts of one target that a task wants apart are never close enough
// for the similarity rule to take one for the other (the largest overlap
// is T02's two weibo reminders, 0.47); the data loader refuses a task
// whose texts are, or whose repeated action changes its arguments.
func TestRequiredTextsDistinct(t *testing.T) {
	worst := 0.0
	for _, tpl := range append(Templates(), TemplatesOf(SuiteRepeats)...) {
		for inst := range Instances(tpl) {
			task, _ := NewTask(tpl, inst)
			for i := range task.Steps {
				for j := i + 1; j < len(task.Steps); j++ {
					a, b := &task.Steps[i], &task.Steps[j]
					ta, xa, fa := fuzzyText(a.tool, a.Args)
					tb, xb, _ := fuzzyText(b.tool, b.Args)
					if a.tool == b.tool && fa && ta == tb && xa != xb {
						worst = math.Max(worst, Similarity(xa, xb))
					}
				}
			}
		}
	}
	if worst >= 0.5 {
		t.Errorf("distinct required texts of one target up to %.2f similar, want < 0.5", worst)
	}
	for _, c := range []struct{ from, to, want string }{
		{`"text": "Reminder: {event} opens on {day} at 10:00. Bring your questions: https://example.com/sessions"}},
        {"tool": "social_publish", "args": {"platform": "linkedin", "text": "Reminder: {event} opens on {day} at 10:00. Bring your questions: https://example.com/sessions"}}`,
			`"text": "Reminder: {event} opens on {day} at 10:00. Bring your questions: https://example.com/sessions"}},
        {"tool": "social_publish", "args": {"platform": "linkedin", "text": "Reminder: {event} opens on {day} at 10:00. Bring all your questions: https://example.com/sessions"}}`,
			"texts of one target"},
		{`"description": "{plan} installment"}},
        {"tool": "billing_create_charge", "args": {"customer_id": "{customer}", "amount_cents": "{amount}", "description": "{plan} installment"}}`,
			`"description": "{plan} installment"}},
        {"tool": "billing_create_charge", "args": {"customer_id": "{customer}", "amount_cents": "{amount}", "description": "{plan} second installment"}}`,
			"one logical action with other arguments"},
	} {
		data := string(DefaultTaskData())
		if !strings.Contains(data, c.from) {
			t.Fatalf("the task data no longer holds %q", c.from[:40])
		}
		restore, err := UseTaskData([]byte(strings.Replace(data, c.from, c.to, 1)))
		if err == nil {
			restore()
			t.Errorf("changed data loaded; want an error containing %q", c.want)
		} else if !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// Similarity is the Jaccard index of the word sets.
func TestSimilarity(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want float64
	}{
		{"Aurora 2.0 is out today", "aurora 2.0 is OUT today!", 1},
		{"one two three four", "one two three five", 3.0 / 5},
		{"", "", 1},
		{"a b", "", 0},
		{"Weekly digest, week 19", "Weekly Digest – Week 19", 1},
		// Words are a set: repeats and case count once.
		{"go go GO now", "go now now", 1},
		{"Ünïcode café", "ünïcode CAFÉ latte", 2.0 / 3},
		{"a\xffb", "a b", 1}, // invalid UTF-8 separates words
		// More words than a set's stack storage.
		{strings.Repeat("w ", 5) + "a b c d e f g h i j k l m n o p q r s t u v w x y z 1 2 3 4 5 6 7 8 9", "a b c d e f g h i j k l m n o p q r s t u v w x y z 1 2 3 4 5 6 7 8 9 0", 35.0 / 36},
	} {
		if got := Similarity(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("Similarity(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// replayWorld is a world of template tpl (instance 0) with an episode of
// the replay design graded at the end.
func replayWorld(t *testing.T, tpl string, fault string) *World {
	t.Helper()
	return world(t, tpl, 0, fault, ledger.ContractNative)
}

func gradeReplayed(t *testing.T, w *World) ledger.Episode {
	t.Helper()
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	fillDesign(raw)
	raw.AgentFault, raw.Guard = ledger.AgentFaultNone, ledger.GuardNone
	ep, err := Grade(raw)
	if err != nil {
		t.Fatal(err)
	}
	return ep
}

// A task that wants one charge twice: two commits are its success, a third
// is a duplicate (exact when its arguments repeat one of the others'), one
// is a failure, suppressed when the guard answered the other attempt, lost
// to an error when the guard replayed an error to it.
func TestGradeRepeats(t *testing.T) {
	charge := func(w *World) map[string]any { return w.Task().Steps[0].Args }
	reworded := func(w *World) map[string]any {
		a := maps.Clone(charge(w))
		a["description"] = "installment for the " + a["description"].(string)
		return a
	}
	cases := []struct {
		name  string
		play  func(w *World)
		check func(ep ledger.Episode) bool
	}{
		{"two commits", func(w *World) { w.Call("billing_create_charge", charge(w)); w.Call("billing_create_charge", charge(w)) },
			func(ep ledger.Episode) bool {
				return ep.TaskSuccess && !ep.Duplicated && ep.EOS && ep.ExpectedCommits == 2 && ep.FocalCommits == 2 && !ep.Suppressed
			}},
		{"three exact", func(w *World) {
			for range 3 {
				w.Call("billing_create_charge", charge(w))
			}
		}, func(ep ledger.Episode) bool { return ep.Duplicated && ep.ExactDuplicated && !ep.Perturbed }},
		{"third reworded", func(w *World) {
			w.Call("billing_create_charge", charge(w))
			w.Call("billing_create_charge", charge(w))
			w.Call("billing_create_charge", reworded(w))
		}, func(ep ledger.Episode) bool { return ep.Duplicated && !ep.ExactDuplicated && ep.Perturbed }},
		{"one commit", func(w *World) { w.Call("billing_create_charge", charge(w)) },
			func(ep ledger.Episode) bool { return !ep.TaskSuccess && !ep.Suppressed && !ep.ErrorReplayed }},
		{"second replayed by the guard", func(w *World) {
			w.Call("billing_create_charge", charge(w))
			w.Answered("billing_create_charge", charge(w), ledger.OutcomeGuardReplay)
		}, func(ep ledger.Episode) bool {
			return !ep.TaskSuccess && ep.Suppressed && !ep.ErrorReplayed && ep.GuardAnswers == 1 && ep.ToolCalls == 2
		}},
		{"second lost to a replayed error", func(w *World) {
			w.Call("billing_create_charge", charge(w))
			w.Answered("billing_create_charge", charge(w), ledger.OutcomeGuardError)
		}, func(ep ledger.Episode) bool { return !ep.TaskSuccess && !ep.Suppressed && ep.ErrorReplayed }},
		{"a replay that cost nothing", func(w *World) {
			w.Call("billing_create_charge", charge(w))
			w.Call("billing_create_charge", charge(w))
			w.Answered("billing_create_charge", charge(w), ledger.OutcomeGuardReplay)
		}, func(ep ledger.Episode) bool { return ep.EOS && !ep.Suppressed && ep.GuardAnswers == 1 }},
	}
	for _, c := range cases {
		w := replayWorld(t, "T13", ledger.FaultNone)
		c.play(w)
		if ep := gradeReplayed(t, w); !c.check(ep) {
			t.Errorf("%s: %+v", c.name, ep)
		}
	}
}

// A reworded post is the post it rewords: a duplicate, not an effect
// nobody asked for; the agent-side columns are graded only for an episode
// that carries agent_fault, so the paper's grades keep their bytes.
func TestGradeReworded(t *testing.T) {
	w := replayWorld(t, "T01", ledger.FaultNone)
	s := w.Task().Steps[0]
	w.Call(s.Tool, s.Args)
	a := maps.Clone(s.Args)
	a["text"] = "Today: " + a["text"].(string)
	if sim := Similarity(a["text"].(string), s.Args["text"].(string)); sim < SimilarText {
		t.Fatalf("rewording too far: %.2f", sim)
	}
	w.Call(s.Tool, a)
	raw := w.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	fillDesign(raw)
	paper, err := Grade(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !paper.Duplicated || paper.FocalCommits != 2 || paper.Perturbed || paper.ExactDuplicated {
		t.Errorf("paper grade: %+v", paper)
	}
	raw.AgentFault, raw.Guard = ledger.AgentFaultReplan, ledger.GuardNone
	ep, err := Grade(raw)
	if err != nil {
		t.Fatal(err)
	}
	if !ep.Duplicated || !ep.Perturbed || ep.ExactDuplicated {
		t.Errorf("replay grade: %+v", ep)
	}
	// An unrelated text on the same platform stays an unrequested post.
	w = replayWorld(t, "T01", ledger.FaultNone)
	for _, st := range w.Task().Steps {
		w.Call(st.Tool, st.Args)
	}
	w.Call(s.Tool, map[string]any{"platform": "mastodon", "text": "Something else entirely"})
	if ep := gradeReplayed(t, w); ep.EOS || ep.Duplicated || !ep.TaskSuccess {
		t.Errorf("unrelated post: %+v", ep)
	}
}

// Start sends and executes a call without moving the clock; Call is Start
// and the advance to the answer, so both leave the same ledger.
func TestStartIsCallWithoutTheAdvance(t *testing.T) {
	a := replayWorld(t, "T07", ledger.FaultTimeoutLate)
	b := replayWorld(t, "T07", ledger.FaultTimeoutLate)
	s := a.Task().Steps[0]
	for _, w := range []*World{a, b} {
		w.Advance(5)
	}
	oa := a.Call(s.Tool, s.Args)
	ob := b.Start(s.Tool, s.Args)
	if b.Now() != 5 || a.Now() != 5+oa.LatencyS {
		t.Fatalf("clocks: Start left %v, Call %v", b.Now(), a.Now())
	}
	b.Advance(ob.LatencyS)
	if !reflect.DeepEqual(oa, ob) {
		t.Errorf("observations differ: %+v and %+v", oa, ob)
	}
	ra := a.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	rb := b.Finish(ledger.FinalReport{Status: ledger.StatusCompleted})
	if !reflect.DeepEqual(ra, rb) {
		t.Errorf("ledgers differ:\n%+v\n%+v", ra, rb)
	}
}
