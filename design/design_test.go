package design

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/ledger"
)

// Reference values: the table of docs/simulation.md, Heavy-tailed delay
// (truncated Pareto, α = 0.181 on [40, 7200] s), to three decimals.
func TestTruncParetoCDF(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{60, 0.116}, {90, 0.224}, {120, 0.296}, {300, 0.501}, {600, 0.636}, {1800, 0.817}, {3600, 0.914},
	} {
		if got := TruncParetoCDF(c.x, 0.181, 40, 7200); math.Abs(got-c.want) > 0.0006 {
			t.Errorf("F(%v) = %.4f, want %.3f (docs/simulation.md, Heavy-tailed delay)", c.x, got, c.want)
		}
		q := TruncParetoQuantile(TruncParetoCDF(c.x, 0.181, 40, 7200), 0.181, 40, 7200)
		if math.Abs(q-c.x) > 1e-9*c.x {
			t.Errorf("F⁻¹(F(%v)) = %v", c.x, q)
		}
	}
}

// docs/simulation.md, Heavy-tailed delay: stratified quantiles give exactly 4/34 ≤ 60 s, 17/34 ≤
// 300 s and 31/34 ≤ 3600 s.
func TestStratifiedDelays(t *testing.T) {
	d := StratifiedDelays(34, Paper().Tail)
	count := func(b float64) int {
		n := 0
		for _, x := range d {
			if x <= b {
				n++
			}
		}
		return n
	}
	for _, c := range []struct {
		bound float64
		want  int
	}{{60, 4}, {300, 17}, {3600, 31}, {40, 0}, {7200, 34}} {
		if got := count(c.bound); got != c.want {
			t.Errorf("#δ ≤ %v = %d, want %d", c.bound, got, c.want)
		}
	}
	if again := StratifiedDelays(34, Paper().Tail); !slices.Equal(d, again) {
		t.Error("StratifiedDelays is not deterministic")
	}
}

// The R5 reference decomposition (docs/simulation.md, Designs) totals 25,930.
func TestPaperTotals(t *testing.T) {
	p, err := Compile(Paper())
	if err != nil {
		t.Fatal(err)
	}
	if p.Len() != 25930 {
		t.Errorf("paper design has %d episodes, want 25,930", p.Len())
	}
	for _, c := range []struct {
		exp  string
		want int
	}{
		{"E1", 4389 + 545}, {"E1s", 70}, {"E2", 7812}, {"E2k", 1736},
		{"E3", 6384}, {"E3k", 2128}, {"E5", 1768}, {"E6", 1098},
	} {
		if got := p.Count(c.exp); got != c.want {
			t.Errorf("%s: %d episodes, want %d (docs/simulation.md, Designs: R5)", c.exp, got, c.want)
		}
	}
}

// Unique ids, pair keys and the tail delays shared across models.
func TestPlanStructure(t *testing.T) {
	p, err := Compile(Paper())
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	guard, vanilla := map[string]bool{}, map[string]bool{}
	tail := map[string]float64{} // template/instance/focal -> δ
	perModel := map[string]int{}
	for i := range p.Len() {
		e := p.Episode(i)
		id := e.ID()
		if ids[id] {
			t.Fatalf("duplicate episode id %s", id)
		}
		ids[id] = true
		w := e.World
		if e.Experiment == "E2" && w.Mode != ledger.FaultNone {
			switch e.Condition {
			case "guard":
				guard[e.PairKey()] = true
			case "vanilla":
				vanilla[e.PairKey()] = true
			}
			if e.Condition == "vanilla" {
				perModel[e.Model]++
			}
		}
		if w.Mode == ledger.FaultTimeoutLateTail {
			k := w.Task.ID + "/" + string(rune('0'+w.FocalIndex))
			if d, ok := tail[k]; ok && d != w.DelayS {
				t.Fatalf("tail delay of %s differs across episodes: %v vs %v", k, d, w.DelayS)
			}
			tail[k] = w.DelayS
		}
		if w.Mode == ledger.FaultTimeoutLate && w.DelayS != 90 {
			t.Fatalf("fixed delay %v", w.DelayS)
		}
	}
	pairs := 0
	for k := range guard {
		if vanilla[k] {
			pairs++
		}
	}
	if pairs != 820 {
		t.Errorf("E2 guard–vanilla pairs = %d, want 820 (Table 13)", pairs)
	}
	for m, n := range perModel {
		if n != 205 {
			t.Errorf("E2 %s vanilla faulted episodes = %d, want 205 = 6·34+1", m, n)
		}
	}
	if len(tail) != 34 {
		t.Errorf("%d tail worlds, want 34", len(tail))
	}
}

func TestDecodeErrors(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"syntax", "{\n\"name\": \"x\",\n\"fixed_delay_s\": 90,,\n}", "bad.json: line 3"},
		{"unknown field", `{"name":"x","bogus":1}`, "unknown field"},
		{"no delay", `{"name":"x","client_timeout_s":30,"tail":{"alpha":0.2,"lo_s":40,"hi_s":7200},"experiments":[]}`, "fixed_delay_s"},
		{"unknown switch", `{"name":"x","fixed_delay_s":90,"client_timeout_s":30,"tail":{"alpha":0.2,"lo_s":40,"hi_s":7200},
		  "experiments":[{"id":"A","blocks":[{"when":"nope","models":["m"],"tasks":[{"instances":[0]}],"modes":["none"]}]}]}`, `unknown switch "nope"`},
		{"bad mode", `{"name":"x","fixed_delay_s":90,"client_timeout_s":30,"tail":{"alpha":0.2,"lo_s":40,"hi_s":7200},
		  "experiments":[{"id":"A","blocks":[{"models":["m"],"tasks":[{"instances":[0]}],"modes":["melt"]}]}]}`, `unknown fault mode "melt"`},
	} {
		_, err := Decode(strings.NewReader(c.in), "bad.json")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

// Switching an open choice off changes the total by the block's size.
func TestSwitches(t *testing.T) {
	m := Paper()
	m.Switches["e5_wait3600"] = false
	p, err := Compile(m)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.Len(); got != 25930-136 {
		t.Errorf("without wait-3600: %d episodes, want %d", got, 25930-136)
	}
}

// A design naming a model without a profile, or an unknown condition, is
// rejected before any episode runs.
func TestCheckUnknownCells(t *testing.T) {
	for _, c := range []struct{ block, want string }{
		{`{"models":["gpt-9"],"tasks":[{"instances":[0]}],"modes":["none"]}`, `no profile for model "gpt-9"`},
		{`{"models":["gpt-6-sol"],"conditions":["pray"],"tasks":[{"instances":[0]}],"modes":["none"]}`, `unknown condition "pray"`},
		{`{"models":["gpt-6-sol"],"harnesses":["jupyter"],"tasks":[{"instances":[0]}],"modes":["none"]}`, `no harness "jupyter"`},
	} {
		m, err := Decode(strings.NewReader(`{"name":"x","fixed_delay_s":90,"client_timeout_s":30,"tail":{"alpha":0.2,"lo_s":40,"hi_s":7200},
			"experiments":[{"id":"A","blocks":[`+c.block+`]}]}`), "x.json")
		if err != nil {
			t.Fatal(err)
		}
		p, err := Compile(m)
		if err != nil {
			t.Fatal(err)
		}
		err = NewSimulator(p, agent.DefaultProfiles(), 1).Check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Check: %v, want %q", err, c.want)
		}
	}
}
