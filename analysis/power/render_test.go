package power_test

import (
	"bytes"
	"flag"
	"testing"

	"github.com/limbo-toolkit/limbo/agent"
	"github.com/limbo-toolkit/limbo/analysis/power"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
	"github.com/limbo-toolkit/limbo/analysis/table"
	"github.com/limbo-toolkit/limbo/design"
	"github.com/limbo-toolkit/limbo/internal/testfile"
	"github.com/limbo-toolkit/limbo/ledger"
	"github.com/limbo-toolkit/limbo/report"
)

// These tests read the results through report, which renders them (an
// external test package: report imports power).

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func readPrereg(t *testing.T, path string) *prereg.File {
	t.Helper()
	f, err := prereg.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func render(t *testing.T, r *power.Result, format string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := report.Power(&b, r, format); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testfile.CheckGolden(t, "testdata/"+name, got, *update)
}

// TestDeterminism: the same seed gives the same bytes at --jobs 1 and 2,
// in every format; the text output is pinned by a golden file.
func TestDeterminism(t *testing.T) {
	m, err := design.Load("testdata/small.json")
	if err != nil {
		t.Fatal(err)
	}
	o := power.Options{Prereg: readPrereg(t, "testdata/small.yaml"), Manifest: m,
		Scale: design.ScaleEpisodes, Sizes: []float64{0.5, 1, 2}, Reps: 6, Target: 0.8, Seed: 7}
	var outs [2]*power.Result
	for i, jobs := range []int{1, 2} {
		o.Jobs = jobs
		r, err := power.Run(o)
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = r
	}
	for _, format := range report.PowerFormats {
		if a, b := render(t, outs[0], format), render(t, outs[1], format); !bytes.Equal(a, b) {
			t.Errorf("%s: --jobs 1 and 2 differ:\n%s\n---\n%s", format, a, b)
		}
	}
	golden(t, "small.golden.txt", render(t, outs[0], "text"))
	// Another seed gives other replications.
	o.Seed = 8
	r, err := power.Run(o)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(render(t, r, "json"), render(t, outs[0], "json")) {
		t.Error("seeds 7 and 8 give the same result")
	}
}

// TestPilotOutput: the pilot bootstrap gives the same bytes at --jobs 1
// and 2; its text output is pinned by a golden file.
func TestPilotOutput(t *testing.T) {
	d, err := table.Read("testdata/pilot.csv", ledger.ReadOptions{Warn: func(ledger.Problem) {}})
	if err != nil {
		t.Fatal(err)
	}
	o := power.Options{Prereg: readPrereg(t, "testdata/pilot.yaml"), Pilot: d.Episodes(), Sizes: []float64{1, 4}, Reps: 20, Target: 0.8, Seed: 3}
	var js [2][]byte
	for i, jobs := range []int{1, 2} {
		o.Jobs = jobs
		r, err := power.Run(o)
		if err != nil {
			t.Fatal(err)
		}
		js[i] = render(t, r, "json")
		if i == 0 {
			golden(t, "pilot.golden.txt", render(t, r, "text"))
		}
	}
	if !bytes.Equal(js[0], js[1]) {
		t.Error("pilot: --jobs 1 and 2 differ")
	}
}

// TestNeeded: evaluating the paper's preregistration on the episodes
// Needed keeps gives the same result as on the whole design.
func TestNeeded(t *testing.T) {
	t.Parallel()
	f, err := prereg.Paper()
	if err != nil {
		t.Fatal(err)
	}
	sc, err := design.Scale(design.Paper(), design.ScaleEpisodes, 0.1)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := design.Compile(sc.Manifest)
	if err != nil {
		t.Fatal(err)
	}
	needed, err := power.Needed(f, plan)
	if err != nil {
		t.Fatal(err)
	}
	var all, some []*ledger.Episode
	err = design.Generate(design.NewSimulator(plan, agent.DefaultProfiles(), 5), 0, plan.Len(), 2, true, func(c *design.Chunk) error {
		for i := range c.Eps {
			e := c.Eps[i]
			all = append(all, &e)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range needed {
		some = append(some, all[i])
		if x := all[i].Experiment; x != "E1" && x != "E1s" && x != "E3" {
			t.Fatalf("episode %d of experiment %s kept; H1–H6 read E1, E1s and E3 only", i, x)
		}
	}
	if len(some) == 0 || len(some) == len(all) {
		t.Fatalf("kept %d of %d episodes", len(some), len(all))
	}
	a, err := f.EvaluateEpisodes(all)
	if err != nil {
		t.Fatal(err)
	}
	b, err := f.EvaluateEpisodes(some)
	if err != nil {
		t.Fatal(err)
	}
	var ba, bb bytes.Buffer
	if err := report.Prereg(&ba, a, "json"); err != nil {
		t.Fatal(err)
	}
	if err := report.Prereg(&bb, b, "json"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(ba.Bytes(), bb.Bytes()) {
		t.Errorf("the needed episodes give another result:\n%s\n---\n%s", ba.Bytes(), bb.Bytes())
	}
}
