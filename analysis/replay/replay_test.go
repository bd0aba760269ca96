package replay

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/paper"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/sandbox"
)

// smallData simulates testdata/small.json (two models, T01 and T13, three
// service worlds, every agent-side arm under every guard) and grades it.
func smallData(t *testing.T) *table.Data {
	t.Helper()
	sim, err := design.LoadSimulator(filepath.Join("testdata", "small.json"), "", 1)
	if err != nil {
		t.Fatal(err)
	}
	d := &table.Data{}
	if err := design.Generate(sim, 0, sim.Plan.Len(), 2, true, func(c *design.Chunk) error {
		for i := range c.Eps {
			d.Append(&c.Eps[i])
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return d
}

// Table R1 has a row per agent-side arm and guard, each over its share of
// the design, and the mechanics show in it: the action ledger duplicates
// nothing, no guard suppresses nothing; R2 and R3 cover every service
// fault and model of the design.
func TestAnalyze(t *testing.T) {
	d := smallData(t)
	res, err := Analyze(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tables) != 3 || res.Figure == nil {
		t.Fatalf("%d tables, figure %v", len(res.Tables), res.Figure != nil)
	}
	r1, r2, r3 := res.Tables[0], res.Tables[1], res.Tables[2]
	if len(r1.Rows) != 35 {
		t.Fatalf("Table R1: %d rows, want 7 arms × 5 guards", len(r1.Rows))
	}
	perRow := d.Len() / 35
	for _, row := range r1.Rows {
		dup, _ := r1.Cell(row.Key, "duplicated")
		supp, _ := r1.Cell(row.Key, "suppressed")
		if dup.N != perRow {
			t.Errorf("%s: %d episodes, want %d", row.Key, dup.N, perRow)
		}
		switch row.Labels[1] {
		case "action ledger":
			if dup.Value != 0 || supp.Value != 0 {
				t.Errorf("%s: the action ledger duplicates %.1f%%, suppresses %.1f%%", row.Key, dup.Value, supp.Value)
			}
		case "no guard":
			if supp.Value != 0 {
				t.Errorf("%s: no guard suppresses %.1f%%", row.Key, supp.Value)
			}
		}
		if !(dup.Lo <= dup.Value && dup.Value <= dup.Hi) || math.IsNaN(dup.Lo) {
			t.Errorf("%s: interval [%v, %v] around %v", row.Key, dup.Lo, dup.Hi, dup.Value)
		}
	}
	if len(r2.Rows) != 3 || len(r2.Columns) != 15 {
		t.Errorf("Table R2: %d rows, %d columns; want 3 service faults, 5 guards × 3", len(r2.Rows), len(r2.Columns))
	}
	if len(r3.Rows) != 2 || r3.Rows[0].Key != "gpt-6-sol" {
		t.Errorf("Table R3: rows %v", r3.Rows)
	}
	if len(res.Figure.Rows) != 35 || len(res.Figure.Columns) != 3 {
		t.Errorf("figure data: %d rows, %d columns", len(res.Figure.Rows), len(res.Figure.Columns))
	}
}

// A ledger without the agent-side columns cannot make the tables: the
// error says which columns are missing.
func TestAnalyzeNeedsTheGroup(t *testing.T) {
	task, _ := sandbox.NewTask("T01", 0)
	e := ledger.Episode{EpisodeID: "e", Experiment: "E1", Model: "m", Harness: "minimal", Contract: "native", Condition: "vanilla",
		Cue: "default", Service: "social", Template: "T01", Task: task.ID, FocalWrite: "social_publish", PairKey: "k",
		WriteClass: "keyed", ReadPath: "strong", FaultMode: "none", Weight: 1, Recovery: "none"}
	d := &table.Data{Columns: []string{"model", "duplicated", "template"}}
	d.Append(&e)
	_, err := Analyze(d)
	var me *paper.MissingColumnsError
	if !errors.As(err, &me) || len(me.Missing) == 0 || me.Missing[0] != "agent_fault" {
		t.Errorf("got %v, want the missing agent-side columns", err)
	}
}
