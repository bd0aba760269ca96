package mcp

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/internal/scripted"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// policyPlan is every fault mode on every instance-0 focal write it
// applies to (the sandbox refuses the others), once per scripted policy;
// the policy is the model label, so episodes stay distinct. With short,
// only the first write of each template (and the batch write).
func policyPlan(t testing.TB, conditions []string, short bool) (*Plan, []string) {
	t.Helper()
	var eps []Episode
	var policies []string
	for _, tmpl := range sandbox.Templates() {
		task, err := sandbox.NewTask(tmpl, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range task.Steps {
			if short && st.Index > 0 {
				break
			}
			for _, mode := range ledger.FaultNames(func(m ledger.FaultMode) bool { return m.InjectedBy(ledger.SiteSandbox) }) {
				for ci, cond := range conditions {
					if short && ci > 0 && !shortTemplates[tmpl] {
						continue
					}
					for _, pol := range scripted.Policies {
						ep := Episode{Experiment: "test", Model: pol, Harness: "scripted", Template: tmpl, FocalIndex: st.Index,
							FaultMode: mode, Condition: cond}
						if mode == ledger.FaultTimeoutLateTail {
							ep.DelayS = 400
						}
						ep.SeedFrom(42)
						probe := ep
						tk, err := probe.Normalize()
						if err != nil {
							t.Fatal(err)
						}
						if _, err := sandbox.NewWorld(probe.Spec(tk)); err != nil {
							continue // mode does not apply to this write
						}
						eps = append(eps, ep)
						policies = append(policies, pol)
					}
				}
			}
		}
	}
	plan, err := NewPlan(eps)
	if err != nil {
		t.Fatal(err)
	}
	return plan, policies
}

// shortTemplates get the conditions after the first in short mode: a
// social, a tickets, the batch and a data template.
var shortTemplates = map[string]bool{"T01": true, "T05": true, "T09": true, "T10": true}

// checkLedger compares every recorded episode with the in-process
// reference of the same plan entry, field by field.
func checkLedger(t *testing.T, plan *Plan, policies []string, path string, think float64, want int) {
	t.Helper()
	got := readLedger(t, path)
	if len(got) != want {
		t.Fatalf("ledger has %d episodes, want %d", len(got), want)
	}
	byID := map[string]int{}
	for i := range plan.Episodes {
		byID[plan.Episodes[i].EpisodeID] = i
	}
	seen := map[string]bool{}
	for _, g := range got {
		i, ok := byID[g.EpisodeID]
		if !ok {
			t.Fatalf("ledger has unplanned episode %q", g.EpisodeID)
		}
		if seen[g.EpisodeID] {
			t.Fatalf("episode %q recorded twice", g.EpisodeID)
		}
		seen[g.EpisodeID] = true
		ep := plan.Episodes[i]
		ref := reference(t, &ep, plan.Task(i), policies[i], think)
		if d := diffEpisodes(g, ref); len(d) > 0 {
			t.Errorf("%s: served episode differs from the in-process one:\n%v", g.EpisodeID, d)
		}
	}
}

// TestHTTPMatchesInProcess plays the scripted policies through every fault
// mode over loopback streamable HTTP, under vanilla and under the two
// conditions with server middleware (guard, sdk-retry), and compares the
// ledger with the in-process sandbox.
func TestHTTPMatchesInProcess(t *testing.T) {
	t.Parallel()
	const think = 7
	plan, policies := policyPlan(t, []string{"vanilla", "guard", "sdk-retry"}, testing.Short())
	srv, url, path := httpServer(t, plan, Options{Limits: Limits{ThinkS: think}})
	ctx := testContext(t)
	for i := range plan.Episodes {
		version := legacy
		if i == 0 {
			version = "" // the SDK's newest: server/discover, then the initialize fallback
		}
		if err := playHTTP(ctx, url, plan.Episodes[i].Contract, policies[i], version); err != nil {
			t.Fatalf("episode %d (%s): %v", i, plan.Episodes[i].EpisodeID, err)
		}
	}
	select {
	case <-srv.Done():
	case <-time.After(10 * time.Second):
		t.Fatalf("server not done: %d pending", srv.Pending())
	}
	checkLedger(t, plan, policies, path, think, plan.Len())
}

// TestStdioMatchesInProcess does the same over stdio against the built
// server binary, one process per episode, through every fault mode.
func TestStdioMatchesInProcess(t *testing.T) {
	t.Parallel()
	bin := buildBins(t)
	plan, policies := policyPlan(t, []string{"vanilla"}, true)
	// One focal write per mode keeps the process count small.
	var eps []Episode
	var pols []string
	seen := map[string]bool{}
	for i, ep := range plan.Episodes {
		k := ep.FaultMode + "/" + policies[i]
		if seen[k] {
			continue
		}
		seen[k] = true
		eps = append(eps, ep)
		pols = append(pols, policies[i])
	}
	if testing.Short() {
		// A process per episode is the slow part: in short mode a few
		// modes suffice to show stdio records what in-process play does.
		eps, pols = eps[:min(len(eps), 6)], pols[:min(len(pols), 6)]
	}
	plan, err := NewPlan(eps)
	if err != nil {
		t.Fatal(err)
	}
	planPath := writePlan(t, plan)
	ledgerPath := filepath.Join(t.TempDir(), "stdio.jsonl")
	ctx := testContext(t)
	const think = 3
	for i := range plan.Episodes {
		cmd := exec.Command(filepath.Join(bin, "serve"), "--plan", planPath, "--ledger", ledgerPath, "--think-s", "3")
		client := sdk.NewClient(&sdk.Implementation{Name: "limbo-test", Version: "v0"}, nil)
		cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("episode %d: connect: %v", i, err)
		}
		task, err := scripted.SessionTask(ctx, cs)
		if err != nil {
			t.Fatal(err)
		}
		if err := scripted.Play(&scripted.Client{Ctx: ctx, Session: cs}, task, plan.Episodes[i].Contract, pols[i]); err != nil {
			t.Fatalf("episode %d: %v", i, err)
		}
		if err := cs.Close(); err != nil {
			t.Logf("episode %d: close: %v", i, err)
		}
	}
	checkLedger(t, plan, pols, ledgerPath, think, plan.Len())
}
