package report

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/limbo-toolkit/limbo/analysis/power"
	"github.com/limbo-toolkit/limbo/analysis/prereg"
)

// samplePower is a power analysis with a simulated and a closed-form
// table, a size that no hypothesis reaches and a warning.
func samplePower() *power.Result {
	nan := math.NaN()
	return &power.Result{
		Title: "small", Source: "simulation", Scale: "episodes", Reps: 4, Seed: 1, Target: 0.8,
		Sizes: []power.Size{{Factor: 1, Episodes: 68, Analysed: 13}, {Factor: 4, Episodes: 272, Analysed: 52}},
		Hypotheses: []*power.Hypothesis{{ID: "H1", Analysis: string(prereg.Primary), Reached: 4, Points: []power.Point{
			{Factor: 1, Counts: map[prereg.Verdict]int{prereg.Supported: 2, prereg.Inconclusive: 2}, Power: 0.5, Lo: 0.15, Hi: 0.85, NotComputable: 0},
			{Factor: 4, Counts: map[prereg.Verdict]int{prereg.Supported: 4}, Power: 1, Lo: 0.51, Hi: 1, NotComputable: 0},
		}}, {ID: "H1-adj", Analysis: string(prereg.Sensitivity), Reached: nan, Points: []power.Point{
			{Factor: 1, Counts: map[prereg.Verdict]int{prereg.NotComputable: 4}, Power: 0, Lo: 0, Hi: 0.49, NotComputable: 1},
			{Factor: 4, Counts: map[prereg.Verdict]int{prereg.NotComputable: 4}, Power: 0, Lo: 0, Hi: 0.49, NotComputable: 1},
		}}},
		Closed: []*power.Closed{{Hypothesis: "H1", Part: "rate_difference", Kind: string(prereg.KindRateDiff), Method: "two proportions",
			Assumptions: "normal approximation", Inputs: []power.Input{{Name: "rate_true", Value: 0.8333333}}, Power: []float64{0.158, 0.534}}},
		Warnings: []string{"H1-adj: 100% not computable"},
	}
}

// Every format is pinned (LaTeX is new with the tables on Grid); every
// LaTeX tabular closes and the prose stays in comments.
func TestPowerFormats(t *testing.T) {
	for _, format := range PowerFormats {
		var b bytes.Buffer
		if err := Power(&b, samplePower(), format); err != nil {
			t.Fatal(err)
		}
		renderGolden(t, "power.golden."+format, b.Bytes())
		if format != "latex" {
			continue
		}
		s := b.String()
		if n, m := strings.Count(s, `\begin{tabular}`), strings.Count(s, `\end{tabular}`); n != 4 || m != 4 {
			t.Errorf("latex: %d tabulars opened and %d closed, want 4", n, m)
		}
		for _, l := range strings.Split(strings.TrimSuffix(s, "\n"), "\n") {
			if !strings.HasPrefix(l, "%") && !strings.HasPrefix(l, `\`) && !strings.HasSuffix(l, `\\`) {
				t.Errorf("latex: line %q is neither a comment, a command nor a row", l)
			}
		}
	}
	if err := Power(&bytes.Buffer{}, samplePower(), "html"); err == nil || !strings.Contains(err.Error(), "latex") {
		t.Errorf("html: %v, want an error listing the formats", err)
	}
}
