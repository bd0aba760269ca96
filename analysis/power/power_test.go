package power

import (
	"math"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/ledger"
)

func readPrereg(t *testing.T, path string) *prereg.File {
	t.Helper()
	f, err := prereg.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func loadDesign(t *testing.T, path string) *design.Manifest {
	t.Helper()
	m, err := design.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestNullAndEffect: a null effect (instance parity) is "supported" in
// about α/2 of the replications (the rule reads one side of a 95%
// interval), a strong effect in nearly all, and a moderate one more often
// as the size grows.
func TestNullAndEffect(t *testing.T) {
	t.Parallel()
	reps := 300
	if testing.Short() {
		reps = 200
	}
	o := Options{Prereg: readPrereg(t, "testdata/null.yaml"), Manifest: loadDesign(t, "testdata/small.json"),
		Scale: design.ScaleEpisodes, Sizes: []float64{1, 4, 8}, Reps: reps, Target: 0.8, Seed: 1, Jobs: 2}
	r, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if got := r.Sizes[0].Analysed; got != 13 {
		t.Errorf("×1 simulates %d episodes, want the 13 timeout_late ones", got)
	}
	null, rise := r.Hypotheses[0], r.Hypotheses[1]
	alpha := 0.025
	mc := 3 * math.Sqrt(alpha*(1-alpha)/float64(reps))
	if p := null.Points[2].Power; math.Abs(p-alpha) > mc {
		t.Errorf("null effect at ×8: power %v, want %v ± %.3f", p, alpha, mc)
	}
	p := []float64{rise.Points[0].Power, rise.Points[1].Power, rise.Points[2].Power}
	if !(p[0] < p[1] && p[1] <= p[2]) || p[2] < 0.95 {
		t.Errorf("moderate effect: power %v, want rising to ≥ 0.95", p)
	}
	if rise.Reached != 4 {
		t.Errorf("moderate effect: smallest size reaching 0.8 is %v, want 4", rise.Reached)
	}
	if !math.IsNaN(null.Reached) {
		t.Errorf("null effect reaches the target at ×%v", null.Reached)
	}
}

func readPilot(t *testing.T) []*ledger.Episode {
	t.Helper()
	d, err := table.Read("testdata/pilot.csv", ledger.ReadOptions{Warn: func(ledger.Problem) {}})
	if err != nil {
		t.Fatal(err)
	}
	return d.Episodes()
}

// TestPilot: the bootstrap draws whole templates with replacement and
// round(f·n) worlds of each, relabels copies apart, and gives the closed
// forms the pilot's inputs (render_test.go pins its output across jobs).
func TestPilot(t *testing.T) {
	eps := readPilot(t)
	b, err := newBootstrap(eps)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.templates) != 12 {
		t.Fatalf("%d templates, want 12", len(b.templates))
	}
	for _, f := range []float64{1, 2} {
		rep, err := b.at(f).make(1, 0)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		clusters := map[string]int{}
		pairs := map[string]int{}
		for _, e := range rep {
			if ids[e.EpisodeID] {
				t.Fatalf("×%g: episode id %s twice", f, e.EpisodeID)
			}
			ids[e.EpisodeID] = true
			clusters[e.Template]++
			pairs[e.PairKey]++
		}
		if len(clusters) != 12 {
			t.Errorf("×%g: %d distinct template clusters, want 12 (copies relabelled)", f, len(clusters))
		}
		for k, n := range pairs {
			if n != 2 {
				t.Fatalf("×%g: pair %s has %d episodes, want 2 (vanilla and guard)", f, k, n)
			}
		}
		// Every template of the pilot has 6 or 4 worlds of two episodes.
		if want := f * float64(len(eps)); math.Abs(float64(len(rep))-want) > 0.5*want {
			t.Errorf("×%g: %d episodes, want about %v", f, len(rep), want)
		}
	}
	o := Options{Prereg: readPrereg(t, "testdata/pilot.yaml"), Pilot: eps, Sizes: []float64{1, 4}, Reps: 20, Target: 0.8, Seed: 3, Jobs: 1}
	r, err := Run(o)
	if err != nil {
		t.Fatal(err)
	}
	g := r.Hypotheses[0]
	if !(g.Points[1].Power > g.Points[0].Power) {
		t.Errorf("H-guard: power ×1 %v, ×4 %v: want a rise", g.Points[0].Power, g.Points[1].Power)
	}
	c := r.Closed[0]
	if c.Method != methodMcNemar || c.Inputs[0].Value != 68 {
		t.Errorf("H-guard closed form: %s with inputs %v, want McNemar on the pilot's 68 pairs", c.Method, c.Inputs)
	}
}

func TestOptionErrors(t *testing.T) {
	f := readPrereg(t, "testdata/small.yaml")
	m := loadDesign(t, "testdata/small.json")
	ok := Options{Prereg: f, Manifest: m, Scale: design.ScaleEpisodes, Sizes: []float64{1}, Reps: 1, Target: 0.8}
	tests := []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"no reps", func(o *Options) { o.Reps = 0 }, "Reps must be ≥ 1"},
		{"target 1", func(o *Options) { o.Target = 1 }, "Target must be in (0, 1)"},
		{"no sizes", func(o *Options) { o.Sizes = nil }, "Sizes: empty"},
		{"descending", func(o *Options) { o.Sizes = []float64{2, 1} }, "distinct and ascending"},
		{"scale", func(o *Options) { o.Scale = "cells" }, `Scale "cells"`},
		{"seeds not whole", func(o *Options) { o.Scale = design.ScaleSeeds; o.Sizes = []float64{0.5, 1} }, "counts whole runs"},
		{"both", func(o *Options) { o.Pilot = []*ledger.Episode{{}} }, "not both or neither"},
		{"instances beyond the sandbox", func(o *Options) { o.Scale = design.ScaleInstances; o.Sizes = []float64{2} }, "the sandbox has 13"},
	}
	for _, tt := range tests {
		o := ok
		tt.edit(&o)
		if _, err := Run(o); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want %q", tt.name, err, tt.want)
		}
	}
	for _, s := range []string{"", "0", "-1,2", "1,x", "1,1", "inf"} {
		if _, err := ParseSizes(s); err == nil {
			t.Errorf("ParseSizes(%q): no error", s)
		}
	}
	if got, err := ParseSizes(" 2, 0.5,1"); err != nil || len(got) != 3 || got[0] != 0.5 || got[2] != 2 {
		t.Errorf("ParseSizes: %v, %v", got, err)
	}
}
