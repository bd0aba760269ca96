package proxy

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/limbo-toolkit/limbo/ledger"
)

// TestFaultWorlds: a client that re-sends a write blindly after an error
// duplicates it exactly in the worlds where the first copy committed
// (_post, late, redelivery) and never where it did not (_pre, none); the
// ledger's executions are the upstream's own rows, and the observation is
// serve's.
func TestFaultWorlds(t *testing.T) {
	for _, c := range []struct {
		mode      string
		dup       bool
		rows      int
		observed  string // the first answer's prefix
		recovered string
	}{
		{ledger.FaultNone, false, 1, "inserted a", ledger.RecoveryNone},
		{ledger.FaultTimeoutPre, false, 1, `{"outcome":"timeout","error":"request timed out after 30 s (no response received)"`, ledger.RecoveryBlindRetry},
		{ledger.FaultTimeoutPost, true, 2, `{"outcome":"timeout","error":"request timed out after 30 s (no response received)"`, ledger.RecoveryBlindRetry},
		{ledger.FaultTimeoutLate, true, 2, `{"outcome":"timeout"`, ledger.RecoveryBlindRetry},
		{ledger.FaultTimeoutLateTail, true, 2, `{"outcome":"timeout"`, ledger.RecoveryBlindRetry},
		{ledger.FaultHTTP500Pre, false, 1, `{"outcome":"http500","error":"internal server error"`, ledger.RecoveryBlindRetry},
		{ledger.FaultHTTP500Post, true, 2, `{"outcome":"http500","error":"internal server error"`, ledger.RecoveryBlindRetry},
		{ledger.FaultRedelivery, true, 2, "inserted a", ledger.RecoveryNone},
	} {
		t.Run(c.mode, func(t *testing.T) {
			eachPath(t, func(t *testing.T, connect func(testing.TB) (*store, *Upstream)) {
				st, up := connect(t)
				f := startProxy(t, up, storeContract, Episode{Tool: "insert", FaultMode: c.mode, Model: "m", Task: "store"}, nil)
				first, _ := blindRetry(t, f.cs, "insert", map[string]any{"name": "a"})
				if !strings.HasPrefix(first, c.observed) {
					t.Errorf("first answer %q, want %s…", first, c.observed)
				}
				callText(t, f.cs, "finish", map[string]any{"status": "completed", "uncertainties": []string{}})
				g := f.close(t)
				if g.ep.Duplicated != c.dup || !g.ep.FaultFired || g.ep.Recovery != c.recovered {
					t.Errorf("duplicated %v fired %v recovery %s, want %v true %s", g.ep.Duplicated, g.ep.FaultFired, g.ep.Recovery, c.dup, c.recovered)
				}
				if n := st.count("a"); n != c.rows || int(g.ep.FocalCommits) != c.rows || len(g.raw.Effects) != c.rows {
					t.Errorf("upstream has %d rows, the ledger %d commits in %d effects, want %d", n, g.ep.FocalCommits, len(g.raw.Effects), c.rows)
				}
				// The read-back saw what the grade counts.
				if g.ep.Extra["verify"] != ledger.VerifyAgree {
					t.Errorf("verify %q: %+v", g.ep.Extra["verify"], g.raw.Rules.Verify)
				}
				if g.ep.PairKey != "m/store/0/insert#0/"+c.mode || g.ep.Task != "store#0" || g.ep.FocalWrite != "insert" {
					t.Errorf("design: pair key %s task %s focal %s", g.ep.PairKey, g.ep.Task, g.ep.FocalWrite)
				}
				if c.mode == ledger.FaultTimeoutLateTail && !(g.ep.DelayS >= 0.04 && g.ep.DelayS <= 7.2) {
					t.Errorf("tail delay %v s, want the law's 40..7200 s scaled by 1e-3", g.ep.DelayS)
				}
				// The ledger line is read back and graded the same, without
				// the sandbox.
				var read []ledger.Episode
				if err := ledger.ReadEpisodes(f.ledger, ledger.ReadOptions{}, func(e *ledger.Episode) error { read = append(read, *e); return nil }); err != nil {
					t.Fatal(err)
				}
				if len(read) != 1 || read[0].Duplicated != c.dup || read[0].FocalCommits != int64(c.rows) || read[0].Extra["upstream"] != "store 1.0" {
					t.Errorf("read back %+v", read)
				}
			})
		})
	}
}

// TestIdempotentAbsorbed: repeats of an idempotent write are executions
// but not duplicates.
func TestIdempotentAbsorbed(t *testing.T) {
	eachPath(t, func(t *testing.T, connect func(testing.TB) (*store, *Upstream)) {
		st, up := connect(t)
		f := startProxy(t, up, storeContract, Episode{Tool: "upsert", FaultMode: ledger.FaultTimeoutPost}, nil)
		blindRetry(t, f.cs, "upsert", map[string]any{"name": "a"})
		g := f.close(t)
		if g.ep.Duplicated || len(g.raw.Effects) != 2 || g.ep.FocalCommits != 1 || !st.set["a"] {
			t.Errorf("duplicated %v, %d effects, %d commits", g.ep.Duplicated, len(g.raw.Effects), g.ep.FocalCommits)
		}
		if g.ep.WriteClass != ledger.ClassIdempotent {
			t.Errorf("write class %s", g.ep.WriteClass)
		}
	})
}

// TestPartialBatch: half the batch is forwarded and answered as a 500; a
// blind retry of the whole batch duplicates that half.
func TestPartialBatch(t *testing.T) {
	eachPath(t, func(t *testing.T, connect func(testing.TB) (*store, *Upstream)) {
		st, up := connect(t)
		f := startProxy(t, up, storeContract, Episode{Tool: "insert_many", FaultMode: ledger.FaultPartialBatch}, nil)
		rows := []any{map[string]any{"name": "a"}, map[string]any{"name": "b"}, map[string]any{"name": "c"}}
		first, _ := blindRetry(t, f.cs, "insert_many", map[string]any{"rows": rows})
		if !strings.Contains(first, `"outcome":"http500"`) {
			t.Errorf("first answer %q", first)
		}
		g := f.close(t)
		// ⌈3/2⌉ = 2 rows, then all 3.
		if st.count("a") != 2 || st.count("b") != 2 || st.count("c") != 1 {
			t.Errorf("upstream rows %v", st.rows)
		}
		if !g.ep.Duplicated || !g.ep.FaultFired || g.ep.FocalCommits != 5 || g.ep.ExpectedCommits != 3 || len(g.raw.Effects) != 5 {
			t.Errorf("dup %v fired %v focal %d expected %d effects %d", g.ep.Duplicated, g.ep.FaultFired, g.ep.FocalCommits, g.ep.ExpectedCommits, len(g.raw.Effects))
		}
		if g.raw.Effects[0].Source != ledger.SourcePartial || g.raw.Effects[1].ResourceID != "1" {
			t.Errorf("effects %+v", g.raw.Effects[:2])
		}
	})
}

// TestNotFired: a fault whose upstream part could not land is recorded as
// not fired, and nothing is executed.
func TestNotFired(t *testing.T) {
	eachPath(t, func(t *testing.T, connect func(testing.TB) (*store, *Upstream)) {
		_, up := connect(t)
		f := startProxy(t, up, storeContract, Episode{Tool: "boom", FaultMode: ledger.FaultTimeoutPost}, nil)
		if text, isErr := callText(t, f.cs, "boom", map[string]any{}); !isErr || text != "boom" {
			t.Errorf("the upstream's error is not passed on: %q %v", text, isErr)
		}
		g := f.close(t)
		if g.ep.FaultFired || len(g.raw.Effects) != 0 || g.raw.Calls[0].Outcome != ledger.OutcomeHTTP400 {
			t.Errorf("fired %v effects %d outcome %s", g.ep.FaultFired, len(g.raw.Effects), g.raw.Calls[0].Outcome)
		}
		// The tool was never called: not fired either.
		_, up2 := connect(t)
		f2 := startProxy(t, up2, storeContract, Episode{Tool: "insert", Occurrence: 2, FaultMode: ledger.FaultTimeoutPre}, nil)
		callText(t, f2.cs, "insert", map[string]any{"name": "a"})
		if g := f2.close(t); g.ep.FaultFired || g.ep.FocalIndex != 1 {
			t.Errorf("second call never made: fired %v focal index %d", g.ep.FaultFired, g.ep.FocalIndex)
		}
	})
}

// TestPassThrough: tools with their schemas and annotations, prompts and
// resources reach the agent as the upstream lists them; a read is
// forwarded as is; a session without a tool call is not an episode.
func TestPassThrough(t *testing.T) {
	eachPath(t, func(t *testing.T, connect func(testing.TB) (*store, *Upstream)) {
		_, up := connect(t)
		f := startProxy(t, up, storeContract, Episode{FaultMode: ledger.FaultNone}, nil)
		ctx := context.Background()
		tl, err := f.cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		byName := map[string]*sdk.Tool{}
		for _, t := range tl.Tools {
			byName[t.Name] = t
		}
		for _, ut := range up.Tools {
			got := byName[ut.Name]
			if got == nil || got.Description != ut.Description || schemaText(got.InputSchema) != schemaText(ut.InputSchema) ||
				schemaText(got.Annotations) != schemaText(ut.Annotations) || schemaText(got.OutputSchema) != schemaText(ut.OutputSchema) {
				t.Errorf("tool %s listed as %+v, upstream %+v", ut.Name, got, ut)
			}
		}
		if byName["finish"] == nil || len(tl.Tools) != len(up.Tools)+1 {
			t.Errorf("%d tools, want the upstream's %d and finish", len(tl.Tools), len(up.Tools))
		}
		pr, err := f.cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: "hello"})
		if err != nil || pr.Messages[0].Content.(*sdk.TextContent).Text != "hello from the store" {
			t.Errorf("prompt: %v %+v", err, pr)
		}
		callText(t, f.cs, "insert", map[string]any{"name": "z"})
		rr, err := f.cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "store://rows"})
		if err != nil || rr.Contents[0].Text != "z" {
			t.Errorf("resource: %v %+v", err, rr)
		}
		res, err := f.cs.CallTool(ctx, &sdk.CallToolParams{Name: "count", Arguments: map[string]any{"name": "z"}})
		if err != nil || res.StructuredContent == nil || resultText(res) != `{"n":1}` {
			t.Errorf("read: %v %+v", err, res)
		}
		g := f.close(t)
		if g.ep.FocalWrite != "insert" || !g.ep.FaultFired || len(g.raw.Calls) != 2 {
			t.Errorf("none without a tool: focal %s fired %v calls %d", g.ep.FocalWrite, g.ep.FaultFired, len(g.raw.Calls))
		}
		data, _ := os.ReadFile(f.ledger)
		if bytes.Count(data, []byte{'\n'}) != 1 {
			t.Errorf("ledger:\n%s", data)
		}

		// A session that makes no call records nothing.
		_, up2 := connect(t)
		f2 := startProxy(t, up2, storeContract, Episode{FaultMode: ledger.FaultNone}, nil)
		f2.cs.Close()
		if err := <-f2.served; err != nil {
			t.Fatal(err)
		}
		if data, _ := os.ReadFile(f2.ledger); len(data) != 0 || len(f2.got) != 0 {
			t.Errorf("an idle session was recorded: %s", data)
		}
	})
}

func schemaText(v any) string {
	m := schemaMap(v)
	if m == nil {
		return "null"
	}
	b, _ := jsonMarshal(m)
	return string(b)
}
