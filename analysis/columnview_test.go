package analysis

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/frame"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/ledger"
)

// TestColumnViews: every view answers what the episode holds, row by row,
// across the coded and the plain storage (wideEpisodes passes 256 values),
// with the same code for the same text; a name of another kind or none is
// no view.
func TestColumnViews(t *testing.T) {
	eps := wideEpisodes(600)
	d := table.NewData(eps).WithBools([]string{"even"}, [][]uint64{evenBits(600)})
	model, _ := d.Strings("model")
	pair, _ := d.Strings("pair_key")
	site, ok := d.Strings("site")
	if !ok {
		t.Fatal("no view of the extra column site")
	}
	dup, _ := d.Bools("duplicated")
	even, _ := d.Bools("even")
	calls, _ := d.Ints("tool_calls")
	commits, _ := d.Ints("focal_commits")
	cost, _ := d.Floats("cost_usd")
	tm, _ := d.Floats("agent_time_s")
	codes := map[string]int32{}
	for i, e := range eps {
		if model.Value(i) != e.Model || pair.Value(i) != e.PairKey || site.Value(i) != e.Extra["site"] {
			t.Fatalf("row %d: strings %q %q %q, want %q %q %q", i, model.Value(i), pair.Value(i), site.Value(i), e.Model, e.PairKey, e.Extra["site"])
		}
		if c, seen := codes[e.Model]; seen && c != model.Code(i) || model.Code(i) < 0 {
			t.Fatalf("row %d: model %q has code %d, earlier %d", i, e.Model, model.Code(i), c)
		}
		codes[e.Model] = model.Code(i)
		if dup.Value(i) != e.Duplicated || even.Value(i) != (i%2 == 0) {
			t.Fatalf("row %d: bools %v %v", i, dup.Value(i), even.Value(i))
		}
		if calls.Value(i) != e.ToolCalls || commits.Value(i) != e.FocalCommits || tm.Value(i) != e.AgentTimeS {
			t.Fatalf("row %d: numbers %d %d %v, want %d %d %v", i, calls.Value(i), commits.Value(i), tm.Value(i), e.ToolCalls, e.FocalCommits, e.AgentTimeS)
		}
		if cost.Valid(i) != (e.CostUSD != nil) || e.CostUSD != nil && cost.Value(i) != *e.CostUSD {
			t.Fatalf("row %d: cost %v valid %v, want %v", i, cost.Value(i), cost.Valid(i), e.CostUSD)
		}
	}
	for _, bad := range []func() bool{
		func() bool { _, ok := d.Strings("duplicated"); return ok },
		func() bool { _, ok := d.Bools("model"); return ok },
		func() bool { _, ok := d.Ints("delay_s"); return ok },
		func() bool { _, ok := d.Floats("no_such_column"); return ok },
	} {
		if bad() {
			t.Error("a view of a column of another kind (or none)")
		}
	}
	// A column the source did not carry reads as its zero value.
	part := &table.Data{Columns: []string{"model", "duplicated"}}
	part.Append(eps[:3]...)
	tmpl, _ := part.Strings("template")
	c, _ := part.Floats("cost_usd")
	if tmpl.Code(0) != -1 || tmpl.Value(0) != "" || c.Valid(0) {
		t.Errorf("unread columns: template code %d %q, cost valid %v", tmpl.Code(0), tmpl.Value(0), c.Valid(0))
	}
}

func evenBits(n int) []uint64 {
	var b bitset = make([]uint64, (n+63)/64)
	for i := 0; i < n; i += 2 {
		b.set(i, true)
	}
	return b
}

// TestQueryFrame: Rates over a frame the caller built from the episodes is
// Rates over the episodes; a frame that lacks what the analysis reads, a
// Where on it and an analysis that reads episodes are spec errors.
func TestQueryFrame(t *testing.T) {
	eps := genSample(7)
	spec := RatesSpec{Outcome: "duplicated", By: []string{"model"}, Cluster: "template"}
	want, err := Rates(Query{Source: table.Episodes(eps), Weight: "weight"}, spec)
	if err != nil {
		t.Fatal(err)
	}
	b := frame.NewBuilder(frame.Spec{Columns: []string{"model", "template"}, Outcome: "duplicated", Weight: "weight", Collapse: true})
	for _, e := range eps {
		if err := b.Add(e); err != nil {
			t.Fatal(err)
		}
	}
	fr := b.Frame()
	got, err := Rates(Query{Source: Built(fr), Weight: "weight"}, spec)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Rows, want.Rows) || got.ICC != want.ICC || len(got.Rows) < 2 {
		t.Fatalf("Rates on the built frame:\n%+v ICC %v\nwant\n%+v ICC %v", got.Rows, got.ICC, want.Rows, want.ICC)
	}
	for _, tc := range []struct {
		name string
		run  func() error
		want string
	}{
		{"where", func() error { return errOf(Rates(Query{Source: Built(fr), Where: "fault_fired"}, spec)) }, "Where \"fault_fired\" cannot filter"},
		{"missing column", func() error {
			return errOf(Rates(Query{Source: Built(fr)}, RatesSpec{Outcome: "duplicated", By: []string{"harness"}}))
		}, `"harness"`},
		{"no weights", func() error {
			nb := frame.NewBuilder(frame.Spec{Columns: []string{"model"}, Outcome: "duplicated", Collapse: true})
			for _, e := range eps {
				nb.Add(e)
			}
			return errOf(Rates(Query{Source: Built(nb.Frame()), Weight: "weight"}, RatesSpec{Outcome: "duplicated", By: []string{"model"}}))
		}, "no weights"},
		{"paired", func() error {
			return errOf(Paired(Query{Source: Built(fr)}, PairedSpec{Outcome: "duplicated", Arm: "model", Base: "gpt-4.1", PairBy: []string{"template"}}))
		}, "reads episodes"},
		{"gee", func() error {
			return errOf(Model(Query{Source: Built(fr)}, ModelSpec{Family: "gee", Formula: "duplicated ~ model", Group: "template"}))
		}, "reads episodes"},
	} {
		err := tc.run()
		var se *SpecError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a *SpecError mentioning %s", tc.name, err, tc.want)
		}
	}
}

// TestPairedTable: a comparison carries its whole 2×2 table of pairs and
// the episodes left without a partner.
func TestPairedTable(t *testing.T) {
	var eps []*ledger.Episode
	add := func(key, cond string, dup bool) {
		eps = append(eps, &ledger.Episode{EpisodeID: fmt.Sprintf("e%02d", len(eps)), PairKey: key, Condition: cond, Duplicated: dup})
	}
	// (base, other): (1,1) (1,0) (0,1) (0,0) (0,0), and two unpaired.
	for k, p := range [][2]bool{{true, true}, {true, false}, {false, true}, {false, false}, {false, false}} {
		key := fmt.Sprint("k", k)
		add(key, "guard", p[0])
		add(key, "vanilla", p[1])
	}
	add("k9", "guard", true)
	add("k8", "vanilla", false)
	add("k7", "vanilla", true)
	r, err := Paired(Query{Source: table.Episodes(eps)}, PairedSpec{Outcome: "duplicated", Arm: "condition", Base: "guard", PairBy: []string{"pair_key"}})
	if err != nil {
		t.Fatal(err)
	}
	c := r.Comparisons[0]
	if c.Pairs != 5 || c.A != 1 || c.B != 1 || c.C != 1 || c.D != 2 || c.UnmatchedBase != 1 || c.UnmatchedOther != 2 {
		t.Errorf("comparison %+v, want 5 pairs: a 1, b 1, c 1, d 2; unmatched 1 guard, 2 vanilla", c)
	}
}
