package mcp

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/mcp/internal/scripted"
	"github.com/limbo-toolkit/limbo/mcp/proxy"
)

// noFinish is a door that leaves without serve's finish: through the
// proxy, serve's finish would end the upstream's episode before the late
// and redelivered copies the proxy delivers when the session ends.
type noFinish struct{ *scripted.Client }

func (noFinish) Finish(ledger.FinalReport) error { return nil }

// crossWorlds are the worlds of the cross-check: every fourth world of
// the default plan's faults that the proxy injects alike (no heavy tail),
// each under the blind and the verifying policy.
func crossWorlds(t *testing.T) (*Plan, []string) {
	t.Helper()
	def, err := DefaultPlan(7, "m", "h")
	if err != nil {
		t.Fatal(err)
	}
	var eps []Episode
	var pols []string
	n := 0
	for _, ep := range def.Episodes {
		if ep.FaultMode == ledger.FaultTimeoutLateTail || ep.FaultMode == ledger.FaultNone {
			continue
		}
		if n++; n%4 != 1 {
			continue
		}
		for _, pol := range []string{scripted.BlindRetry, scripted.VerifyRetry} {
			e := ep
			e.EpisodeID, e.Model, e.Annotations = "", pol, true
			e.SeedFrom(7)
			eps = append(eps, e)
			pols = append(pols, pol)
		}
	}
	plan, err := NewPlan(eps)
	if err != nil {
		t.Fatal(err)
	}
	return plan, pols
}

// TestProxyMatchesServe is the proxy's cross-check: for every world of a
// plan of about 100 episodes, the scripted policy is played twice: (A)
// through the proxy, which injects the world's fault in front of serve
// serving the same world with no fault, graded by the rules the proxy's
// line carries (examples/proxy/sandbox.yaml); (B) against serve injecting
// the fault itself, graded by the sandbox. The two grades agree (the
// report's fields aside: see docs/proxy.md).
func TestProxyMatchesServe(t *testing.T) {
	t.Parallel()
	bin := buildBins(t)
	plan, pols := crossWorlds(t)
	if testing.Short() {
		plan.Episodes, plan.tasks, pols = plan.Episodes[:12], plan.tasks[:12], pols[:12]
	}
	contract, err := os.ReadFile(filepath.Join("..", "examples", "proxy", "sandbox.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	const think = 10
	ctx := testContext(t)
	dir := t.TempDir()
	compared := 0
	for i := range plan.Episodes {
		ep := plan.Episodes[i]
		task := plan.Task(i)
		focal := task.Steps[ep.FocalIndex]
		occurrence := 1
		for _, st := range task.Steps[:ep.FocalIndex] {
			if st.Tool == focal.Tool {
				occurrence++
			}
		}

		// (B) serve injects the fault.
		served := servedGrade(t, ctx, plan, i, pols[i], think)

		// (A) the proxy injects it in front of serve with none.
		up := ep
		up.FaultMode, up.DelayS, up.EpisodeID = ledger.FaultNone, 0, ""
		upPlan, err := NewPlan([]Episode{up})
		if err != nil {
			t.Fatal(err)
		}
		u, err := proxy.Connect(ctx, proxy.UpstreamSpec{Command: []string{filepath.Join(bin, "serve"), "--plan", writePlan(t, upPlan),
			"--ledger", filepath.Join(dir, fmt.Sprintf("up-%d.jsonl", i)), "--think-s", fmt.Sprint(think)}})
		if err != nil {
			t.Fatal(err)
		}
		c, err := proxy.ParseContract("sandbox.yaml", contract)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Resolve(u.Tools); err != nil {
			t.Fatal(err)
		}
		pe := proxy.Episode{Task: ep.Template, Tool: focal.Tool, Occurrence: occurrence, FaultMode: ep.FaultMode, Model: pols[i]}
		if err := pe.Normalize(false); err != nil {
			t.Fatal(err)
		}
		var proxied ledger.Episode
		p, err := proxy.New(proxy.Options{Upstream: u, Contract: c, Single: pe, OnEpisode: func(_ *ledger.RawEpisode, g ledger.Episode) { proxied = g }})
		if err != nil {
			t.Fatal(err)
		}
		ct, st := sdk.NewInMemoryTransports()
		done := make(chan error, 1)
		go func() { done <- p.ServeStdio(ctx, st) }()
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "cross", Version: "0"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := scripted.Play(noFinish{&scripted.Client{Ctx: ctx, Session: cs}}, task, ep.Contract, pols[i]); err != nil {
			t.Fatalf("%s: through the proxy: %v", ep.EpisodeID, err)
		}
		cs.Close()
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		u.Close()

		for _, f := range []struct {
			name string
			a, b any
		}{
			{"duplicated", proxied.Duplicated, served.Duplicated},
			{"focal_commits", proxied.FocalCommits, served.FocalCommits},
			{"task_success", proxied.TaskSuccess, served.TaskSuccess},
			{"eos", proxied.EOS, served.EOS},
			{"expected_commits", proxied.ExpectedCommits, served.ExpectedCommits},
			{"fault_fired", proxied.FaultFired, served.FaultFired},
			{"recovery", proxied.Recovery, served.Recovery},
			{"first_move", proxied.FirstMove, served.FirstMove},
		} {
			if f.a != f.b {
				t.Errorf("%s (%s): %s: proxy %v, serve %v", ep.EpisodeID, pols[i], f.name, f.a, f.b)
			}
		}
		compared++
	}
	t.Logf("%d episodes compared", compared)
}

// servedGrade plays the policy against serve (in process, its stdio on
// pipes) serving plan entry i with its fault, and returns serve's grade.
func servedGrade(t *testing.T, ctx context.Context, plan *Plan, i int, policy string, think float64) ledger.Episode {
	t.Helper()
	one, err := NewPlan([]Episode{plan.Episodes[i]})
	if err != nil {
		t.Fatal(err)
	}
	l, err := OpenLedger(filepath.Join(t.TempDir(), "served.jsonl"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var got *Result
	srv := NewServer(one, l, Options{Limits: Limits{ThinkS: think}, OnResult: func(r *Result) { got = r }})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		_, err := srv.ServeStdio(ctx, inR, outW)
		outW.Close()
		done <- err
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "cross", Version: "0"}, nil).Connect(ctx, &sdk.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := scripted.Play(&scripted.Client{Ctx: ctx, Session: cs}, one.Task(0), one.Episodes[0].Contract, policy); err != nil {
		t.Fatalf("%s: against serve: %v", one.Episodes[0].EpisodeID, err)
	}
	cs.Close()
	inW.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatalf("%s: serve recorded nothing", one.Episodes[0].EpisodeID)
	}
	return got.Graded
}
