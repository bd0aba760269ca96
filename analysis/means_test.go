package analysis

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/stats"
)

// meanEpisodes is a small ledger: two contracts, four tasks, weights 1–3
// and agent times that repeat (patterns collapse).
func meanEpisodes() []*ledger.Episode {
	var eps []*ledger.Episode
	for i := range 40 {
		contract := []string{"native", "keys-everywhere"}[i%2]
		eps = append(eps, &ledger.Episode{EpisodeID: fmt.Sprintf("e%02d", i), Contract: contract, Task: fmt.Sprint("t", i%4+i%3),
			Weight: float64(1 + i%3), AgentTimeS: float64((i * 7) % 11), ToolCalls: int64(i % 5), PairKey: fmt.Sprint("k", i/2),
			Condition: []string{"vanilla", "guard"}[(i/2)%2]})
	}
	return eps
}

// TestMeansEngine: each group's row is stats.MeanCI on that group's
// episodes, one cell per episode (the engine's patterns change nothing),
// weighted, unweighted and clustered.
func TestMeansEngine(t *testing.T) {
	eps := meanEpisodes()
	for _, c := range []struct {
		weight, cluster string
	}{{"", ""}, {"weight", ""}, {"weight", "task"}, {"", "task"}} {
		r, err := Means(Query{Source: table.Episodes(eps), Weight: c.weight}, MeansSpec{Outcome: "agent_time_s", By: []string{"contract"}, Cluster: c.cluster})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Rows) != 2 || r.Rows[0].Levels[0] != "keys-everywhere" {
			t.Fatalf("rows %+v", r.Rows)
		}
		for _, row := range r.Rows {
			var cells []stats.MeanCell
			tasks := map[string]int{}
			for _, e := range eps {
				if e.Contract != row.Levels[0] {
					continue
				}
				w := 1.0
				if c.weight != "" {
					w = e.Weight
				}
				if _, ok := tasks[e.Task]; !ok {
					tasks[e.Task] = len(tasks)
				}
				cells = append(cells, stats.MeanCell{Y: e.AgentTimeS, N: 1, SumW: w, SumW2: w * w, Cluster: tasks[e.Task]})
			}
			want := stats.MeanCI(cells, c.cluster != "", 0.95)
			got := []float64{row.Mean, row.SD, row.SE, row.Lo, row.Hi, row.DF, float64(row.Clusters)}
			exp := []float64{want.Mean, want.SD, want.SE, want.Lo, want.Hi, want.DF, float64(want.Clusters)}
			for j := range got {
				if math.Abs(got[j]-exp[j]) > 1e-12*math.Max(1, math.Abs(exp[j])) {
					t.Errorf("%+v %s: field %d = %v, want %v", c, row.Levels[0], j, got[j], exp[j])
				}
			}
		}
	}
}

// TestMeansColumnScan: a Parquet ledger gives the same result by the
// column scan and by rows.
func TestMeansColumnScan(t *testing.T) {
	path := writeScanLedger(t, 2, nil)
	spec := MeansSpec{Outcome: "tool_calls", By: []string{"condition"}, Cluster: "task"}
	a, err := Means(Query{Source: &table.Files{Paths: []string{path}}, Weight: "weight"}, spec)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Means(Query{Source: &table.Files{Paths: []string{path}}, Weight: "weight", rowPath: true}, spec)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a.Rows, b.Rows) {
		t.Errorf("column scan %+v\nrows %+v", a.Rows, b.Rows)
	}
}

// TestMeansSpecErrors: spec mistakes are *SpecErrors naming the field.
func TestMeansSpecErrors(t *testing.T) {
	q := Query{Source: table.Episodes(meanEpisodes())}
	for _, c := range []struct {
		spec  MeansSpec
		field string
	}{
		{MeansSpec{}, "Outcome"},
		{MeansSpec{Outcome: "tool_calls", By: []string{"tool_calls"}}, "Outcome"},
		{MeansSpec{Outcome: "tool_calls", Cluster: "tool_calls"}, "Cluster"},
		{MeansSpec{Outcome: "tool_calls", Level: 2}, "Level"},
		{MeansSpec{Outcome: "tool_calls", By: []string{"task", "task"}}, "By"},
		{MeansSpec{Outcome: "contract"}, "Outcome"},
	} {
		_, err := Means(q, c.spec)
		var se *SpecError
		if !errors.As(err, &se) || se.Field != c.field {
			t.Errorf("%+v: %v, want a SpecError on %s", c.spec, err, c.field)
		}
	}
}

// TestPairedNumericEngine: pairs on pair_key, d = vanilla − guard; the
// differences' t test and signed-rank test are stats' on the same d; an
// int outcome with values other than 0/1 is numeric without Test.
func TestPairedNumericEngine(t *testing.T) {
	eps := meanEpisodes()
	// Episodes 4j+m (vanilla) and 4j+2+m (guard) share a key (m = 0, 1).
	for i, e := range eps {
		e.PairKey = fmt.Sprint("p", i/4, "/", i%2)
	}
	var d []float64
	for j := 0; j < len(eps)/4; j++ {
		for m := range 2 {
			v, g := eps[4*j+m], eps[4*j+2+m]
			d = append(d, float64(v.ToolCalls-g.ToolCalls))
		}
	}
	spec := PairedSpec{Outcome: "tool_calls", Arm: "condition", Base: "vanilla", PairBy: []string{"pair_key"}}
	r, err := Paired(Query{Source: table.Episodes(eps)}, spec)
	if err != nil {
		t.Fatal(err)
	}
	if r.Comparisons != nil || len(r.Differences) != 1 || r.Spec.Test != "t" {
		t.Fatalf("result %+v", r)
	}
	want := stats.PairedT(d, 0.95)
	got := r.Differences[0]
	if got.Pairs != len(d) || got.Mean != want.Mean || got.P != want.P || got.Lo != want.Lo || !math.IsNaN(got.V) {
		t.Errorf("t: %+v, want %+v", got, want)
	}
	spec.Test = "wilcoxon"
	if r, err = Paired(Query{Source: table.Episodes(eps)}, spec); err != nil {
		t.Fatal(err)
	}
	w := stats.WilcoxonSignedRank(d)
	if got := r.Differences[0]; got.V != w.V || got.P != w.P || got.Zeros != w.Zeros {
		t.Errorf("wilcoxon: %+v, want %+v", got, w)
	}
	// A boolean outcome stays McNemar's.
	spec.Outcome, spec.Test = "duplicated", ""
	if r, err = Paired(Query{Source: table.Episodes(eps)}, spec); err != nil || r.Differences != nil || len(r.Comparisons) != 1 {
		t.Errorf("binary: %+v, %v", r, err)
	}
	// Weights are refused on a numeric outcome, naming the field.
	spec.Outcome = "tool_calls"
	_, err = Paired(Query{Source: table.Episodes(eps), Weight: "weight"}, spec)
	var se *SpecError
	if !errors.As(err, &se) || se.Field != "Weight" {
		t.Errorf("weighted: %v", err)
	}
}
