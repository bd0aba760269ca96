package sandbox_test

import (
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// TestFigure1Traces checks the sandbox traces Figure 1 draws: the worlds
// look the same to the client until the late commit (Proposition 1), the
// fresh re-issue duplicates only in W_late, and the reused key leaves one
// charge in both worlds (Proposition 2). It also pins the roles, origins and
// the verdict in words that Figure 1 and the viewer show.
func TestFigure1Traces(t *testing.T) {
	trs, err := sandbox.Figure1Traces()
	if err != nil {
		t.Fatal(err)
	}
	if len(trs) != 4 {
		t.Fatalf("%d traces, want 4", len(trs))
	}
	// The script makes only the focal write, so the task's other charge
	// (step 1) is never made.
	const absentReason = "task not done: no commit of the charge of step 1; the agent reported completed anyway (overclaim)"
	want := []struct {
		world, client string
		commits       int
		roles         []string
		origins       []string
		reason        string
	}{
		{"W_absent", "fresh re-issue", 1,
			[]string{sandbox.RoleFocal, sandbox.RoleWait, sandbox.RoleReadBack, sandbox.RoleReissue},
			[]string{"call 4"},
			absentReason},
		{"W_late", "fresh re-issue", 2,
			[]string{sandbox.RoleFocal, sandbox.RoleWait, sandbox.RoleReadBack, sandbox.RoleReissue},
			[]string{"call 4", "late commit of call 1 (δ = 90 s)"},
			"two charges for one logical charge: call 4 and call 1 (late commit); task not done: no commit of the charge of step 1; the agent reported completed anyway (overclaim)"},
		{"W_absent", "same key", 1,
			[]string{sandbox.RoleFocal, sandbox.RoleWait, sandbox.RoleReadBack, sandbox.RoleReissue},
			[]string{"call 4"},
			absentReason},
		{"W_late", "same key", 1,
			[]string{sandbox.RoleFocal, sandbox.RoleWait, sandbox.RoleReadBack, sandbox.RoleReissue},
			[]string{"late commit of call 1 (δ = 90 s)"},
			absentReason},
	}
	for i, w := range want {
		tr := trs[i]
		if tr.World != w.world || tr.Client != w.client || tr.Commits != w.commits {
			t.Errorf("trace %d: %s/%s with %d commits, want %s/%s with %d", i, tr.World, tr.Client, tr.Commits, w.world, w.client, w.commits)
		}
		var roles, origins []string
		for _, c := range tr.Calls {
			roles = append(roles, c.Role)
		}
		for _, e := range tr.Effects {
			if e.Focal {
				origins = append(origins, e.Origin)
			}
		}
		if strings.Join(roles, ",") != strings.Join(w.roles, ",") {
			t.Errorf("trace %d: roles %q, want %q", i, roles, w.roles)
		}
		if strings.Join(origins, ",") != strings.Join(w.origins, ",") {
			t.Errorf("trace %d: origins %q, want %q", i, origins, w.origins)
		}
		if tr.Reason != w.reason {
			t.Errorf("trace %d: reason %q, want %q", i, tr.Reason, w.reason)
		}
		if tr.Fault.Seq != 1 || !tr.Calls[0].Faulted || tr.Calls[0].Observed != "timeout after 30 s (no response)" {
			t.Errorf("trace %d: fault on call %d, first call %+v", i, tr.Fault.Seq, tr.Calls[0])
		}
	}
	for _, pair := range [][2]int{{0, 1}, {2, 3}} {
		a, b := trs[pair[0]], trs[pair[1]]
		// Same calls, times and outcomes before the late commit at 90 s.
		for i := range min(len(a.Calls), len(b.Calls)) {
			ca, cb := a.Calls[i], b.Calls[i]
			if ca.TS >= 90 {
				break
			}
			if ca.Tool != cb.Tool || ca.TS != cb.TS {
				t.Errorf("%s: call %d differs between worlds: %s@%v vs %s@%v", a.Client, i, ca.Tool, ca.TS, cb.Tool, cb.TS)
			}
			// The keyed re-issue meets the held original (409) only in W_late.
			if ca.Outcome != cb.Outcome && !(a.Client == "same key" && i == len(a.Calls)-1) {
				t.Errorf("%s: call %d outcome %s vs %s", a.Client, i, ca.Outcome, cb.Outcome)
			}
		}
	}
}

// TestTraceReasonAgreesWithGrade traces a sample of the paper's simulated
// episodes and checks that the verdict in words says what the grader
// decided: a repeated logical action exactly when duplicated, "task not
// done" exactly when the task failed, "overclaim" exactly when it did, and
// that the repeats it marks are the commits beyond the first.
func TestTraceReasonAgreesWithGrade(t *testing.T) {
	plan, err := design.Compile(design.Paper())
	if err != nil {
		t.Fatal(err)
	}
	sim := design.NewSimulator(plan, agent.DefaultProfiles(), 1)
	step := 37
	if testing.Short() {
		step = 371
	}
	seen := map[string]int{}
	for i := 0; i < plan.Len(); i += step {
		raw, err := sim.Episode(i)
		if err != nil {
			t.Fatal(err)
		}
		ep, err := sandbox.Grade(raw)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := sandbox.TraceOf(raw, &ep)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Calls) != len(raw.Calls) || len(tr.Effects) != len(raw.Effects) {
			t.Fatalf("%s: trace has %d calls, %d effects; ledger %d, %d", ep.EpisodeID, len(tr.Calls), len(tr.Effects), len(raw.Calls), len(raw.Effects))
		}
		has := func(s string) bool { return strings.Contains(tr.Reason, s) }
		if has("for one logical") != ep.Duplicated {
			t.Errorf("%s: duplicated %v, reason %q", ep.EpisodeID, ep.Duplicated, tr.Reason)
		}
		if has("task not done") != !ep.TaskSuccess {
			t.Errorf("%s: task_success %v, reason %q", ep.EpisodeID, ep.TaskSuccess, tr.Reason)
		}
		if has("overclaim") != ep.Overclaim {
			t.Errorf("%s: overclaim %v, reason %q", ep.EpisodeID, ep.Overclaim, tr.Reason)
		}
		if has("exactly once") != ep.EOS {
			t.Errorf("%s: eos %v, reason %q", ep.EpisodeID, ep.EOS, tr.Reason)
		}
		repeats, focal := 0, 0
		for _, e := range tr.Effects {
			if e.Repeat {
				repeats++
			}
			if e.Focal && !e.Absorbed {
				focal++
			}
		}
		if (repeats > 0) != ep.Duplicated || tr.Commits != focal {
			t.Errorf("%s: %d repeats, %d focal commits (trace says %d); graded duplicated %v", ep.EpisodeID, repeats, focal, tr.Commits, ep.Duplicated)
		}
		if ep.FaultFired && ep.FaultMode != ledger.FaultNone && tr.Fault.Seq == 0 {
			t.Errorf("%s: fault %s fired but no call carries it", ep.EpisodeID, ep.FaultMode)
		}
		seen[ep.FaultMode]++
	}
	if len(seen) < 8 {
		t.Errorf("sample covers only fault modes %v", seen)
	}
}
