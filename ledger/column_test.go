package ledger

import "testing"

// Column(i) gives what Get gives for the column's name, for every schema
// column, with cost_usd both set and nil.
func TestColumnMatchesGet(t *testing.T) {
	cost := 0.25
	e := &Episode{EpisodeID: "e1", Experiment: "E1", Model: "m", Harness: "h", Contract: "native",
		Condition: "vanilla", Cue: "default", Service: "pay", Template: "T01", Instance: 2, Task: "T01#2",
		FocalWrite: "pay_charge", FocalIndex: 1, Platform: "stripe", PairKey: "pk", WriteClass: "keyed",
		ReadPath: "strong", Reversible: true, FaultMode: FaultTimeoutPost, FaultFired: true, DelayS: 1.5,
		Weight: 2, Seed: 7, ExpectedCommits: 1, FocalCommits: 2, Duplicated: true, ToolCalls: 9,
		AgentTimeS: 30.5, CostUSD: &cost, ReportedSuccess: true, UncertaintyListed: true, Recovery: "blind_retry"}
	for _, withCost := range []bool{true, false} {
		if !withCost {
			e.CostUSD = nil
		}
		for i, c := range EpisodeColumns {
			want, ok := e.Get(c.Name)
			if !ok {
				t.Fatalf("Get(%q) not found", c.Name)
			}
			if got := e.Column(i); got != want {
				t.Errorf("cost set %v: Column(%d) = %+v, Get(%q) = %+v", withCost, i, got, c.Name, want)
			}
		}
	}
}
